/** Validation of a document: the JSON Schema (ajv) plus the rules it cannot state, problems located. */
import { ruleViolations } from "./rules";
import { schemaViolations } from "./schema";
import { compareInDocumentOrder, formatPath, type PathSegment } from "./paths";
import { parseSource, type Locator } from "./source";
import type { BrokerConfigProblem, BrokerConfigSource } from "./types";

/**
 * Every problem of `value`, located with `locate` when the value came from a file, in document order.
 * @internal
 */
export function problemsOf(value: unknown, file?: string, locate?: Locator): BrokerConfigProblem[] {
  const rules = ruleViolations(value);
  // The schema states the event path grammar too (for editors), but the rule says precisely what is
  // wrong ("has an empty segment"): where both speak, the rule's message is the one reported.
  const ruled = new Set(rules.map((v) => JSON.stringify(v.segments)));
  const found: { segments: PathSegment[]; message: string; atKey: boolean }[] = [
    ...schemaViolations(value).filter((v) => !ruled.has(JSON.stringify(v.segments))),
    ...rules.map((v) => ({ ...v, atKey: false })),
  ];
  // Array.prototype.sort is stable: problems at one place keep the order they were found in.
  found.sort((a, b) => compareInDocumentOrder(value, a.segments, b.segments));
  return found.map(({ segments, message, atKey }): BrokerConfigProblem => {
    const problem: BrokerConfigProblem = { path: formatPath(segments), message };
    if (file === undefined) return problem;
    problem.file = file;
    const position = locate?.(segments, atKey);
    if (position !== undefined) {
      problem.line = position.line;
      problem.column = position.column;
    }
    return problem;
  });
}

/**
 * Checks a broker configuration document against the published JSON Schema and the rules it cannot
 * state (event path form, unique access key names, unique sibling workspace names).
 *
 * @param doc The parsed document (an object, as from `JSON.parse` or a YAML parser).
 * @param source The text `doc` was parsed from, with its file name: problems then name
 *   `file:line:column`. Without it, problems name only the path, such as `accessKeys[2].type`.
 * @returns Every problem found, in document order; empty when the document is valid.
 *
 * @example
 * ```ts
 * expect(validateBrokerConfig({ version: 1, accessKeys: [{ name: "a", type: "ADMIN" }] })).toEqual([
 *   { path: "accessKeys[0].type", message: 'must be one of "ACCOUNT", "SERVICE"' },
 * ]);
 * ```
 */
export function validateBrokerConfig(doc: unknown, source?: BrokerConfigSource): BrokerConfigProblem[] {
  if (source === undefined) return problemsOf(doc);
  const parsed = parseSource(source);
  return problemsOf(doc, source.file, parsed.locate);
}
