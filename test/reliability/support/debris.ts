/**
 * What a cycle of the interrupted-run files leaves on the broker that the next cycle must not
 * inherit (cycle-stack.ts, `settleCycle`): chosen from what the broker holds, what the stack declares
 * and what its checkpoint tracks, so that the choice is a pure function with a unit test of its own.
 */
import type { Spec } from "./spec";

/** An object on the broker as its list shows it: a key (no parent) or a workspace. */
export interface HeldObject {
  readonly id: number;
  readonly name: string;
  /** A workspace's parent (0 at the top level); absent for keys. */
  readonly parentId?: number;
}

/** The ids of the objects to remove behind the API's back. */
export interface Debris {
  keys: number[];
  workspaces: number[];
}

/**
 * The keys and workspaces among `held` that are not both declared by `declared` (by name) and
 * tracked by the stack (`tracked`: the checkpoint's ids by resource name): what a failed cycle left
 * behind (the cycle before's objects it never dropped, a key its killed run made and nobody
 * recorded, a second key of a name). An object of a declared name that the stack does not track goes
 * too: the next `up` makes it again, as it would on a broker that never saw the failed cycle.
 *
 * `held.keys` must not hold the broker's admin key (it is neither declared nor tracked, and the
 * emulator refuses to remove it). A workspace under another one to remove is left out: removing a
 * workspace removes its descendants, and a second removal would name a workspace already gone (a
 * declared, tracked workspace under one removed goes with it: the stacks here nest every workspace
 * under `platform`, which every cycle declares).
 */
export function debrisOf(
  held: { readonly keys: readonly HeldObject[]; readonly workspaces: readonly HeldObject[] },
  declared: Spec,
  tracked: {
    readonly keys: Readonly<Record<string, number>>;
    readonly workspaces: Readonly<Record<string, number>>;
  },
): Debris {
  const kept = (names: readonly { name: string }[], ids: Readonly<Record<string, number>>) => {
    const declaredNames = new Set(names.map((n) => n.name));
    return (o: HeldObject): boolean => declaredNames.has(o.name) && ids[o.name] === o.id;
  };
  const keepKey = kept(declared.keys, tracked.keys);
  const keepWorkspace = kept(declared.workspaces, tracked.workspaces);
  const removed = new Set(held.workspaces.filter((w) => !keepWorkspace(w)).map((w) => w.id));
  const parentOf = new Map(held.workspaces.map((w) => [w.id, w.parentId ?? 0]));
  const underRemoved = (id: number): boolean => {
    const seen = new Set<number>();
    for (
      let parent = parentOf.get(id) ?? 0;
      parent !== 0 && !seen.has(parent);
      parent = parentOf.get(parent) ?? 0
    ) {
      if (removed.has(parent)) return true;
      seen.add(parent);
    }
    return false;
  };
  return {
    keys: held.keys.filter((k) => !keepKey(k)).map((k) => k.id),
    workspaces: [...removed].filter((id) => !underRemoved(id)),
  };
}
