/**
 * Permissions of an access key and their canonical form. The API treats the event path lists as
 * sets, so order and repeats carry no meaning: comparing and storing the canonical form keeps a
 * reordered list from looking like a change.
 */

/** The send/receive permissions of an access key, complete (the shape the API returns). */
export interface Permissions {
  /** Event paths the key may publish to, such as `orders/created` or `orders/*`. */
  send: string[];
  /** Event paths the key may subscribe to. */
  receive: string[];
  /** Resource-specific permissions; their content is not described by the API. */
  resources: Record<string, unknown>;
}

/** Permissions as a user may write them: every field optional. */
export interface PermissionsInput {
  send?: readonly string[] | undefined;
  receive?: readonly string[] | undefined;
  resources?: Record<string, unknown> | undefined;
}

/** The permission fields, in the order the API lists them. */
export const PERMISSION_FIELDS = ["send", "receive", "resources"] as const;

/** No permissions at all: what a revoked key holds. */
export function emptyPermissions(): Permissions {
  return { send: [], receive: [], resources: {} };
}

/**
 * The canonical form of a permissions value: path lists sorted and without duplicates, `resources`
 * always an object with its keys sorted at every depth (so equal values serialise equally).
 */
export function normalizePermissions(input: PermissionsInput | undefined): Permissions {
  return {
    send: normalizePaths(input?.send),
    receive: normalizePaths(input?.receive),
    resources: sortKeysDeep(input?.resources ?? {}) as Record<string, unknown>,
  };
}

function normalizePaths(paths: readonly string[] | undefined): string[] {
  return [...new Set(paths ?? [])].sort();
}

/** True when two permissions values grant the same thing (set semantics for the path lists). */
export function samePermissions(a: PermissionsInput | undefined, b: PermissionsInput | undefined): boolean {
  return JSON.stringify(normalizePermissions(a)) === JSON.stringify(normalizePermissions(b));
}

/** Describes how `actual` differs from `expected`, for error messages (paths only, never secrets). */
export function describePermissionDifference(expected: Permissions, actual: Permissions): string {
  const parts: string[] = [];
  for (const field of ["send", "receive"] as const) {
    const missing = expected[field].filter((p) => !actual[field].includes(p));
    const extra = actual[field].filter((p) => !expected[field].includes(p));
    if (missing.length > 0) parts.push(`${field} is missing ${missing.join(", ")}`);
    if (extra.length > 0) parts.push(`${field} also holds ${extra.join(", ")}`);
  }
  if (JSON.stringify(expected.resources) !== JSON.stringify(actual.resources)) parts.push("resources differ");
  return parts.join("; ");
}

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeysDeep((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
