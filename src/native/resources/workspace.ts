/** `broker:index:Workspace` in the native provider, over the core's Workspace operations. */
import { workspaceOperations } from "../../core/workspace";
import { WORKSPACE } from "../../core/declarations";
import type { ResourceAdapter } from "../resource-adapter";
import { coreAdapter } from "./core-adapter";

/**
 * The Workspace adapter. An in-place update changes only settings kept in the stack; a workspace
 * kept by a create that could not read it back gets its `path` and `createdAt` from that update.
 */
export const workspace: ResourceAdapter = coreAdapter(WORKSPACE.token, workspaceOperations, {
  recomputedByUpdate: (_diff, old) => (old.createdAt === "" ? ["path", "createdAt"] : []),
});
