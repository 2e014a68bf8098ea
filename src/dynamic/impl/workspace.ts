/**
 * The dynamic provider of {@link "../resources/workspace".Workspace | Workspace}: what the shim
 * `pulumi-broker-config/providers/workspace` requires at run time. It decodes the engine's property
 * bags, calls the core (`src/core/workspace.ts`) and maps its results to `dynamic.*` results.
 *
 * The subpath `pulumi-broker-config/impl/workspace` and these function names are a contract with the
 * shims stored in existing stacks: never rename or remove them.
 * @packageDocumentation
 */
import { workspaceOperations } from "../../core/workspace";
import { dynamicOperations } from "./dynamic-provider";

export { configure } from "./configured-client";
export type { WorkspaceInputs, WorkspaceOutputs } from "../../core/workspace";

/**
 * What the engine calls, through the shim: check, diff, create, read (refresh), update and delete
 * of the core's operations (see {@link "./dynamic-provider".DynamicOperations} and `src/core/workspace.ts` for what each does).
 */
export const { check, diff, create, read, update, delete: delete_ } = dynamicOperations(workspaceOperations);
export { delete_ as delete };
