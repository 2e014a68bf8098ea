/** Rebuilds the workspace tree from the flat list the API pages through, in a deterministic order. */
import type { WorkspaceRecord } from "../client/types";
import type { WorkspaceSpec } from "../config-as-data/types";
import { TOP_LEVEL_PARENT_ID } from "../model";

/** The tree, and what could not be placed in it. */
export interface WorkspaceTree {
  /** Top-level workspaces; siblings sorted by name. */
  roots: WorkspaceSpec[];
  /** One sentence per workspace left out (its parent was not listed), for warnings. */
  orphans: string[];
}

/** Code-point order, not locale order: the same on every machine. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Nests `records` under their `parentId`s. A record listed twice (paging while the list changes) counts
 * once. A workspace whose parent is not in the list is left out and reported: placing it at the top
 * would change what the document means.
 */
export function buildWorkspaceTree(records: Iterable<WorkspaceRecord>): WorkspaceTree {
  const byId = new Map<number, WorkspaceRecord>();
  for (const record of records) byId.set(record.id, record);
  const childrenOf = new Map<number, WorkspaceRecord[]>();
  for (const record of byId.values()) {
    const siblings = childrenOf.get(record.parentId) ?? [];
    siblings.push(record);
    childrenOf.set(record.parentId, siblings);
  }
  const placed = new Set<number>();
  const build = (parentId: number): WorkspaceSpec[] =>
    (childrenOf.get(parentId) ?? []).map((record) => {
      placed.add(record.id);
      const children = build(record.id);
      return children.length > 0 ? { name: record.name, children } : { name: record.name };
    });
  const roots = sortTree(build(TOP_LEVEL_PARENT_ID));
  const orphans = [...byId.values()]
    .filter((record) => !placed.has(record.id))
    .sort((a, b) => compareText(a.path, b.path))
    .map(
      (record) =>
        `workspace ${record.path} (id ${record.id}) was left out: its parent ${record.parentId} was not listed (created or removed during the export?)`,
    );
  return { roots, orphans };
}

/**
 * Sorts siblings by name, recursively. Duplicate sibling names (the API allows them) are ordered by
 * their subtrees, so that equal configurations still give equal output.
 */
function sortTree(nodes: WorkspaceSpec[]): WorkspaceSpec[] {
  for (const node of nodes) if (node.children !== undefined) node.children = sortTree(node.children);
  return nodes.sort(
    (a, b) => compareText(a.name, b.name) || compareText(JSON.stringify(a), JSON.stringify(b)),
  );
}
