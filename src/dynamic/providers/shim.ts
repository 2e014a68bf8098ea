/**
 * The one way a dynamic provider shim is made: seven functions that `require()` their resource's
 * implementation by package subpath only when the engine calls them.
 *
 * Each `providers/<resource>.ts` is the module `pulumi.dynamic.Resource` serializes into every
 * stack's state. Because its exports object is a module of a package installed under
 * `node_modules`, the serializer stores one short `require("pulumi-broker-config/providers/<resource>")`
 * instead of these functions' text (see docs/pulumi-dynamic-providers.md). Requiring the
 * implementation lazily keeps credentials and our code out of the state, and lets refresh and
 * destroy run the installed version of the package.
 *
 * The subpaths `pulumi-broker-config/providers/<resource>` and `pulumi-broker-config/impl/<resource>`,
 * and the seven function names, are a contract with existing stacks: never rename or remove them.
 * @packageDocumentation
 */
import type { dynamic, ID } from "@pulumi/pulumi";
import type { DynamicOperations } from "../impl/dynamic-provider";

/** What a module `pulumi-broker-config/impl/<resource>` exports: the core's operations and `configure`. */
export interface DynamicImplementation extends DynamicOperations {
  /** Remembers the stack configuration for later operations; makes no request. */
  readonly configure: (request: dynamic.ConfigureRequest) => Promise<void>;
}

/** The functions of a shim: the engine's names for a dynamic provider's calls. */
export interface ProviderShim extends DynamicImplementation {
  /** `delete` under a name that can be declared (`delete` is a keyword). */
  readonly delete_: DynamicOperations["delete"];
}

/**
 * The shim of the resource whose implementation is `pulumi-broker-config/impl/<resource>`.
 *
 * @param resource the implementation's file name under `impl/`, such as `access-key`.
 */
export function providerShim(resource: string): ProviderShim {
  // Resolved from the project's node_modules at call time, never captured: see the module comment.
  const implementation = (): DynamicImplementation =>
    require(`pulumi-broker-config/impl/${resource}`) as DynamicImplementation;
  const remove = (id: ID, props: Record<string, unknown>): Promise<void> =>
    implementation().delete(id, props);
  return {
    configure: (request) => implementation().configure(request),
    check: (olds, news) => implementation().check(olds, news),
    diff: (id, olds, news) => implementation().diff(id, olds, news),
    create: (inputs) => implementation().create(inputs),
    read: (id, props) => implementation().read(id, props),
    update: (id, olds, news) => implementation().update(id, olds, news),
    delete: remove,
    delete_: remove,
  };
}
