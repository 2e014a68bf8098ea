/**
 * The provider the Pulumi engine calls for {@link "../resources/workspace".Workspace | Workspace} resources, made by
 * {@link "./shim".providerShim}: what `pulumi.dynamic.Resource` serializes into the state as
 * `require("pulumi-broker-config/providers/workspace")`. A contract with existing stacks: never rename
 * this subpath or its functions.
 * @packageDocumentation
 */
import { providerShim } from "./shim";

/** The functions the engine calls: each requires `pulumi-broker-config/impl/workspace` when called. */
export const { configure, check, diff, create, read, update, delete_ } = providerShim("workspace");
export { delete_ as delete };
