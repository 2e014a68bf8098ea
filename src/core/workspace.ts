/**
 * Workspaces: typed inputs and outputs, and check / diff / create / read / update / delete over the
 * API client, for any adapter.
 */
import { isBrokerResultError, type BrokerClient } from "../client";
import type { WorkspaceRecord } from "../client/types";
import { DEFAULT_ADOPT, TOP_LEVEL_PARENT_ID } from "../model";
import { CheckFailures, checkName, checkOptionalBoolean, describe } from "./validation";
import type { CheckContext, CoreContext } from "./context";
import { DiffBuilder, changeKind, valueChanged } from "./diff";
import {
  assertSameEndpoint,
  checkEndpoint,
  decodeEndpointInputs,
  endpointMoved,
  recordedEndpoint,
  type EndpointInputsOf,
} from "./endpoint";
import { numericId } from "./import";
import { PartiallyCreatedError } from "./partial-failure";
import type { ResourceOperations } from "./operations";
import type { CheckResult, CreateResult, DiffResult, ReadResult } from "./results";
import { GONE } from "./results";
import { inputsDecoders, knownReader, type PropertyBag, type PropertyReader } from "./state";
import { isUnknown, type NotKnown } from "./unknown";

/** Workspace inputs; `U` is what a value not known yet becomes (nothing, once known). */
export interface WorkspaceInputsOf<U = never> extends EndpointInputsOf<U> {
  name: string | U;
  /** 0 for a top-level workspace. */
  parentId: number | U;
  adopt: boolean | U;
}

/** Workspace inputs after `check`: defaults filled in. */
export type WorkspaceInputs = WorkspaceInputsOf;

/** Workspace inputs during a preview: any of them may be not known yet. */
export type ProposedWorkspaceInputs = WorkspaceInputsOf<NotKnown>;

/** What the engine records for a workspace. */
export interface WorkspaceOutputs extends WorkspaceInputs {
  workspaceId: number;
  /**
   * Full path such as `/team/orders`. Empty while the workspace is kept in the stack by a create
   * that could not read it back (see `createdAt`).
   */
  path: string;
  /** When the broker created the workspace; empty while it is kept by a create that could not read it back. */
  createdAt: string;
  /** True when `create` took over an existing workspace instead of creating one. */
  adopted: boolean;
}

const WHAT = "Workspace";

function decodeInputs<U>(r: PropertyReader<U>): WorkspaceInputsOf<U> {
  return {
    name: r.string("name"),
    parentId: r.integer("parentId", TOP_LEVEL_PARENT_ID),
    adopt: r.boolean("adopt", DEFAULT_ADOPT),
    ...decodeEndpointInputs(r),
  };
}

/** Decodes the inputs, known or as proposed in a preview (see the operations table below). */
const inputDecoders = inputsDecoders(WHAT, decodeInputs<never>, decodeInputs<NotKnown>);

/** Decodes a workspace's recorded state, as this or any earlier version of the package wrote it. */
export function decodeWorkspaceOutputs(bag: PropertyBag): WorkspaceOutputs {
  const r = knownReader(bag, WHAT);
  return {
    ...decodeInputs(r),
    workspaceId: r.integer("workspaceId"),
    path: r.string("path"),
    createdAt: r.string("createdAt"),
    adopted: r.boolean("adopted", false),
  };
}

/** The settings that only the stack holds: the server knows nothing of them. */
type WorkspaceSettings = Pick<WorkspaceInputs, "adopt" | "allowEndpointChange">;

/** What the server says about a workspace, or what we know of it. */
type WorkspaceFacts = Pick<WorkspaceRecord, "id" | "name" | "parentId" | "path" | "createdAt">;

/** The one function that builds a workspace's outputs: create, read and update all use it. */
export function workspaceOutputs(
  settings: WorkspaceSettings,
  facts: WorkspaceFacts,
  adopted: boolean,
  baseUrl: string | undefined,
): WorkspaceOutputs {
  return {
    name: facts.name,
    parentId: facts.parentId,
    adopt: settings.adopt,
    allowEndpointChange: settings.allowEndpointChange,
    ...recordedEndpoint(baseUrl),
    workspaceId: facts.id,
    path: facts.path,
    createdAt: facts.createdAt,
    adopted,
  };
}

/**
 * Validates inputs and fills defaults. Makes no request.
 * @param news the inputs as the program gave them.
 * @param recordedBaseUrl the endpoint recorded by the previous check, if any.
 */
export function checkWorkspace(
  ctx: CheckContext,
  news: PropertyBag,
  recordedBaseUrl: string | undefined,
): CheckResult<ProposedWorkspaceInputs> {
  const failures = new CheckFailures();
  checkName(failures, "name", news["name"], "Workspace");
  const parentId = news["parentId"] ?? TOP_LEVEL_PARENT_ID;
  if (
    !isUnknown(parentId) &&
    !(typeof parentId === "number" && Number.isSafeInteger(parentId) && parentId >= 0)
  ) {
    failures.add(
      "parentId",
      `must be the numeric id of the parent workspace (e.g. another Workspace's workspaceId) or 0 for top level, got ${describe(parentId)}`,
    );
  }
  checkOptionalBoolean(failures, "adopt", news["adopt"]);
  const baseUrl = checkEndpoint(ctx, failures, recordedBaseUrl, news["allowEndpointChange"]);
  if (failures.list.length > 0) return { inputs: undefined, failures: failures.list };
  const { baseUrl: _given, ...inputs } = inputDecoders.proposed(news);
  return { inputs: { ...inputs, ...(baseUrl === undefined ? {} : { baseUrl }) }, failures: [] };
}

/** A change of name, parent or endpoint replaces the workspace; `adopt` changes nothing on the server. */
export function diffWorkspace(old: WorkspaceInputs, news: ProposedWorkspaceInputs): DiffResult {
  return new DiffBuilder()
    .property("name", valueChanged(old.name, news.name), { replace: true })
    .property("parentId", valueChanged(old.parentId, news.parentId), { replace: true })
    .property("baseUrl", endpointMoved(old.baseUrl, news.baseUrl), {
      replace: true,
      kind: changeKind(old.baseUrl, news.baseUrl),
    })
    .property("adopt", valueChanged(old.adopt, news.adopt), { replace: false })
    .property("allowEndpointChange", valueChanged(old.allowEndpointChange, news.allowEndpointChange), {
      replace: false,
    })
    .build();
}

/** Creates the workspace and finds it (the API returns no id), or adopts an existing one. */
export async function createWorkspace(
  ctx: CoreContext,
  inputs: WorkspaceInputs,
): Promise<CreateResult<WorkspaceOutputs>> {
  const client = ctx.client();
  const named = await workspacesNamed(client, inputs.name);
  const existing = named.filter((w) => w.parentId === inputs.parentId);
  if (existing.length > 1) {
    throw new Error(
      `Cannot create workspace "${inputs.name}": ${existing.length} workspaces with that name already exist under parent ${inputs.parentId} (ids ${existing.map((w) => w.id).join(", ")}); rename it, or remove the duplicates outside Pulumi.`,
    );
  }
  const found = existing[0];
  if (found !== undefined) {
    if (!inputs.adopt) {
      throw new Error(
        `Workspace "${inputs.name}" already exists under parent ${inputs.parentId} (id ${found.id}, path ${found.path}). ` +
          "Set `adopt: true` to manage the existing workspace with this stack, or choose another name.",
      );
    }
    return { id: String(found.id), outputs: workspaceOutputs(inputs, found, true, client.baseUrl) };
  }
  let record: WorkspaceRecord;
  try {
    record = await client.createWorkspaceAndFind({ name: inputs.name, parentId: inputs.parentId }, named);
  } catch (error) {
    if (!isBrokerResultError(error) || error.createdId === undefined) throw error;
    // Created, but not as asked (say, under another parent): keep it in the stack as it is, so the
    // next `pulumi up` sees the difference instead of leaving a stray workspace behind.
    const created = await client.getWorkspace(error.createdId).catch(() => undefined);
    const known = created ?? pendingFacts(inputs, error.createdId);
    throw new PartiallyCreatedError(
      `Workspace "${inputs.name}"`,
      String(error.createdId),
      workspaceOutputs(inputs, known, false, client.baseUrl),
      error,
    );
  }
  return { id: String(record.id), outputs: workspaceOutputs(inputs, record, false, client.baseUrl) };
}

/** What we know of a created workspace that could not be read back; `update` completes it. */
function pendingFacts(inputs: WorkspaceInputs, id: number): WorkspaceFacts {
  return { id, name: inputs.name, parentId: inputs.parentId, path: "", createdAt: "" };
}

/** Every workspace named `name`, under any parent. */
async function workspacesNamed(client: BrokerClient, name: string): Promise<WorkspaceRecord[]> {
  const matches: WorkspaceRecord[] = [];
  for await (const workspace of client.workspaces({ name }))
    if (workspace.name === name) matches.push(workspace);
  return matches;
}

/**
 * Refresh: reads the workspace by id; a workspace that no longer exists is gone.
 * @param old the recorded state, `undefined` when there is none (its settings then take their defaults).
 */
export async function readWorkspace(
  ctx: CoreContext,
  id: string,
  old: WorkspaceOutputs | undefined,
): Promise<ReadResult<WorkspaceInputs, WorkspaceOutputs>> {
  assertSameEndpoint(ctx, old?.baseUrl, `Refreshing workspace ${id}`);
  const client = ctx.client();
  const record = await client.getWorkspace(numericId(id, WHAT));
  if (record === undefined) return GONE;
  const settings: WorkspaceSettings = {
    adopt: old?.adopt ?? DEFAULT_ADOPT,
    allowEndpointChange: old?.allowEndpointChange ?? false,
  };
  const outputs = workspaceOutputs(settings, record, old?.adopted ?? false, client.baseUrl);
  return { exists: true, id, outputs, inputs: inputsOf(outputs) };
}

/** The inputs part of a workspace's outputs. */
function inputsOf(outputs: WorkspaceOutputs): WorkspaceInputs {
  const { name, parentId, adopt, allowEndpointChange, baseUrl } = outputs;
  return { name, parentId, adopt, allowEndpointChange, ...recordedEndpoint(baseUrl) };
}

/**
 * Only `adopt` or `allowEndpointChange` can change in place, and neither touches the server; a
 * workspace kept in the stack by a create that could not read it back is read now to complete it.
 */
export async function updateWorkspace(
  ctx: CoreContext,
  id: string,
  old: WorkspaceOutputs,
  news: WorkspaceInputs,
): Promise<WorkspaceOutputs> {
  let facts: WorkspaceFacts = {
    id: old.workspaceId,
    name: old.name,
    parentId: old.parentId,
    path: old.path,
    createdAt: old.createdAt,
  };
  if (old.createdAt === "") {
    const record = await ctx.client().getWorkspace(Number(id));
    if (record !== undefined) facts = { ...facts, path: record.path, createdAt: record.createdAt };
  }
  return workspaceOutputs(news, facts, old.adopted, old.baseUrl);
}

/** The API has no delete endpoint: the workspace is only forgotten, with a warning. */
export async function deleteWorkspace(ctx: CoreContext, id: string, old: WorkspaceOutputs): Promise<void> {
  await ctx.log.warn(
    `Workspace ${old.path} (id ${id}) was removed from the stack but still exists on the broker: the configuration API has no delete endpoint. Remove it in the broker's dashboard if it is no longer needed.`,
  );
}

/** The core's Workspace operations, as one table for the doors (see {@link ResourceOperations}). */
export const workspaceOperations: ResourceOperations<
  WorkspaceInputs,
  ProposedWorkspaceInputs,
  WorkspaceOutputs
> = {
  typeName: "Workspace",
  decodeInputs: inputDecoders.known,
  decodeProposedInputs: inputDecoders.proposed,
  decodeOutputs: decodeWorkspaceOutputs,
  check: checkWorkspace,
  diff: diffWorkspace,
  create: createWorkspace,
  read: readWorkspace,
  update: updateWorkspace,
  delete: deleteWorkspace,
};
