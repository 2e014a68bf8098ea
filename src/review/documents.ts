/**
 * Configuration documents as the access review's input: two documents (`--from old.yaml --to
 * new.yaml`), or the live broker exported as one (`--from-broker`) against a document.
 *
 * The keys are matched by name, as the `Environment` and `BrokerConfig` components match them (their
 * children are named after the key): a key only in `from` is removed (revoked, or kept with
 * `onDelete: retain`), a key only in `to` is created, a key whose type changes is replaced (a type
 * change replaces a key), any other key is updated. So two documents give the review the preview of
 * the component going from one to the other gives.
 *
 * Against the live broker nothing is removed: applying a document (the components, with `adopt`)
 * manages the keys it names and leaves every other key of the broker as it is.
 */
import { BrokerConfigDocumentError, isBrokerConfigDocumentError, parseBrokerConfig } from "../config-as-data";
import type { AccessKeySpec, BrokerConfigDocument } from "../config-as-data";
import { DEFAULT_ON_DELETE, normalizePermissions } from "../model";
import type { KeyTransition } from "./analyze";
import { ReviewInputError } from "./errors";
import type { KeyAccess } from "./report";

/**
 * Parses a configuration document's text for the review.
 *
 * @param file The name its problems are reported under (the file it was read from).
 * @throws ReviewInputError with the document's first problem, in one line.
 */
export function readDocument(file: string, text: string): BrokerConfigDocument {
  try {
    return parseBrokerConfig({ file, text });
  } catch (error) {
    if (!isBrokerConfigDocumentError(error)) throw error;
    throw new ReviewInputError(documentProblemMessage(file, error));
  }
}

/** `new.yaml is not a valid configuration document: new.yaml:3:5 accessKeys[0].type: … (and 2 more)`. */
function documentProblemMessage(file: string, error: BrokerConfigDocumentError): string {
  const first = error.problems[0];
  const firstLine = first === undefined ? "" : formatFirst(first);
  const more = error.problems.length > 1 ? ` (and ${error.problems.length - 1} more)` : "";
  return `${file} is not a valid configuration document (the \`broker-config export\` format): ${firstLine}${more}`;
}

function formatFirst(problem: BrokerConfigDocumentError["problems"][number]): string {
  const where =
    problem.file === undefined
      ? ""
      : `${problem.file}${problem.line === undefined ? "" : `:${problem.line}:${problem.column ?? 1}`} `;
  return `${where}${problem.path === "" ? "(document)" : problem.path}: ${problem.message}`.replace(
    /\s+/gu,
    " ",
  );
}

/** A document key's access, as the broker will hold it (lists as sets). */
function accessOf(key: AccessKeySpec): KeyAccess {
  const permissions = normalizePermissions(key.permissions);
  return { type: key.type, send: permissions.send, receive: permissions.receive };
}

/** The keys of a document by name, with the place each is declared. */
function keysByName(document: BrokerConfigDocument): Map<string, { key: AccessKeySpec; source: string }> {
  return new Map(
    (document.accessKeys ?? []).map((key, index) => [key.name, { key, source: `accessKeys[${index}]` }]),
  );
}

/**
 * The key transitions from one document to another (or from the broker's export to a document).
 *
 * @param options.removes `false` when keys missing from `to` stay as they are (the live broker).
 */
export function documentTransitions(
  from: BrokerConfigDocument,
  to: BrokerConfigDocument,
  options: { removes: boolean; toName: string; fromName: string },
): KeyTransition[] {
  const before = keysByName(from);
  const after = keysByName(to);
  const transitions: KeyTransition[] = [];
  for (const [name, { key, source }] of after) {
    const old = before.get(name);
    const transition: KeyTransition = {
      name,
      source: `${options.toName} ${source}`,
      door: "document",
      operation: old === undefined ? "create" : old.key.type !== key.type ? "replace" : "update",
      after: accessOf(key),
    };
    if (old !== undefined) transition.before = accessOf(old.key);
    transitions.push(transition);
  }
  if (options.removes) {
    for (const [name, { key, source }] of before) {
      if (after.has(name)) continue;
      transitions.push({
        name,
        source: `${options.fromName} ${source}`,
        door: "document",
        operation: "delete",
        before: accessOf(key),
        // Two documents cannot tell a key the stack adopted (left as found when `onDelete` is not
        // given) from one it created: the review assumes created, the removal that narrows access.
        onDelete: key.onDelete ?? from.onDelete ?? DEFAULT_ON_DELETE,
      });
    }
  }
  return transitions;
}
