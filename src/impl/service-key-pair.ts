/**
 * The dynamic provider of {@link "../resources/service-key-pair".ServiceKeyPair | ServiceKeyPair}:
 * what the shim `pulumi-broker-config/providers/service-key-pair` requires at run time. It decodes the
 * engine's property bags, calls the core (`src/core/service-key-pair.ts`) and maps its results to
 * `dynamic.*` results.
 *
 * The subpath `pulumi-broker-config/impl/service-key-pair` and these function names are a contract
 * with the shims stored in existing stacks: never rename or remove them.
 * @packageDocumentation
 */
import { serviceKeyPairOperations } from "../core/service-key-pair";
import { dynamicOperations } from "./dynamic-provider";

export { configure } from "./connection";
export type { ServiceKeyPairInputs, ServiceKeyPairOutputs } from "../core/service-key-pair";

const provider = dynamicOperations(serviceKeyPairOperations);

/** Validates inputs. Makes no request (the key's type is verified by `create`). */
export const check = provider.check;

/** Another key (or endpoint) replaces the pair resource; changed `rotationTriggers` rotate it in place. */
export const diff = provider.diff;

/** Verifies the key is a SERVICE key and replaces its pair, recording the new one. */
export const create = provider.create;

/** Refresh: there is no way to read a pair, so this checks that its key still exists. */
export const read = provider.read;

/** Changed `rotationTriggers` rotate the pair. */
export const update = provider.update;

/** Key pairs cannot be deleted: the current pair stays with its key. */
const delete_ = provider.delete;
export { delete_ as delete };
