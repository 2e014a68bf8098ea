/** `getWorkspace` and `getWorkspaces`: workspaces made elsewhere, by id, by path or by name. */
import type { WorkspaceRecord } from "../../client/types";
import { workspacePathNames, workspacePathProblem } from "../../model";
import type { ById, ObjectInfo, RawArgs } from "./args";
import { oneOf, optionalId, optionalName, optionalString, rejectUnknownArgs } from "./args";
import { LookupArgumentError } from "./errors";
import { lookupClient, type LookupContext } from "./context";
import { exactlyOne, found, workspacesAtPath } from "./match";

/** The token of {@link getWorkspace}. */
export const GET_WORKSPACE = "broker:index:getWorkspace";
/** The token of {@link getWorkspaces}. */
export const GET_WORKSPACES = "broker:index:getWorkspaces";

/** How to find one workspace: by `id`, or by `path` (exactly one of them). */
export interface GetWorkspaceArgs extends ById {
  /** The workspace's full path, such as `/platform/orders`. */
  readonly path?: string | undefined;
}

/** A workspace as the look-ups return it. */
export interface WorkspaceInfo extends ObjectInfo {
  /** The full path, such as `/platform/orders`. */
  readonly path: string;
  /** The parent's id; 0 for a top-level workspace. Pass the `id` as a Workspace's `parentId`. */
  readonly parentId: number;
  /** The ids of its direct children, ascending. */
  readonly childIds: readonly number[];
}

/** Which workspaces to list: absent filters list every workspace. */
export interface GetWorkspacesArgs {
  /** Only workspaces with exactly this name. */
  readonly name?: string | undefined;
}

/** Every workspace that matched, in the API's order (creation). */
export interface GetWorkspacesResult {
  readonly workspaces: readonly WorkspaceInfo[];
}

function info(record: WorkspaceRecord): WorkspaceInfo {
  return {
    id: record.id,
    name: record.name,
    path: record.path,
    parentId: record.parentId,
    createdAt: record.createdAt,
    childIds: record.children.map((child) => child.id).sort((a, b) => a - b),
  };
}

/** Checks the arguments of {@link getWorkspace}, before any request. */
export function decodeGetWorkspaceArgs(args: RawArgs): GetWorkspaceArgs {
  rejectUnknownArgs(GET_WORKSPACE, args, ["id", "path"]);
  oneOf(GET_WORKSPACE, args, "id", "path");
  const path = optionalString(GET_WORKSPACE, args, "path");
  if (path !== undefined) {
    const problem = workspacePathProblem(path);
    if (problem !== undefined)
      throw new LookupArgumentError(GET_WORKSPACE, `path ${JSON.stringify(path)} ${problem}`);
  }
  return { id: optionalId(GET_WORKSPACE, args, "id"), path };
}

/** Checks the arguments of {@link getWorkspaces}, before any request. */
export function decodeGetWorkspacesArgs(args: RawArgs): GetWorkspacesArgs {
  rejectUnknownArgs(GET_WORKSPACES, args, ["name"]);
  return { name: optionalName(GET_WORKSPACES, args, "name", "workspace") };
}

/**
 * The workspace with this id or path. Fails when there is none (never an empty result), and when
 * several share the path (the API does not forbid equal names under one parent): look it up by id.
 */
export async function getWorkspace(context: LookupContext, raw: RawArgs): Promise<WorkspaceInfo> {
  const args = decodeGetWorkspaceArgs(raw);
  const client = lookupClient(GET_WORKSPACE, context);
  if (args.id !== undefined) {
    const record = await client.getWorkspace(args.id);
    return info(found(GET_WORKSPACE, record, `workspace with id ${args.id}`, client.baseUrl));
  }
  const path = args.path ?? "";
  // The API filters by name only: list the workspaces named like the last segment, keep the path.
  const name = workspacePathNames(path).at(-1) ?? "";
  const named: WorkspaceRecord[] = [];
  for await (const record of client.workspaces({ name })) named.push(record);
  const what = {
    description: `workspace with path ${JSON.stringify(path)}`,
    plural: `workspaces with path ${JSON.stringify(path)}`,
  };
  return info(exactlyOne(GET_WORKSPACE, workspacesAtPath(named, path), what, client.baseUrl));
}

/** Every workspace matching the filters, paged through; an empty list when none matches. */
export async function getWorkspaces(context: LookupContext, raw: RawArgs): Promise<GetWorkspacesResult> {
  const args = decodeGetWorkspacesArgs(raw);
  const client = lookupClient(GET_WORKSPACES, context);
  const workspaces: WorkspaceInfo[] = [];
  const filter = args.name === undefined ? {} : { name: args.name };
  for await (const record of client.workspaces(filter)) {
    // The API may match names loosely; the function promises exact names.
    if (args.name === undefined || record.name === args.name) workspaces.push(info(record));
  }
  return { workspaces };
}
