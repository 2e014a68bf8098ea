/** How a permissions update combines with the stored permissions, in either mode. */
import type { Permissions, PermissionsInput, PermissionsMode } from "./types";

/** Permissions with nothing allowed. */
export function emptyPermissions(): Permissions {
  return { send: [], receive: [], resources: {} };
}

/** Fills absent fields of an input with empty values (a create, or an out-of-band replacement). */
export function completePermissions(input: PermissionsInput): Permissions {
  return { ...emptyPermissions(), ...input };
}

function union(existing: readonly string[], added: readonly string[]): string[] {
  return [...new Set([...existing, ...added])];
}

/**
 * Applies an update. "replace": each field given replaces the stored one. "merge": lists become the
 * union (stored order first, no duplicates) and resources are merged shallowly. Absent fields stay in
 * both modes.
 */
export function applyPermissionsUpdate(
  current: Permissions,
  update: PermissionsInput,
  mode: PermissionsMode,
): Permissions {
  if (mode === "replace") return { ...current, ...update };
  return {
    send: update.send === undefined ? current.send : union(current.send, update.send),
    receive: update.receive === undefined ? current.receive : union(current.receive, update.receive),
    resources:
      update.resources === undefined ? current.resources : { ...current.resources, ...update.resources },
  };
}
