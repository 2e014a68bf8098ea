/** The error thrown for a document that cannot be used, listing every problem at once. */
import { BrokerError, branded } from "../client/errors";
import type { BrokerConfigProblem } from "./types";

/**
 * A problem as one line: `broker.yaml:14:9 accessKeys[1].type: must be one of "ACCOUNT", "SERVICE"`
 * for a file, `accessKeys[1].type: must be …` for an object.
 */
export function formatProblem(problem: BrokerConfigProblem): string {
  let where = "";
  if (problem.file !== undefined) {
    where = problem.file;
    if (problem.line !== undefined) where += `:${problem.line}:${problem.column ?? 1}`;
    where += " ";
  }
  const path = problem.path === "" ? "(document)" : problem.path;
  return `${where}${path}: ${problem.message}`;
}

/**
 * An invalid broker configuration document (code `BROKER_CONFIG_INVALID`). The message lists every
 * problem, one per line; {@link problems} holds them as data.
 */
export class BrokerConfigDocumentError extends BrokerError {
  /** Every problem found, in document order. */
  readonly problems: readonly BrokerConfigProblem[];

  /**
   * @param problems What is wrong (at least one).
   * @param file The file the document came from, if any: named in the first line of the message.
   */
  constructor(problems: readonly BrokerConfigProblem[], file?: string) {
    const count = problems.length === 1 ? "1 problem" : `${problems.length} problems`;
    const what = file === undefined ? "Invalid broker configuration" : `Invalid broker configuration ${file}`;
    super(
      "BROKER_CONFIG_INVALID",
      `${what} (${count}):\n${problems.map((p) => `  ${formatProblem(p)}`).join("\n")}`,
    );
    this.name = "BrokerConfigDocumentError";
    this.problems = problems;
  }
}

/** Whether `e` is a {@link BrokerConfigDocumentError} from any copy of this package. */
export const isBrokerConfigDocumentError = branded(BrokerConfigDocumentError, "BrokerConfigDocumentError");
