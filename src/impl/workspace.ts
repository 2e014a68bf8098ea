import type { dynamic, ID } from "@pulumi/pulumi";
import { isBrokerResultError, type BrokerClient } from "../client";
import type { WorkspaceRecord } from "../client/types";
import { brokerClient } from "./connection";
import { inputChanged } from "./diffing";
import { assertSameEndpoint, checkEndpointInputs, endpointMoved, type EndpointInputs } from "./endpoint";
import { warn } from "./engine-log";
import { CreatedButFailedError } from "./partial-failure";
import { isUnknown } from "./unknown";
import { CheckFailures, checkName, checkOptionalBoolean, describe } from "./validation";

export { configure } from "./connection";

/** Workspace inputs after `check`: defaults filled in. */
export interface WorkspaceInputs extends EndpointInputs {
  name: string;
  /** 0 for a top-level workspace. */
  parentId: number;
  adopt: boolean;
}

/** What the engine records for a workspace. */
export interface WorkspaceOutputs extends WorkspaceInputs {
  workspaceId: number;
  /** Full path such as `/team/orders`. */
  path: string;
  createdAt: string;
  /** True when `create` took over an existing workspace instead of creating one. */
  adopted: boolean;
}

/** Validates inputs and fills defaults. Makes no request. */
export function check(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.CheckResult> {
  const failures = new CheckFailures();
  checkName(failures, "name", news["name"], "Workspace");
  const parentId = news["parentId"] ?? 0;
  if (!isUnknown(parentId) && !(Number.isSafeInteger(parentId) && (parentId as number) >= 0)) {
    failures.add(
      "parentId",
      `must be the numeric id of the parent workspace (e.g. another Workspace's workspaceId) or 0 for top level, got ${describe(parentId)}`,
    );
  }
  checkOptionalBoolean(failures, "adopt", news["adopt"]);
  const inputs: Record<string, unknown> = { ...news, parentId, adopt: news["adopt"] ?? false };
  checkEndpointInputs(failures, olds, news, inputs);
  return Promise.resolve({ inputs, failures: failures.list });
}

/** A change of name, parent or endpoint replaces the workspace; `adopt` changes nothing on the server. */
export function diff(
  _id: ID,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.DiffResult> {
  const replaces = ["name", "parentId"].filter((key) => inputChanged(olds, news, key, DEFAULTS[key]));
  if (endpointMoved(olds, news)) replaces.push("baseUrl");
  const changes =
    replaces.length > 0 ||
    ["adopt", "allowEndpointChange"].some((key) => inputChanged(olds, news, key, false));
  return Promise.resolve({ changes, replaces, deleteBeforeReplace: false });
}

/** What an absent input means, so that absent and default compare equal. */
const DEFAULTS: Record<string, unknown> = { parentId: 0 };

/** Creates the workspace and finds it (the API returns no id), or adopts an existing one. */
export async function create(raw: Record<string, unknown>): Promise<dynamic.CreateResult> {
  const inputs = raw as unknown as WorkspaceInputs;
  const client = brokerClient();
  const named = await workspacesNamed(client, inputs.name);
  const existing = named.filter((w) => w.parentId === inputs.parentId);
  let record: WorkspaceRecord;
  let adopted = false;
  if (existing.length > 1) {
    throw new Error(
      `Cannot create workspace "${inputs.name}": ${existing.length} workspaces with that name already exist under parent ${inputs.parentId} (ids ${existing.map((w) => w.id).join(", ")}); rename it, or remove the duplicates outside Pulumi.`,
    );
  }
  if (existing[0] !== undefined) {
    if (!inputs.adopt) {
      throw new Error(
        `Workspace "${inputs.name}" already exists under parent ${inputs.parentId} (id ${existing[0].id}, path ${existing[0].path}). ` +
          "Set `adopt: true` to manage the existing workspace with this stack, or choose another name.",
      );
    }
    record = existing[0];
    adopted = true;
  } else {
    try {
      record = await client.createWorkspaceAndFind({ name: inputs.name, parentId: inputs.parentId }, named);
    } catch (error) {
      if (!isBrokerResultError(error) || error.createdId === undefined) throw error;
      // Created, but not as asked (say, under another parent): keep it in the stack as it is, so
      // the next `pulumi up` sees the difference instead of leaving a stray workspace behind.
      const created = await client.getWorkspace(error.createdId).catch(() => undefined);
      const known = created === undefined ? partialRecord(inputs, error.createdId) : created;
      const outs = outputsOf(inputs, known, false, client.baseUrl);
      throw new CreatedButFailedError(
        `Workspace "${inputs.name}"`,
        String(error.createdId),
        outs,
        raw["__provider"],
        error,
      );
    }
  }
  const outs = outputsOf(inputs, record, adopted, client.baseUrl);
  return { id: String(record.id), outs };
}

/** What we know of a created workspace that could not be read back; `update` completes it. */
function partialRecord(inputs: WorkspaceInputs, id: number): WorkspaceRecord {
  return { id, name: inputs.name, parentId: inputs.parentId, path: "", createdAt: "", children: [] };
}

/** Every workspace named `name`, under any parent. */
async function workspacesNamed(client: BrokerClient, name: string): Promise<WorkspaceRecord[]> {
  const matches: WorkspaceRecord[] = [];
  for await (const workspace of client.workspaces({ name }))
    if (workspace.name === name) matches.push(workspace);
  return matches;
}

function outputsOf(
  inputs: WorkspaceInputs,
  record: WorkspaceRecord,
  adopted: boolean,
  baseUrl: string,
): Record<string, unknown> {
  const outs: Record<string, unknown> = {
    name: record.name,
    parentId: record.parentId,
    adopt: inputs.adopt,
    workspaceId: record.id,
    path: record.path,
    createdAt: record.createdAt,
    adopted,
    baseUrl,
  };
  outs["allowEndpointChange"] = inputs.allowEndpointChange ?? false;
  return outs;
}

/** Refresh: reads the workspace by id; a workspace that no longer exists leaves the stack. */
export async function read(id: ID, props: Record<string, unknown> = {}): Promise<dynamic.ReadResult> {
  assertSameEndpoint(props["baseUrl"], `Refreshing workspace ${id}`);
  const client = brokerClient();
  const record = await client.getWorkspace(Number(id));
  if (record === undefined) return { id: "" };
  const old = props as Partial<WorkspaceOutputs>;
  const outs = outputsOf(
    {
      name: record.name,
      parentId: record.parentId,
      adopt: old.adopt ?? false,
      allowEndpointChange: old.allowEndpointChange ?? false,
    },
    record,
    old.adopted ?? false,
    client.baseUrl,
  );
  const inputs: Record<string, unknown> = {
    name: record.name,
    parentId: record.parentId,
    adopt: old.adopt ?? false,
    baseUrl: client.baseUrl,
  };
  return { id, props: outs, inputs };
}

/**
 * Only `adopt` or `allowEndpointChange` can change in place, and neither touches the server; a
 * workspace kept in the stack by a create that could not read it back is read now to complete it.
 */
export async function update(
  id: ID,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<dynamic.UpdateResult> {
  const outs: Record<string, unknown> = { ...olds, adopt: news["adopt"] ?? false };
  outs["allowEndpointChange"] = news["allowEndpointChange"] ?? false;
  if (olds["createdAt"] === "") {
    const client = brokerClient();
    const record = await client.getWorkspace(Number(id));
    if (record !== undefined) Object.assign(outs, { path: record.path, createdAt: record.createdAt });
  }
  return { outs };
}

/** The API has no delete endpoint: the workspace is only forgotten, with a warning. */
export async function delete_(id: ID, props: Record<string, unknown>): Promise<void> {
  const path = typeof props["path"] === "string" ? props["path"] : String(props["name"]);
  await warn(
    `Workspace ${path} (id ${id}) was removed from the stack but still exists on the broker: the configuration API has no delete endpoint. Remove it in the broker's dashboard if it is no longer needed.`,
  );
}
export { delete_ as delete };
