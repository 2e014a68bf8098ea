/**
 * Where a workspace sits in the tree: its parent and the path the API derives from the names.
 */

/** The `parentId` of a top-level workspace, and what an absent `parentId` means. @default 0 */
export const TOP_LEVEL_PARENT_ID = 0;

/** True when `value` can be a `parentId`: a non-negative safe integer (0 for top level). */
export function isParentId(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/**
 * The path the API gives a workspace named `name` under the workspace at `parentPath`
 * (`"/"` for top level): `/team`, then `/team/orders`.
 */
export function workspacePath(parentPath: string, name: string): string {
  return parentPath === "/" ? `/${name}` : `${parentPath}/${name}`;
}
