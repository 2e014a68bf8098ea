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
