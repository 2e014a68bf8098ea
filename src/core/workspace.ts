/**
 * Workspaces: typed inputs and outputs, and check / diff / create / read / update / delete over the
 * API client, for any adapter.
 */
import { isBrokerResultError, type BrokerClient } from "../client";
import type { WorkspaceRecord } from "../client/types";
import { CheckFailures, describe, nameRule } from "./validation";
import { withChosenName, type NameSource } from "./autoname";
import type { CoreContext } from "./context";
import { WORKSPACE } from "./declarations";
import { declared, type InputsOf, type OutputsOf, type SettingsOf } from "./declared";
import { withEndpointTracking, type EndpointInputs, type EndpointInputsOf } from "./endpoint";
import { spellings } from "../settings/wording";
import { numericId } from "./import";
import { PartiallyCreatedError } from "./partial-failure";
import { findInterrupted, tookOver, underIntent, type CreateOrigin } from "./intents";
import type { CheckResult, CreateResult, DiffResult, ReadResult } from "./results";
import { GONE } from "./results";
import type { PropertyBag } from "./state";
import { isUnknown, type NotKnown } from "./unknown";

/** The plain fields of a workspace, from its declaration. */
const FIELDS = declared(WORKSPACE, "Workspace");

/** A workspace's own inputs (the endpoint aside); `U` is what a value not known yet becomes. */
type OwnInputsOf<U> = InputsOf<typeof WORKSPACE, U>;

/** Workspace inputs; `U` is what a value not known yet becomes (nothing, once known). */
export type WorkspaceInputsOf<U = never> = OwnInputsOf<U> & EndpointInputsOf<U>;

/** Workspace inputs after `check`: defaults filled in. */
export type WorkspaceInputs = WorkspaceInputsOf;

/** Workspace inputs during a preview: any of them may be not known yet. */
export type ProposedWorkspaceInputs = WorkspaceInputsOf<NotKnown>;

/**
 * What the engine records for a workspace. `path` and `createdAt` are empty while the workspace is
 * kept in the stack by a create that could not read it back (the next update completes it).
 */
export type WorkspaceOutputs = OwnOutputs & EndpointInputs;

/** A workspace's own outputs (the endpoint aside). */
type OwnOutputs = OutputsOf<typeof WORKSPACE>;

/** What the server says about a workspace, or what we know of it. */
type WorkspaceFacts = Pick<WorkspaceRecord, "id" | "name" | "parentId" | "path" | "createdAt">;

/** The one function that builds a workspace's outputs: create, read and update all use it. */
function workspaceOutputs(
  settings: SettingsOf<typeof WORKSPACE>,
  facts: WorkspaceFacts,
  adopted: boolean,
): OwnOutputs {
  const { id: workspaceId, name, parentId, path, createdAt } = facts;
  return FIELDS.outputs({
    name,
    parentId,
    workspaceId,
    path,
    createdAt,
    adopted,
    ...FIELDS.settingsOf(settings),
  });
}

/** What we know of a created workspace that could not be read back; `update` completes it. */
function pendingFacts(inputs: OwnInputsOf<never>, id: number): WorkspaceFacts {
  return { id, name: inputs.name, parentId: inputs.parentId, path: "", createdAt: "" };
}

/** The parent must be a workspace id, or 0 (absent) for top level: said in the API's words. */
function checkParentId(failures: CheckFailures, property: string, value: unknown): void {
  if (value === undefined || value === null || isUnknown(value)) return;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return;
  failures.add(
    property,
    `must be the numeric id of the parent workspace (e.g. the ${spellings("workspaceId")} output of another Workspace) or 0 for top level, got ${describe(value)}`,
  );
}

/** Every workspace named `name`, under any parent. */
async function workspacesNamed(client: BrokerClient, name: string): Promise<WorkspaceRecord[]> {
  const matches: WorkspaceRecord[] = [];
  for await (const workspace of client.workspaces({ name }))
    if (workspace.name === name) matches.push(workspace);
  return matches;
}

/**
 * The core's Workspace operations, as one table for the doors (see {@link "./operations".ResourceOperations}),
 * endpoint tracking included.
 */
export const workspaceOperations = withEndpointTracking<
  OwnInputsOf<never>,
  OwnInputsOf<NotKnown>,
  OwnOutputs,
  DiffResult
>({
  typeName: "Workspace",
  describe: (id) => `workspace ${id}`,
  decodeInputs: FIELDS.decodeInputs,
  decodeProposedInputs: FIELDS.decodeProposedInputs,
  /** Decodes a workspace's own recorded state, as this or any earlier version of the package wrote it. */
  decodeOutputs: (bag: PropertyBag): OwnOutputs => FIELDS.decodeOutputs(bag),
  /**
   * Validates inputs, fills defaults and chooses a name when the program gives none. Makes no request.
   * @param news the inputs as the program gave them.
   * @param naming where a name the program leaves out comes from.
   */
  check: (news: PropertyBag, naming: NameSource): CheckResult<OwnInputsOf<NotKnown>> => {
    const named = withChosenName(news, naming, "workspace");
    if (named.inputs === undefined) return named;
    return FIELDS.check(named.inputs, {
      name: nameRule("Workspace"),
      parentId: checkParentId,
    });
  },
  /** A change of name or parent replaces the workspace; `adopt` changes nothing on the server. */
  diff: (old: OwnInputsOf<never>, news: OwnInputsOf<NotKnown>): DiffResult => FIELDS.diff(old, news),
  /**
   * Creates the workspace and finds it (the API returns no id), or adopts an existing one. With
   * `origin`, the create is recorded as an intent before it is sent, and a workspace made by an
   * interrupted earlier create of the same resource is taken over rather than refused as existing.
   */
  async create(
    ctx: CoreContext,
    inputs: OwnInputsOf<never>,
    origin?: CreateOrigin,
  ): Promise<CreateResult<OwnOutputs>> {
    const client = ctx.client();
    const named = await workspacesNamed(client, inputs.name);
    const interrupted = await findInterrupted(
      origin,
      client,
      "Workspace",
      `Creating workspace "${inputs.name}"`,
    );
    // A workspace the intent asked for under this resource's name and parent is what the program asks
    // for. One it asked for under another name or parent is left alone.
    const made = interrupted?.found;
    if (
      interrupted !== undefined &&
      made !== undefined &&
      made.name === inputs.name &&
      made.parentId === inputs.parentId
    ) {
      await tookOver(origin, client, interrupted, made.id);
      return { id: String(made.id), outputs: workspaceOutputs(inputs, made, false) };
    }
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
            `Set ${spellings("adopt")} to true to manage the existing workspace with this stack, or choose another name.`,
        );
      }
      return { id: String(found.id), outputs: workspaceOutputs(inputs, found, true) };
    }
    let record: WorkspaceRecord;
    try {
      const request = { name: inputs.name, parentId: inputs.parentId };
      record = await underIntent(
        origin,
        client,
        { kind: "Workspace", object: request },
        () => client.createWorkspaceAndFind(request, named),
        (created) => created.id,
      );
    } catch (error) {
      if (!isBrokerResultError(error) || error.createdId === undefined) throw error;
      // Created, but not as asked (say, under another parent): keep it in the stack as it is, so the
      // next `pulumi up` sees the difference instead of leaving a stray workspace behind.
      const created = await client.getWorkspace(error.createdId).catch(() => undefined);
      const known = created ?? pendingFacts(inputs, error.createdId);
      throw new PartiallyCreatedError(
        `Workspace "${inputs.name}"`,
        String(error.createdId),
        workspaceOutputs(inputs, known, false),
        error,
      );
    }
    return { id: String(record.id), outputs: workspaceOutputs(inputs, record, false) };
  },
  /**
   * Refresh: reads the workspace by id; a workspace that no longer exists is gone.
   * @param old the recorded state, `undefined` when there is none (its settings then take their defaults).
   */
  async read(
    ctx: CoreContext,
    id: string,
    old: OwnOutputs | undefined,
  ): Promise<ReadResult<OwnInputsOf<never>, OwnOutputs>> {
    const record = await ctx.client().getWorkspace(numericId(id, FIELDS.what));
    if (record === undefined) return GONE;
    const outputs = workspaceOutputs(FIELDS.settingsOf(old), record, old?.adopted ?? false);
    return { exists: true, id, outputs, inputs: FIELDS.inputsOf(outputs) };
  },
  /**
   * Only `adopt` or `allowEndpointChange` can change in place, and neither touches the server; a
   * workspace kept in the stack by a create that could not read it back is read now to complete it.
   */
  async update(ctx: CoreContext, id: string, old: OwnOutputs, news: OwnInputsOf<never>): Promise<OwnOutputs> {
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
    return workspaceOutputs(news, facts, old.adopted);
  },
  /** The API has no delete endpoint: the workspace is only forgotten, with a warning. */
  async delete(ctx: CoreContext, id: string, old: OwnOutputs): Promise<void> {
    await ctx.log.warn(
      `Workspace ${old.path} (id ${id}) was removed from the stack but still exists on the broker: the configuration API has no delete endpoint. Remove it in the broker's dashboard if it is no longer needed.`,
    );
  },
});

/** Decodes a workspace's recorded state, as this or any earlier version of the package wrote it. */
export const decodeWorkspaceOutputs = workspaceOperations.decodeOutputs;

export const {
  /** Validates inputs, records the endpoint and fills defaults. Makes no request. */
  check: checkWorkspace,
  /** A change of name, parent or endpoint replaces the workspace; `adopt` changes nothing on the server. */
  diff: diffWorkspace,
  /** Creates the workspace and finds it (the API returns no id), or adopts an existing one. */
  create: createWorkspace,
  /** Refresh: reads the workspace by id; a workspace that no longer exists is gone. */
  read: readWorkspace,
  /** Records new settings; completes a workspace that a create could not read back. */
  update: updateWorkspace,
  /** The API has no delete endpoint: the workspace is only forgotten, with a warning. */
  delete: deleteWorkspace,
} = workspaceOperations;
