/**
 * The dynamic provider of {@link "../resources/access-key".AccessKey | AccessKey}: what the shim
 * `pulumi-broker-config/providers/access-key` requires at run time. It decodes the engine's property
 * bags, calls the core (`src/core/access-key.ts`) and maps its results to `dynamic.*` results.
 *
 * The subpath `pulumi-broker-config/impl/access-key` and these function names are a contract with the
 * shims stored in existing stacks: never rename or remove them.
 * @packageDocumentation
 */
import { accessKeyOperations } from "../core/access-key";
import { dynamicOperations } from "./dynamic-provider";

export { configure } from "./connection";
export { ON_DELETE_VALUES } from "../core/access-key";
export type { AccessKeyInputs, AccessKeyOutputs, OnDelete } from "../core/access-key";

const provider = dynamicOperations(accessKeyOperations);

/** Validates inputs and fills defaults. Makes no request. */
export const check = provider.check;

/** A change of name, type or endpoint replaces the key (the API cannot rename a key or change its type); permissions update in place and compare as sets. */
export const diff = provider.diff;

/** Creates the key (or adopts an existing one with the same name and type) and sets its permissions. */
export const create = provider.create;

/** Refresh: reads the key's record; a key that no longer exists leaves the stack. */
export const read = provider.read;

/** Sets the new permissions (read back and verified); other in-place changes only touch the stack. */
export const update = provider.update;

/** The API cannot delete keys. With `onDelete: "revoke"` (the default) the key loses every permission; with `"retain"` it is left as it is. */
const delete_ = provider.delete;
export { delete_ as delete };
