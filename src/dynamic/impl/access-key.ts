/**
 * The dynamic provider of {@link "../resources/access-key".AccessKey | AccessKey}: what the shim
 * `pulumi-broker-config/providers/access-key` requires at run time. It decodes the engine's property
 * bags, calls the core (`src/core/access-key.ts`) and maps its results to `dynamic.*` results.
 *
 * The subpath `pulumi-broker-config/impl/access-key` and these function names are a contract with the
 * shims stored in existing stacks: never rename or remove them.
 * @packageDocumentation
 */
import { accessKeyOperations } from "../../core/access-key";
import { dynamicOperations } from "./dynamic-provider";

export { configure } from "./configured-client";
export { ON_DELETE_VALUES } from "../../core/access-key";
export type { AccessKeyInputs, AccessKeyOutputs, OnDelete } from "../../core/access-key";

/**
 * What the engine calls, through the shim: check, diff, create, read (refresh), update and delete
 * of the core's operations (see {@link "./dynamic-provider".DynamicOperations} and `src/core/access-key.ts` for what each does).
 */
export const { check, diff, create, read, update, delete: delete_ } = dynamicOperations(accessKeyOperations);
export { delete_ as delete };
