/**
 * Parses the text of a document (YAML or JSON) and maps paths back to lines and columns, so that a
 * problem found in the parsed value can name the line of the mistake in the file.
 */
import type { Node } from "yaml";
import { loadYaml } from "../on-demand";
import type { PathSegment } from "./paths";
import type { BrokerConfigProblem, BrokerConfigSource } from "./types";

/** A line and column, both 1-based. */
export interface Position {
  line: number;
  column: number;
}

/**
 * Finds where `segments` sits in the text: the value's position, or with `atKey` the position of the
 * property name (for a property that is not allowed). A path that leads nowhere (a missing property)
 * stops at the deepest node that exists.
 */
export type Locator = (segments: readonly PathSegment[], atKey?: boolean) => Position | undefined;

/** A parsed document: its value, a locator, and the syntax errors (when there are any, `data` is unusable). */
export interface ParsedSource {
  data: unknown;
  locate: Locator;
  syntaxProblems: BrokerConfigProblem[];
}

/** How many aliases (`*name`) a YAML document may expand: guards against "billion laughs" files. */
const MAX_ALIAS_COUNT = 100;

/**
 * Parses YAML or JSON text. JSON is parsed with the YAML parser too (JSON is YAML 1.2) so that both
 * get positions; a `.json` file is also checked with `JSON.parse`, so YAML-only syntax in it is an error.
 */
export function parseSource(source: BrokerConfigSource): ParsedSource {
  const { LineCounter, parseDocument } = loadYaml();
  const lineCounter = new LineCounter();
  // prettyErrors off: messages stay one line; positions come from the line counter instead.
  const doc = parseDocument(source.text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const position = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const syntaxProblems: BrokerConfigProblem[] = doc.errors.map((error) => ({
    path: "",
    message: `is not valid ${isJsonFile(source.file) ? "JSON" : "YAML"}: ${error.message}`,
    file: source.file,
    ...position(error.pos[0]),
  }));
  if (syntaxProblems.length === 0 && isJsonFile(source.file)) {
    const problem = jsonSyntaxProblem(source, position);
    if (problem !== undefined) syntaxProblems.push(problem);
  }
  const locate: Locator = (segments, atKey = false) => {
    const offset = offsetOf(doc.contents, segments, atKey);
    return offset === undefined ? undefined : position(offset);
  };
  const data: unknown =
    syntaxProblems.length === 0 ? doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) : undefined;
  return { data, locate, syntaxProblems };
}

function isJsonFile(file: string): boolean {
  return file.toLowerCase().endsWith(".json");
}

function jsonSyntaxProblem(
  source: BrokerConfigSource,
  position: (offset: number) => Position,
): BrokerConfigProblem | undefined {
  const message = jsonParseError(source.text);
  if (message === undefined) return undefined;
  // V8 names the offset ("… in JSON at position 42 (line 3 column 5)") for most errors, but not for
  // "Unexpected token 'x', "<snippet>" is not valid JSON": find that one by bisection (see below).
  const named = /position (\d+)/u.exec(message)?.[1];
  const offset = named === undefined ? unexpectedTokenOffset(source.text) : Number(named);
  const reason = message
    .replace(/\s*(?:in JSON )?at position \d+.*$/su, "")
    .replace(/, (?:\.\.\.)?".*$/su, "");
  return {
    path: "",
    message: `is not valid JSON: ${reason}`,
    file: source.file,
    ...(offset === undefined ? {} : position(offset)),
  };
}

function jsonParseError(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * The offset of the first character `JSON.parse` rejects as an unexpected token. The parser reads
 * left to right, so a prefix that stops before that character fails only for ending early, and every
 * longer prefix fails with "Unexpected token": the predicate is monotonic, so bisection finds it.
 */
function unexpectedTokenOffset(text: string): number | undefined {
  const unexpected = (length: number): boolean =>
    jsonParseError(text.slice(0, length))?.startsWith("Unexpected token") ?? false;
  if (!unexpected(text.length)) return undefined;
  let low = 0; // never unexpected
  let high = text.length; // unexpected
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (unexpected(middle)) high = middle;
    else low = middle;
  }
  return high - 1;
}

/** The text offset of the node at `segments`, or of the deepest existing node on the way. */
function offsetOf(root: Node | null, segments: readonly PathSegment[], atKey: boolean): number | undefined {
  const { isMap, isPair, isScalar, isSeq } = loadYaml();
  let node: Node | null = root;
  let offset = node?.range?.[0];
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1;
    if (isMap(node)) {
      const pair = node.items.find(
        (item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment),
      );
      if (pair === undefined) return offset;
      const key = pair.key as Node;
      if (last && atKey) return key.range?.[0] ?? offset;
      const value = pair.value as Node | null;
      // `type:` with nothing after it has no value node: point at the key.
      node = value ?? key;
    } else if (isSeq(node) && typeof segment === "number") {
      const item = node.items[segment] as Node | undefined;
      if (item === undefined) return offset;
      node = item;
    } else {
      return offset;
    }
    offset = node.range?.[0] ?? offset;
  }
  return offset;
}
