/**
 * Workspace paths as users write them to look a workspace up: `/platform`, `/platform/orders`.
 *
 * The API derives a workspace's path by joining the names from the top of the tree with `/`
 * (see {@link workspacePath}), so a path is valid when it starts with `/` and each segment is a
 * name the API accepts for a workspace. Only what the API itself rejects is rejected here: a
 * look-up must be able to find any workspace the API can hold, also one made by other tools.
 */
import { apiNameProblems } from "./names";

/** What a valid workspace path looks like, appended to every path problem. */
export const WORKSPACE_PATH_HINT =
  "write it as '/'-separated workspace names from the top of the tree, such as '/platform' or '/platform/orders'";

/**
 * Why `path` is not a workspace path (a phrase to follow "path …", ending with what a valid one
 * looks like), or `undefined` when it is one.
 *
 * @example
 * ```ts
 * workspacePathProblem("/platform/orders"); // undefined
 * workspacePathProblem("platform");         // "must start with '/': write it as …"
 * ```
 */
export function workspacePathProblem(path: string): string | undefined {
  const problem = pathProblem(path);
  return problem === undefined ? undefined : `${problem}: ${WORKSPACE_PATH_HINT}`;
}

function pathProblem(path: string): string | undefined {
  if (path.length === 0) return "must not be empty";
  if (!path.startsWith("/")) return "must start with '/'";
  if (path === "/") return "names no workspace ('/' is the top of the tree, not a workspace)";
  if (path.endsWith("/")) return "must not end with '/'";
  const segments = path.slice(1).split("/");
  const empty = segments.findIndex((segment) => segment === "");
  if (empty !== -1) return `has an empty name at segment ${empty + 1} ('//')`;
  for (const [index, segment] of segments.entries()) {
    const problems = apiNameProblems(segment, "workspace");
    if (problems.length > 0)
      return `has an invalid name at segment ${index + 1}: ${JSON.stringify(segment)} ${problems.join(", ")}`;
  }
  return undefined;
}

/**
 * The names along a valid workspace path, from the top: `/platform/orders` → `["platform", "orders"]`.
 * @throws Error with {@link workspacePathProblem}'s message when `path` is not a workspace path.
 */
export function workspacePathNames(path: string): string[] {
  const problem = workspacePathProblem(path);
  if (problem !== undefined) throw new Error(`Workspace path ${JSON.stringify(path)} ${problem}`);
  return path.slice(1).split("/");
}
