/**
 * Wire types of the broker configuration API (`openapi.yaml` is the contract).
 *
 * These mirror the JSON the API sends and receives; the client normalises the few places where the
 * API is inconsistent (see {@link AccessKeyRecord.id}).
 */

import type { AccessKeyType } from "../model/access-keys";

// The kinds of access key are a rule of the domain model; the client speaks them on the wire.
export { ACCESS_KEY_TYPES, type AccessKeyType } from "../model/access-keys";

/** The send/receive permissions of an access key. */
export interface Permissions {
  /** Event paths the key may publish to, such as `orders/created` or `orders/*`. */
  send: string[];
  /** Event paths the key may subscribe to. */
  receive: string[];
  /** Resource-specific permissions; their content is not described by the API. */
  resources: Record<string, unknown>;
}

/** An access key as returned by the list and get-permissions operations. */
export interface AccessKeyRecord {
  /** The numeric access key id. */
  id: number;
  name: string;
  /** The access key value itself: a credential. */
  key: string;
  type: AccessKeyType;
  permissions: Permissions;
  /** ISO 8601 UTC creation timestamp. */
  createdAt: string;
}

/** An encryption key pair of a SERVICE key, as base64 text. */
export interface ServiceKeyPair {
  publicKey: string;
  /** The private key: a credential. */
  privateKey: string;
}

/** What creating an access key returns, normalised (the API's string `accessKeyId` becomes a number). */
export interface CreatedAccessKey {
  /** The generated key value: a credential. */
  accessKey: string;
  accessKeyId: number;
  /** Present for SERVICE keys. */
  serviceKeyPair?: ServiceKeyPair;
}

/** Input of the create-access-key operation. */
export interface CreateAccessKeyInput {
  name: string;
  type: AccessKeyType;
  permissions: Partial<Permissions>;
}

/** A workspace record. `parentId` is 0 for a top-level workspace. */
export interface WorkspaceRecord {
  id: number;
  name: string;
  /** Full path such as `/a/b`. */
  path: string;
  parentId: number;
  createdAt: string;
  children: WorkspaceRecord[];
}

/** Sort direction of a list operation. */
export type SortOrder = "ASC" | "DESC";

/** Sort field of a list operation. */
export type SortField = "name" | "createdAt";

/** Paging and ordering of a list operation. */
export interface ListOptions {
  /** Page size, 1 to 100. @default 100 */
  limit?: number;
  /** @default "ASC" */
  order?: SortOrder;
  /** @default "createdAt" */
  orderBy?: SortField;
}

/** One page of a list operation, as the API returns it. `resultsLength` counts this page only. */
export interface Page<T> {
  resultsLength: number;
  results: T[];
}

/** Input of the create-workspace operation. */
export interface CreateWorkspaceInput {
  name: string;
  /** The parent workspace; omitted or 0 for a top-level workspace. */
  parentId?: number;
}

/** Filters of the access key list. */
export interface AccessKeyFilter extends ListOptions {
  /** Only the key with this value (a credential: it is redacted from every error). */
  accessKey?: string;
}

/** Filters of the workspace list. */
export interface WorkspaceFilter extends ListOptions {
  /** Workspaces with this name (the server may match loosely). */
  name?: string;
  /** The workspace with this id. */
  id?: number;
}

/** One page of the access key list: the filters and the page number (0 for the first). */
export interface ListAccessKeysQuery extends AccessKeyFilter {
  pageIndex: number;
}

/** One page of the workspace list: the filters and the page number (0 for the first). */
export interface ListWorkspacesQuery extends WorkspaceFilter {
  pageIndex: number;
}
