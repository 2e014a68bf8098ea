/**
 * The dynamic provider of {@link "../resources/workspace".Workspace | Workspace}: what the shim
 * `pulumi-broker-config/providers/workspace` requires at run time. It decodes the engine's property
 * bags, calls the core (`src/core/workspace.ts`) and maps its results to `dynamic.*` results.
 *
 * The subpath `pulumi-broker-config/impl/workspace` and these function names are a contract with the
 * shims stored in existing stacks: never rename or remove them.
 * @packageDocumentation
 */
import { workspaceOperations } from "../core/workspace";
import { dynamicOperations } from "./dynamic-provider";

export { configure } from "./connection";
export type { WorkspaceInputs, WorkspaceOutputs } from "../core/workspace";

const provider = dynamicOperations(workspaceOperations);

/** Validates inputs and fills defaults. Makes no request. */
export const check = provider.check;

/** A change of name, parent or endpoint replaces the workspace; `adopt` changes nothing on the server. */
export const diff = provider.diff;

/** Creates the workspace and finds it (the API returns no id), or adopts an existing one. */
export const create = provider.create;

/** Refresh: reads the workspace by id; a workspace that no longer exists leaves the stack. */
export const read = provider.read;

/** Applies in-place changes (only settings kept in the stack), completing a workspace a create left unfinished. */
export const update = provider.update;

/** The API has no delete endpoint: the workspace is only forgotten, with a warning. */
const delete_ = provider.delete;
export { delete_ as delete };
