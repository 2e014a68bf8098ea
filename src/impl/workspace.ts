/**
 * The dynamic provider of {@link "../resources/workspace".Workspace | Workspace}: what the shim
 * `pulumi-broker-config/providers/workspace` requires at run time. It decodes the engine's property
 * bags, calls the core (`src/core/workspace.ts`) and maps its results to `dynamic.*` results.
 *
 * The subpath `pulumi-broker-config/impl/workspace` and these function names are a contract with the
 * shims stored in existing stacks: never rename or remove them.
 * @packageDocumentation
 */
import type { dynamic, ID } from "@pulumi/pulumi";
import { isEmptyState, toPropertyBag } from "../core/state";
import {
  checkWorkspace,
  createWorkspace,
  decodeProposedWorkspaceInputs,
  decodeWorkspaceInputs,
  decodeWorkspaceOutputs,
  deleteWorkspace,
  diffWorkspace,
  readWorkspace,
  updateWorkspace,
} from "../core/workspace";
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
export type { WorkspaceInputs, WorkspaceOutputs } from "../core/workspace";

/** Validates inputs and fills defaults. Makes no request. */
export function check(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.CheckResult> {
  return settle(() => toDynamicCheck(news, checkWorkspace(dynamicContext, news, recordedBaseUrl(olds))));
}

/** A change of name, parent or endpoint replaces the workspace; `adopt` changes nothing on the server. */
export function diff(
  _id: ID,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.DiffResult> {
  return settle(() =>
    toDynamicDiff(diffWorkspace(decodeWorkspaceInputs(olds), decodeProposedWorkspaceInputs(news))),
  );
}

/** Creates the workspace and finds it (the API returns no id), or adopts an existing one. */
export async function create(raw: Record<string, unknown>): Promise<dynamic.CreateResult> {
  return toDynamicCreate(raw, () => createWorkspace(dynamicContext, decodeWorkspaceInputs(raw)));
}

/** Refresh: reads the workspace by id; a workspace that no longer exists leaves the stack. */
export async function read(id: ID, props: Record<string, unknown> = {}): Promise<dynamic.ReadResult> {
  const old = isEmptyState(props) ? undefined : decodeWorkspaceOutputs(props);
  return toDynamicRead(await readWorkspace(dynamicContext, id, old));
}

/** Applies in-place changes (only settings kept in the stack), completing a workspace a create left unfinished. */
export async function update(
  id: ID,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.UpdateResult> {
  const outputs = await updateWorkspace(
    dynamicContext,
    id,
    decodeWorkspaceOutputs(olds),
    decodeWorkspaceInputs(news),
  );
  return { outs: toPropertyBag(outputs) };
}

/** The API has no delete endpoint: the workspace is only forgotten, with a warning. */
export async function delete_(id: ID, props: Record<string, unknown>): Promise<void> {
  await deleteWorkspace(dynamicContext, id, decodeWorkspaceOutputs(props));
}
export { delete_ as delete };
