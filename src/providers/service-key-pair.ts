/**
 * The provider the Pulumi engine calls for {@link "../resources/service-key-pair".ServiceKeyPair | ServiceKeyPair} resources.
 *
 * This module is what `pulumi.dynamic.Resource` serializes into every stack's state. Each function
 * only `require()`s the implementation by its package subpath when the engine calls it, so the state
 * holds one short `require("pulumi-broker-config/providers/service-key-pair")` instead of a copy of our code, no
 * credential is ever captured, and refresh or destroy run the installed version of the package.
 *
 * These names are a contract with existing stacks: never rename or remove them.
 * @packageDocumentation
 */
import type { dynamic, ID } from "@pulumi/pulumi";

type Implementation = typeof import("../impl/service-key-pair");

/** Remembers the stack configuration for later operations. */
export function configure(request: dynamic.ConfigureRequest): Promise<void> {
  return (require("pulumi-broker-config/impl/service-key-pair") as Implementation).configure(request);
}

/** Validates and normalises inputs; makes no request. */
export function check(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.CheckResult> {
  return (require("pulumi-broker-config/impl/service-key-pair") as Implementation).check(olds, news);
}

/** Compares recorded outputs with new inputs; makes no request. */
export function diff(
  id: ID,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.DiffResult> {
  return (require("pulumi-broker-config/impl/service-key-pair") as Implementation).diff(id, olds, news);
}

/** Creates (or adopts) the object. */
export function create(inputs: Record<string, unknown>): Promise<dynamic.CreateResult> {
  return (require("pulumi-broker-config/impl/service-key-pair") as Implementation).create(inputs);
}

/** Reads the object as it is on the server (refresh). */
export function read(id: ID, props?: Record<string, unknown>): Promise<dynamic.ReadResult> {
  return (require("pulumi-broker-config/impl/service-key-pair") as Implementation).read(id, props);
}

/** Applies a change that does not need a replacement. */
export function update(
  id: ID,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.UpdateResult> {
  return (require("pulumi-broker-config/impl/service-key-pair") as Implementation).update(id, olds, news);
}

/** Removes the object from the stack (see the resource's documentation for what the API allows). */
export function delete_(id: ID, props: Record<string, unknown>): Promise<void> {
  return (require("pulumi-broker-config/impl/service-key-pair") as Implementation).delete(id, props);
}
export { delete_ as delete };
