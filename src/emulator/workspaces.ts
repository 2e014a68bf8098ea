/** The workspace hierarchy, computed from the flat rows the store keeps. */
import type { StoredWorkspace, WorkspaceRecord } from "./types";

/**
 * Builds a record for every workspace: `path` from the current names of its ancestors (so a rename
 * moves every descendant's path) and `children` as full records, recursively, in id order.
 */
export function buildWorkspaceRecords(rows: readonly StoredWorkspace[]): WorkspaceRecord[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const childrenOf = new Map<number, StoredWorkspace[]>();
  for (const row of [...rows].sort((a, b) => a.id - b.id)) {
    const siblings = childrenOf.get(row.parentId) ?? [];
    siblings.push(row);
    childrenOf.set(row.parentId, siblings);
  }

  const pathOf = (row: StoredWorkspace): string => {
    const names: string[] = [];
    const seen = new Set<number>();
    // The seen-set guards against a cycle the store should never hold, rather than looping forever.
    for (let current: StoredWorkspace | undefined = row; current && !seen.has(current.id);) {
      seen.add(current.id);
      names.unshift(current.name);
      current = current.parentId === 0 ? undefined : byId.get(current.parentId);
    }
    return `/${names.join("/")}`;
  };

  const toRecord = (row: StoredWorkspace, ancestors: ReadonlySet<number>): WorkspaceRecord => {
    const inside = new Set(ancestors).add(row.id);
    return {
      id: row.id,
      name: row.name,
      path: pathOf(row),
      parentId: row.parentId,
      createdAt: row.createdAt,
      children: (childrenOf.get(row.id) ?? [])
        .filter((child) => !inside.has(child.id))
        .map((child) => toRecord(child, inside)),
    };
  };

  return rows.map((row) => toRecord(row, new Set()));
}

/** The ids of a workspace and all its descendants. */
export function subtreeIds(rows: readonly StoredWorkspace[], rootId: number): number[] {
  const ids = [rootId];
  for (let index = 0; index < ids.length; index++) {
    for (const row of rows) {
      if (row.parentId === ids[index] && !ids.includes(row.id)) ids.push(row.id);
    }
  }
  return ids;
}
