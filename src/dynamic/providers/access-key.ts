/**
 * The provider the Pulumi engine calls for {@link "../resources/access-key".AccessKey | AccessKey} resources, made by
 * {@link "./shim".providerShim}: what `pulumi.dynamic.Resource` serializes into the state as
 * `require("pulumi-broker-config/providers/access-key")`. A contract with existing stacks: never rename
 * this subpath or its functions.
 * @packageDocumentation
 */
import { providerShim } from "./shim";

/** The functions the engine calls: each requires `pulumi-broker-config/impl/access-key` when called. */
export const { configure, check, diff, create, read, update, delete_ } = providerShim("access-key");
export { delete_ as delete };
