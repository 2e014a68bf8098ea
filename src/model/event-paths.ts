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

/**
 * Whether a key granted `granted` may use every event path that `path` names.
 *
 * The API describes `orders/*` as "every path under `orders`" (`openapi.yaml` `EventPath`), so a
 * wildcard covers the paths below its prefix at any depth (`orders/created`, `orders/eu/x`) and the
 * narrower wildcards there (`orders/eu/*`, itself), but **not its prefix itself**: `orders/*` does
 * not cover the event path `orders`. An exact path covers only itself. `*` (which the grammar
 * refuses, but an old state may hold) covers everything.
 *
 * @example
 * ```ts
 * eventPathCovers("orders/*", "orders/eu/*");     // true
 * eventPathCovers("orders/*", "orders");          // false
 * eventPathCovers("orders/created", "orders/*");  // false
 * ```
 */
export function eventPathCovers(granted: string, path: string): boolean {
  if (granted === path) return true;
  const scope = eventPathScope(granted);
  if (scope === "exact") return false;
  if (scope === "all") return true;
  // `orders/*` covers whatever starts with `orders/`: exact paths and wildcards below it alike.
  const prefix = granted.slice(0, -1);
  return path.startsWith(prefix) && path.length > prefix.length;
}

/**
 * The paths of `paths` that no path of `granted` covers ({@link eventPathCovers}), in their order:
 * what `paths` reaches that `granted` does not. Empty when `granted` already covers all of `paths`,
 * so `uncoveredEventPaths(before, after)` is what a change of grants from `before` to `after` adds.
 *
 * @example
 * ```ts
 * uncoveredEventPaths(["orders/created"], ["orders/*"]);           // ["orders/*"]
 * uncoveredEventPaths(["orders/*"], ["orders/created", "orders/*"]); // []
 * ```
 */
export function uncoveredEventPaths(granted: readonly string[], paths: readonly string[]): string[] {
  // Wildcards first: a path is most often covered by one, and exact grants are looked up in a set.
  const exact = new Set(granted);
  const wildcards = granted.filter((path) => eventPathScope(path) !== "exact");
  return paths.filter(
    (path) => !exact.has(path) && !wildcards.some((wildcard) => eventPathCovers(wildcard, path)),
  );
}

/**
 * Whether two grants reach exactly the same event paths, however they are spelled: `["orders/*",
 * "orders/created"]` and `["orders/*"]` do, `["orders/*"]` and `["orders/created"]` do not.
 */
export function sameEventPathCoverage(a: readonly string[], b: readonly string[]): boolean {
  return uncoveredEventPaths(a, b).length === 0 && uncoveredEventPaths(b, a).length === 0;
}
