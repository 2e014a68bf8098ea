/** Loading a document from a YAML or JSON file, or taking one given as an object: validated either way. */
import * as fs from "node:fs";
import { BrokerConfigDocumentError } from "./errors";
import { parseSource } from "./source";
import type { BrokerConfigDocument, BrokerConfigSource } from "./types";
import { problemsOf } from "./validate";

/**
 * Loads and validates a broker configuration document.
 *
 * @param pathOrObject A path to a YAML (`.yaml`, `.yml`) or JSON (`.json`) file, relative to the
 *   working directory (a Pulumi program's is its project directory), or the document as an object.
 *   Files with another extension are read as YAML (which includes JSON).
 * @returns The document, unchanged: defaults are applied later, by {@link planBrokerConfig}.
 * @throws BrokerConfigDocumentError listing every problem: `broker.yaml:14:9 accessKeys[1].type: …`
 *   for a file, `accessKeys[1].type: …` for an object; also when the file cannot be read.
 *
 * @example
 * ```ts
 * const doc = loadBrokerConfig("broker.yaml");
 * ```
 */
export function loadBrokerConfig(pathOrObject: string | BrokerConfigDocument): BrokerConfigDocument {
  if (typeof pathOrObject !== "string") {
    const problems = problemsOf(pathOrObject);
    if (problems.length > 0) throw new BrokerConfigDocumentError(problems);
    return pathOrObject;
  }
  const file = pathOrObject;
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : String(error);
    throw new BrokerConfigDocumentError([{ path: "", message: `cannot be read: ${reason}`, file }], file);
  }
  return parseBrokerConfig({ file, text });
}

/**
 * Parses and validates a broker configuration document given as text, such as the `document` of the
 * native `Environment` component (which has no file to read: the program passes the text).
 *
 * @param source The text (YAML or JSON) and the name its problems are reported under: a name ending in
 *   `.json` is also held to JSON's stricter syntax.
 * @returns The document, unchanged: defaults are applied later, by {@link planBrokerConfig}.
 * @throws BrokerConfigDocumentError listing every problem, each as `<file>:line:column path: message`.
 */
export function parseBrokerConfig(source: BrokerConfigSource): BrokerConfigDocument {
  const parsed = parseSource(source);
  if (parsed.syntaxProblems.length > 0)
    throw new BrokerConfigDocumentError(parsed.syntaxProblems, source.file);
  const problems = problemsOf(parsed.data, source.file, parsed.locate);
  if (problems.length > 0) throw new BrokerConfigDocumentError(problems, source.file);
  return parsed.data as BrokerConfigDocument;
}

/**
 * One of the two inputs a component takes its document from, with the words that describe it in
 * the error when the component is given neither or both.
 */
export interface DocumentInput<Name extends string, T> {
  /** The input's name, such as `file`. */
  readonly name: Name;
  /** What the input holds, such as `a YAML or JSON file`. */
  readonly description: string;
  /** What the program gave, `undefined` when it left the input out. */
  readonly value: T | undefined;
}

/** The input a component was given its document in: its name and its value. */
export interface GivenInput<Name extends string, T> {
  /** The input's name, telling which of the two was given. */
  readonly name: Name;
  /** What the program gave in it (never `undefined`). */
  readonly value: T;
}

/**
 * The rule both components that read a document (the dynamic `BrokerConfig`, the native
 * `Environment`) hold their inputs to: the document comes from exactly one of two inputs.
 *
 * @param component The component's type name, such as `BrokerConfig`: the subject of the message.
 * @param first The first alternative, named first in the message.
 * @param second The second alternative.
 * @returns The alternative that was given, as a union tagged by `name`.
 * @throws BrokerConfigDocumentError when neither or both are given:
 *   ``BrokerConfig needs exactly one of `file` (a YAML or JSON file) and `config` (an object), got both``.
 *
 * @example
 * ```ts
 * const given = documentInput(
 *   "BrokerConfig",
 *   { name: "file", description: "a YAML or JSON file", value: args.file },
 *   { name: "config", description: "an object", value: args.config },
 * );
 * ```
 */
export function documentInput<A extends string, TA, B extends string, TB>(
  component: string,
  first: DocumentInput<A, TA>,
  second: DocumentInput<B, TB>,
): GivenInput<A, TA> | GivenInput<B, TB> {
  if (first.value !== undefined && second.value === undefined)
    return { name: first.name, value: first.value };
  if (second.value !== undefined && first.value === undefined)
    return { name: second.name, value: second.value };
  const got = first.value === undefined ? "neither" : "both";
  throw new BrokerConfigDocumentError([
    {
      path: "",
      message: `${component} needs exactly one of \`${first.name}\` (${first.description}) and \`${second.name}\` (${second.description}), got ${got}`,
    },
  ]);
}
