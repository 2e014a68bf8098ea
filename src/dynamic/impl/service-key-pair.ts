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
import { serviceKeyPairOperations } from "../../core/service-key-pair";
import { dynamicOperations } from "./dynamic-provider";

export { configure } from "./configured-client";
export type { ServiceKeyPairInputs, ServiceKeyPairOutputs } from "../../core/service-key-pair";

/**
 * What the engine calls, through the shim: check, diff, create, read (refresh), update and delete
 * of the core's operations (see {@link "./dynamic-provider".DynamicOperations} and `src/core/service-key-pair.ts` for what each does).
 */
export const {
  check,
  diff,
  create,
  read,
  update,
  delete: delete_,
} = dynamicOperations(serviceKeyPairOperations);
export { delete_ as delete };
