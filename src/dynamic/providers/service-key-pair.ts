/**
 * The provider the Pulumi engine calls for {@link "../resources/service-key-pair".ServiceKeyPair | ServiceKeyPair} resources, made by
 * {@link "./shim".providerShim}: what `pulumi.dynamic.Resource` serializes into the state as
 * `require("pulumi-broker-config/providers/service-key-pair")`. A contract with existing stacks: never rename
 * this subpath or its functions.
 * @packageDocumentation
 */
import { providerShim } from "./shim";

/** The functions the engine calls: each requires `pulumi-broker-config/impl/service-key-pair` when called. */
export const { configure, check, diff, create, read, update, delete_ } = providerShim("service-key-pair");
export { delete_ as delete };
