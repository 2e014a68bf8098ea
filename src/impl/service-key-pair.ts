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
import type { dynamic, ID } from "@pulumi/pulumi";
import {
  checkServiceKeyPair,
  createServiceKeyPair,
  decodeProposedServiceKeyPairInputs,
  decodeServiceKeyPairInputs,
  decodeServiceKeyPairOutputs,
  deleteServiceKeyPair,
  diffServiceKeyPair,
  readServiceKeyPair,
  updateServiceKeyPair,
} from "../core/service-key-pair";
import { isEmptyState, toPropertyBag } from "../core/state";
import { dynamicContext } from "./context";
import {
  recordedBaseUrl,
  settle,
  toDynamicCheck,
  toDynamicCreate,
  toDynamicDiff,
  toDynamicRead,
} from "./results";

export { configure } from "./connection";
export type { ServiceKeyPairInputs, ServiceKeyPairOutputs } from "../core/service-key-pair";

/** Validates inputs. Makes no request (the key's type is verified by `create`). */
export function check(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.CheckResult> {
  return settle(() => toDynamicCheck(news, checkServiceKeyPair(dynamicContext, news, recordedBaseUrl(olds))));
}

/** Another key (or endpoint) replaces the pair resource; changed `rotationTriggers` rotate it in place. */
export function diff(
  _id: ID,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.DiffResult> {
  return settle(() =>
    toDynamicDiff(
      diffServiceKeyPair(decodeServiceKeyPairInputs(olds), decodeProposedServiceKeyPairInputs(news)),
    ),
  );
}

/** Verifies the key is a SERVICE key and replaces its pair, recording the new one. */
export async function create(raw: Record<string, unknown>): Promise<dynamic.CreateResult> {
  return toDynamicCreate(raw, () => createServiceKeyPair(dynamicContext, decodeServiceKeyPairInputs(raw)));
}

/**
 * Refresh: there is no way to read a pair, so this checks that its key still exists; a pair whose
 * key is gone leaves the stack. With no recorded state there is nothing to check: it is returned as is.
 */
export async function read(id: ID, props: Record<string, unknown> = {}): Promise<dynamic.ReadResult> {
  if (isEmptyState(props)) return { id, props };
  return toDynamicRead(await readServiceKeyPair(dynamicContext, id, decodeServiceKeyPairOutputs(props)));
}

/** Changed `rotationTriggers` rotate the pair. */
export async function update(
  id: ID,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.UpdateResult> {
  const outputs = await updateServiceKeyPair(
    dynamicContext,
    id,
    decodeServiceKeyPairOutputs(olds),
    decodeServiceKeyPairInputs(news),
  );
  return { outs: toPropertyBag(outputs) };
}

/** Key pairs cannot be deleted: the current pair stays with its key. */
export async function delete_(id: ID, _props?: Record<string, unknown>): Promise<void> {
  await deleteServiceKeyPair(dynamicContext, id);
}
export { delete_ as delete };
