import type { CheckFailure } from "@pulumi/pulumi/dynamic";
import { ACCESS_KEY_TYPES } from "../client/types";
import { isUnknown } from "./unknown";

/** Longest name we accept for a workspace or an access key. The API states no limit; 200 keeps names readable. */
export const MAX_NAME_LENGTH = 200;

/** Longest event path we accept. */
export const MAX_EVENT_PATH_LENGTH = 1024;

// A segment is any run of characters other than "/" and whitespace; "*" is allowed only as a whole
// final segment (`orders/*`), so "or*ders" or "*/x" are rejected.
const SEGMENT = /^[^\s/*]+$/u;
// Control characters (C0, DEL and C1) have no place in a name shown in dashboards and logs.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/u;

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

/** Why `path` is not a valid event path, or `undefined` when it is. */
export function eventPathProblem(path: string): string | undefined {
  if (path.length === 0) return "is empty";
  if (path.length > MAX_EVENT_PATH_LENGTH) return `is longer than ${MAX_EVENT_PATH_LENGTH} characters`;
  if (/\s/u.test(path)) return "contains whitespace";
  const segments = path.split("/");
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1;
    if (segment === "") return "has an empty segment (a leading, trailing or doubled '/')";
    if (segment === "*") {
      if (!last) return "has a '*' wildcard before the last segment";
      if (index === 0) return "is a bare '*' wildcard; wildcards need a prefix such as 'orders/*'";
      continue;
    }
    if (!SEGMENT.test(segment))
      return `has an invalid segment '${segment}': '*' may only stand alone as the last segment`;
  }
  return undefined;
}

const EVENT_PATH_HINT =
  "use '/'-separated segments such as 'orders/created', with '*' only as the last segment ('orders/*')";

/** Checks a name input: non-empty, trimmed, no control characters, at most {@link MAX_NAME_LENGTH}. */
export function checkName(failures: CheckFailures, property: string, value: unknown, what: string): void {
  if (isUnknown(value)) return;
  if (typeof value !== "string") {
    failures.add(property, `${what} name must be a string, got ${describe(value)}`);
    return;
  }
  if (value.length === 0) failures.add(property, `${what} name must not be empty`);
  else if (value.trim() !== value)
    failures.add(property, `${what} name must not start or end with whitespace: ${JSON.stringify(value)}`);
  if (CONTROL_CHARACTERS.test(value))
    failures.add(property, `${what} name must not contain control characters`);
  if (value.length > MAX_NAME_LENGTH)
    failures.add(
      property,
      `${what} name is ${value.length} characters long; the maximum is ${MAX_NAME_LENGTH}`,
    );
}

/** Checks an access key type input against the API's enum. */
export function checkAccessKeyType(failures: CheckFailures, property: string, value: unknown): void {
  if (isUnknown(value)) return;
  if (typeof value !== "string" || !(ACCESS_KEY_TYPES as readonly string[]).includes(value)) {
    failures.add(
      property,
      `type must be one of ${ACCESS_KEY_TYPES.map((t) => `"${t}"`).join(", ")}, got ${describe(value)}`,
    );
  }
}

/** Checks a list of event paths (`permissions.send` or `permissions.receive`). */
export function checkEventPaths(failures: CheckFailures, property: string, value: unknown): void {
  if (value === undefined || isUnknown(value)) return;
  if (!Array.isArray(value)) {
    failures.add(property, `must be a list of event paths, got ${describe(value)}; ${EVENT_PATH_HINT}`);
    return;
  }
  for (const [index, path] of value.entries()) {
    const where = `${property}[${index}]`;
    if (isUnknown(path)) continue;
    if (typeof path !== "string") {
      failures.add(where, `must be an event path string, got ${describe(path)}; ${EVENT_PATH_HINT}`);
      continue;
    }
    const problem = eventPathProblem(path);
    if (problem !== undefined)
      failures.add(where, `event path ${JSON.stringify(path)} ${problem}; ${EVENT_PATH_HINT}`);
  }
}

/** Checks a permissions input: `send`, `receive` lists and a plain `resources` object. */
export function checkPermissions(failures: CheckFailures, property: string, value: unknown): void {
  if (value === undefined || isUnknown(value)) return;
  if (!isPlainObject(value)) {
    failures.add(
      property,
      `must be an object with 'send', 'receive' and 'resources', got ${describe(value)}`,
    );
    return;
  }
  for (const key of Object.keys(value)) {
    if (!["send", "receive", "resources"].includes(key))
      failures.add(`${property}.${key}`, "is not a permission field; use 'send', 'receive' or 'resources'");
  }
  checkEventPaths(failures, `${property}.send`, value["send"]);
  checkEventPaths(failures, `${property}.receive`, value["receive"]);
  const resources = value["resources"];
  if (resources !== undefined && !isUnknown(resources) && !isPlainObject(resources)) {
    failures.add(`${property}.resources`, `must be a plain object (e.g. {}), got ${describe(resources)}`);
  }
}

/** Checks an optional boolean input. */
export function checkOptionalBoolean(failures: CheckFailures, property: string, value: unknown): void {
  if (value === undefined || isUnknown(value) || typeof value === "boolean") return;
  failures.add(property, `must be true or false, got ${describe(value)}`);
}

/** Checks an optional input that must be one of `allowed`. */
export function checkOptionalEnum(
  failures: CheckFailures,
  property: string,
  value: unknown,
  allowed: readonly string[],
): void {
  if (value === undefined || isUnknown(value)) return;
  if (typeof value !== "string" || !allowed.includes(value))
    failures.add(
      property,
      `must be one of ${allowed.map((a) => `"${a}"`).join(", ")}, got ${describe(value)}`,
    );
}

/** True for `{...}` objects (not arrays, not null, not class instances). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** A short description of a value for error messages; never prints long strings in full. */
export function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string")
    return value.length > 60 ? `a ${value.length}-character string` : JSON.stringify(value);
  if (typeof value === "object") return "an object";
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return `${typeof value} ${value.toString()}`;
  return `a ${typeof value}`;
}
