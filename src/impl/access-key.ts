/**
 * The dynamic provider of {@link "../resources/access-key".AccessKey | AccessKey}: what the shim
 * `pulumi-broker-config/providers/access-key` requires at run time. It decodes the engine's property
 * bags, calls the core (`src/core/access-key.ts`) and maps its results to `dynamic.*` results.
 *
 * The subpath `pulumi-broker-config/impl/access-key` and these function names are a contract with the
 * shims stored in existing stacks: never rename or remove them.
 * @packageDocumentation
 */
import type { dynamic, ID } from "@pulumi/pulumi";
import {
  checkAccessKey,
  createAccessKey,
  decodeAccessKeyInputs,
  decodeAccessKeyOutputs,
  decodeProposedAccessKeyInputs,
  deleteAccessKey,
  diffAccessKey,
  readAccessKey,
  updateAccessKey,
} from "../core/access-key";
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
export { ON_DELETE_VALUES } from "../core/access-key";
export type { AccessKeyInputs, AccessKeyOutputs, OnDelete } from "../core/access-key";

/** Validates inputs and fills defaults. Makes no request. */
export function check(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.CheckResult> {
  return settle(() => toDynamicCheck(news, checkAccessKey(dynamicContext, news, recordedBaseUrl(olds))));
}

/**
 * A change of name, type or endpoint replaces the key (the API cannot rename a key or change its
 * type); permissions update in place and compare as sets.
 */
export function diff(
  _id: ID,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.DiffResult> {
  return settle(() =>
    toDynamicDiff(diffAccessKey(decodeAccessKeyInputs(olds), decodeProposedAccessKeyInputs(news))),
  );
}

/** Creates the key (or adopts an existing one with the same name and type) and sets its permissions. */
export async function create(raw: Record<string, unknown>): Promise<dynamic.CreateResult> {
  return toDynamicCreate(raw, () => createAccessKey(dynamicContext, decodeAccessKeyInputs(raw)));
}

/** Refresh: reads the key's record; a key that no longer exists leaves the stack. */
export async function read(id: ID, props: Record<string, unknown> = {}): Promise<dynamic.ReadResult> {
  const old = isEmptyState(props) ? undefined : decodeAccessKeyOutputs(props);
  return toDynamicRead(await readAccessKey(dynamicContext, id, old));
}

/** Sets the new permissions (read back and verified); other in-place changes only touch the stack. */
export async function update(
  id: ID,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.UpdateResult> {
  const outputs = await updateAccessKey(
    dynamicContext,
    id,
    decodeAccessKeyOutputs(olds),
    decodeAccessKeyInputs(news),
  );
  return { outs: toPropertyBag(outputs) };
}

/**
 * The API cannot delete keys. With `onDelete: "revoke"` (the default) the key loses every
 * permission, so it can no longer publish or subscribe; with `"retain"` it is left as it is.
 */
export async function delete_(id: ID, props: Record<string, unknown>): Promise<void> {
  await deleteAccessKey(dynamicContext, id, decodeAccessKeyOutputs(props));
}
export { delete_ as delete };
