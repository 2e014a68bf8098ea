/**
 * The event path grammar: the paths an access key may send to or receive from, such as
 * `orders/created`, or `orders/*` for every path under `orders`.
 *
 * The API shows only the `<name>/*` form; the rest is the contract's choice (`openapi.yaml`
 * `EventPath`): `/`-separated non-empty segments without whitespace or control characters, `*` only
 * as the whole last segment after at least one other, at most {@link MAX_EVENT_PATH_LENGTH} characters.
 */
import { codePointLength, CONTROL_CHARACTER } from "./text";

/** Longest event path, in Unicode code points. */
export const MAX_EVENT_PATH_LENGTH = 1024;

/**
 * The grammar as one regular expression (JSON Schema / ECMAScript syntax, needs the `u` flag);
 * `openapi.yaml` and the published JSON Schema carry exactly this pattern. The length limit is separate.
 */
export const EVENT_PATH_PATTERN =
  "^[^\\s/*\\x00-\\x1f\\x7f-\\x9f]+(?:/[^\\s/*\\x00-\\x1f\\x7f-\\x9f]+)*(?:/\\*)?$";

/** What a valid event path looks like, appended to every event path problem. */
export const EVENT_PATH_HINT =
  "use '/'-separated segments such as 'orders/created', with '*' only as the last segment ('orders/*')";

// A segment is any run of characters other than "/", "*", whitespace and control characters; "*"
// is allowed only as a whole final segment (`orders/*`), so "or*ders" or "*/x" are rejected.
const SEGMENT = /^[^\s/*\p{Cc}]+$/u;

/**
 * Why `path` is not a valid event path (a phrase such as `"contains whitespace"`), or `undefined`
 * when it is valid.
 *
 * @example
 * ```ts
 * eventPathProblem("orders/*"); // undefined
 * eventPathProblem("*");        // "is a bare '*' wildcard; wildcards need a prefix such as 'orders/*'"
 * ```
 */
export function eventPathProblem(path: string): string | undefined {
  if (path.length === 0) return "is empty";
  if (codePointLength(path) > MAX_EVENT_PATH_LENGTH)
    return `is longer than ${MAX_EVENT_PATH_LENGTH} characters`;
  if (/\s/u.test(path)) return "contains whitespace";
  if (CONTROL_CHARACTER.test(path)) return "contains a control character";
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

/**
 * The full sentence for an invalid event path (`event path "a b" contains whitespace; use …`), or
 * `undefined` when `path` is valid: the one wording every door of the package reports.
 */
export function eventPathMessage(path: string): string | undefined {
  const problem = eventPathProblem(path);
  return problem === undefined
    ? undefined
    : `event path ${JSON.stringify(path)} ${problem}; ${EVENT_PATH_HINT}`;
}

/**
 * How much of the event tree a permission's path covers:
 * - `"all"`: `*`, every event path (the grammar refuses it, but a policy must still name it);
 * - `"top-level"`: a wildcard directly under the root, such as `orders/*`;
 * - `"nested"`: a wildcard deeper down, such as `orders/eu/*`;
 * - `"exact"`: one event path, such as `orders/created`.
 *
 * @example
 * ```ts
 * eventPathScope("orders/*");       // "top-level"
 * eventPathScope("orders/created"); // "exact"
 * ```
 */
export type EventPathScope = "all" | "top-level" | "nested" | "exact";

/** The {@link EventPathScope} of `path`, read with the grammar's segments (`/`, `*` last). */
export function eventPathScope(path: string): EventPathScope {
  const segments = path.split("/");
  if (segments[segments.length - 1] !== "*") return "exact";
  // `*` alone, or a wildcard whose prefix names nothing (`/*`), covers every path.
  const prefix = segments.slice(0, -1).filter((segment) => segment !== "");
  if (prefix.length === 0) return "all";
  return prefix.length === 1 ? "top-level" : "nested";
}
