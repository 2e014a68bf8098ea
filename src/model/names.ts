/**
 * The rules for the names of workspaces and access keys.
 *
 * Two layers, kept apart on purpose so each can be compared with what states it:
 * - {@link apiNameProblems}: what the API rejects with a 400 (`openapi.yaml`, the emulator).
 * - {@link nameProblems}: those plus the package's own stricter rules (no whitespace around a name,
 *   no control characters), which the published JSON Schema of a configuration document states too.
 * Every name the package accepts is therefore one the API accepts.
 */
import { codePointLength, CONTROL_CHARACTER } from "./text";

/**
 * Longest name of a workspace or an access key, in Unicode code points.
 * The API description states no limit; the contract (`openapi.yaml`) chooses 200, which keeps names readable.
 */
export const MAX_NAME_LENGTH = 200;

/** What a name belongs to: the rules differ (only workspace names may not contain `/`). */
export type NameKind = "workspace" | "accessKey";

/**
 * Why a workspace name may not contain `/`: the API builds a workspace's path (`/team/orders`) by
 * joining names with `/`, so such a name would make the path ambiguous.
 */
export const WORKSPACE_SLASH_PROBLEM =
  "must not contain '/': the API joins workspace names with '/' to build workspace paths such as '/team/orders'; nest a workspace under another with its parent instead";

function tooLong(name: string): string | undefined {
  const length = codePointLength(name);
  return length > MAX_NAME_LENGTH
    ? `is ${length} characters long; the maximum is ${MAX_NAME_LENGTH}`
    : undefined;
}

function present(...problems: (string | false | undefined)[]): string[] {
  return problems.filter((problem): problem is string => typeof problem === "string");
}

/**
 * The problems the API itself finds with `name` (each a phrase such as `"must not be empty"`);
 * empty when the API accepts it. Prefer {@link nameProblems}, which adds the package's own rules.
 */
export function apiNameProblems(name: string, kind: NameKind): string[] {
  return present(
    name.length === 0 && "must not be empty",
    tooLong(name),
    kind === "workspace" && name.includes("/") && WORKSPACE_SLASH_PROBLEM,
  );
}

/**
 * Every problem with `name` as the name of a workspace or access key (each a phrase such as
 * `"must not be empty"`, to follow "name"); empty when the name is valid. A superset of
 * {@link apiNameProblems}.
 *
 * @example
 * ```ts
 * nameProblems("team/orders", "workspace"); // ["must not contain '/': the API joins …"]
 * nameProblems("team/orders", "accessKey"); // []
 * ```
 */
export function nameProblems(name: string, kind: NameKind): string[] {
  return present(
    name.length === 0 && "must not be empty",
    // `\s` is exactly what String.prototype.trim removes (Unicode spaces and line terminators).
    /^\s|\s$/u.test(name) && `must not start or end with whitespace: ${JSON.stringify(name)}`,
    CONTROL_CHARACTER.test(name) && "must not contain control characters",
    tooLong(name),
    kind === "workspace" && name.includes("/") && WORKSPACE_SLASH_PROBLEM,
  );
}

/**
 * How many random characters end a name chosen from a resource's logical name: Pulumi's default
 * form, `<logical name>-<7 random characters>` (lowercase hexadecimal digits).
 */
export const AUTONAME_RANDOM_LENGTH = 7;

/**
 * The name chosen for a resource the program gave no name: `logicalName`, made valid for `kind`,
 * then `-` and `random` (which {@link AUTONAME_RANDOM_LENGTH} lowercase hexadecimal digits make).
 *
 * Valid for any logical name: whitespace around it and control characters are dropped, a
 * workspace's `/` becomes `-` (a workspace name may not contain one), and the logical name is cut so
 * that the whole fits {@link MAX_NAME_LENGTH}. An empty logical name leaves the random part alone.
 *
 * @example
 * ```ts
 * autoname("orders", "workspace", "1a2b3c4"); // "orders-1a2b3c4"
 * autoname("team/orders", "workspace", "1a2b3c4"); // "team-orders-1a2b3c4"
 * ```
 */
export function autoname(logicalName: string, kind: NameKind, random: string): string {
  let prefix = logicalName.replace(new RegExp(CONTROL_CHARACTER.source, "gu"), "").trim();
  if (kind === "workspace") prefix = prefix.replaceAll("/", "-");
  const room = MAX_NAME_LENGTH - codePointLength(random) - 1;
  prefix = Array.from(prefix).slice(0, room).join("").trim();
  return prefix === "" ? random : `${prefix}-${random}`;
}
