/**
^ * `check` failures of the core: the rules come from the domain model (`../model`);
 * this layer only walks the inputs Pulumi hands over (values may still be unknown during preview)
 * and records each problem against the property it is about.
 */
import type { CheckFailure } from "./results";
import {
  describeValue,
  eventPathMessage,
  EVENT_PATH_HINT,
  isPlainObject,
  nameProblems,
  PERMISSION_FIELDS,
  type NameKind,
} from "../model";
import { isUnknown } from "./unknown";

export { eventPathProblem, MAX_EVENT_PATH_LENGTH, MAX_NAME_LENGTH } from "../model";
export { describeValue as describe, isPlainObject } from "../model";

/**
 * Collects check failures, each naming the property path it is about (e.g. `permissions.send[2]`),
 * so that `pulumi preview` reports every problem of a resource at once.
 */
export class CheckFailures {
  readonly list: CheckFailure[] = [];

  /** Records that `property` is invalid for `reason`. */
  add(property: string, reason: string): void {
    this.list.push({ property, reason });
  }
}

const NAME_KINDS: Record<string, NameKind> = { workspace: "workspace", "access key": "accessKey" };

/**
 * Checks a name input against the model's name rules ({@link nameProblems}): non-empty, no
 * whitespace around it, no control characters, at most 200 characters, and for a workspace no `/`.
 *
 * @param what `"Workspace"` or `"Access key"`: picks the rules and starts each message.
 */
export function checkName(failures: CheckFailures, property: string, value: unknown, what: string): void {
  if (isUnknown(value)) return;
  if (typeof value !== "string") {
    failures.add(property, `${what} name must be a string, got ${describeValue(value)}`);
    return;
  }
  const kind = NAME_KINDS[what.toLowerCase()];
  if (kind === undefined) throw new Error(`checkName: unknown kind of name ${JSON.stringify(what)}`);
  for (const problem of nameProblems(value, kind)) failures.add(property, `${what} name ${problem}`);
}

/** {@link checkName} as a check rule of `./declared.ts`, for the `name` input of `what`'s resource. */
export function nameRule(what: string): (failures: CheckFailures, property: string, value: unknown) => void {
  return (failures, property, value) => {
    checkName(failures, property, value, what);
  };
}

/** Checks a list of event paths (`permissions.send` or `permissions.receive`). */
export function checkEventPaths(failures: CheckFailures, property: string, value: unknown): void {
  if (value === undefined || isUnknown(value)) return;
  if (!Array.isArray(value)) {
    failures.add(property, `must be a list of event paths, got ${describeValue(value)}; ${EVENT_PATH_HINT}`);
    return;
  }
  for (const [index, path] of value.entries()) {
    const where = `${property}[${index}]`;
    if (isUnknown(path)) continue;
    if (typeof path !== "string") {
      failures.add(where, `must be an event path string, got ${describeValue(path)}; ${EVENT_PATH_HINT}`);
      continue;
    }
    const message = eventPathMessage(path);
    if (message !== undefined) failures.add(where, message);
  }
}

/** Checks a permissions input: `send`, `receive` lists and a plain `resources` object. */
export function checkPermissions(failures: CheckFailures, property: string, value: unknown): void {
  if (value === undefined || isUnknown(value)) return;
  if (!isPlainObject(value)) {
    failures.add(
      property,
      `must be an object with 'send', 'receive' and 'resources', got ${describeValue(value)}`,
    );
    return;
  }
  for (const key of Object.keys(value)) {
    if (!(PERMISSION_FIELDS as readonly string[]).includes(key))
      failures.add(`${property}.${key}`, "is not a permission field; use 'send', 'receive' or 'resources'");
  }
  checkEventPaths(failures, `${property}.send`, value["send"]);
  checkEventPaths(failures, `${property}.receive`, value["receive"]);
  const resources = value["resources"];
  if (resources !== undefined && !isUnknown(resources) && !isPlainObject(resources)) {
    failures.add(
      `${property}.resources`,
      `must be a plain object (e.g. {}), got ${describeValue(resources)}`,
    );
  }
}

/** Checks an optional boolean input. */
export function checkOptionalBoolean(failures: CheckFailures, property: string, value: unknown): void {
  if (value === undefined || isUnknown(value) || typeof value === "boolean") return;
  failures.add(property, `must be true or false, got ${describeValue(value)}`);
}
