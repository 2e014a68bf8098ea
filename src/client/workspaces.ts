/** The workspace endpoints: thin, typed wrappers around `request()`. */
import { decodePage, decodeWorkspaceRecord, ignoreBody } from "./decode";
import { ENDPOINTS } from "./endpoints";
import { listDefaults } from "./paging";
import { request, type RequestContext } from "./request";
import type { ListOptions, Page, WorkspaceRecord } from "./types";

/** Input of `POST /workspace`. */
export interface CreateWorkspaceInput {
  name: string;
  /** The parent workspace; omitted or 0 for a top-level workspace. */
  parentId?: number;
}

/**
 * `POST /workspace`. The API answers with a message only, no id: see `createWorkspaceAndFind`.
 * `parentId` is sent only when it is positive (a top-level workspace has none).
 */
export async function createWorkspace(ctx: RequestContext, input: CreateWorkspaceInput): Promise<void> {
  const parentId = input.parentId ?? 0;
  await request(ctx, {
    endpoint: ENDPOINTS.createWorkspace,
    body: parentId > 0 ? { name: input.name, parentId } : { name: input.name },
    decode: ignoreBody,
  });
}

/** Query of `GET /workspace`. */
export type ListWorkspacesQuery = ListOptions & { pageIndex: number; name?: string; id?: number };

/** `GET /workspace`: one page. */
export function listWorkspaces(
  ctx: RequestContext,
  query: ListWorkspacesQuery,
): Promise<Page<WorkspaceRecord>> {
  return request(ctx, {
    endpoint: ENDPOINTS.listWorkspaces,
    query: { ...listDefaults(query), pageIndex: query.pageIndex, name: query.name, id: query.id },
    decode: decodePage(decodeWorkspaceRecord),
  });
}
