import type { Permissions } from "../client/types";

/** Permissions as a user may write them: every field optional. */
export interface PermissionsInput {
  send?: readonly string[] | undefined;
  receive?: readonly string[] | undefined;
  resources?: Record<string, unknown> | undefined;
}

/** No permissions at all: what a revoked key holds. */
export function emptyPermissions(): Permissions {
  return { send: [], receive: [], resources: {} };
}

/**
 * The canonical form of a permissions value: path lists sorted and without duplicates (the API
 * treats them as sets, so order and repeats carry no meaning), `resources` always an object.
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
