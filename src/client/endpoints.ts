/**
 * Every endpoint of the broker configuration API, declared once: method, path template, whether
 * repeating the request is safe (which decides what may be retried), how the request is built from
 * the call's input, and how the response is decoded. `BrokerClient` calls them through `request()`.
 */
import {
  decodeAccessKeyRecord,
  decodeCreatedAccessKey,
  decodePage,
  decodeServiceKeyPair,
  decodeVerify,
  decodeWorkspaceRecord,
  ignoreBody,
  type Decoder,
} from "./decode";
import type { ResolvedListOptions } from "./paging";
import type {
  AccessKeyRecord,
  CreateAccessKeyInput,
  CreatedAccessKey,
  CreateWorkspaceInput,
  ListAccessKeysQuery,
  ListWorkspacesQuery,
  Page,
  Permissions,
  ServiceKeyPair,
  WorkspaceRecord,
} from "./types";

/** The parts of one request that depend on the call's input. */
export interface RequestParts {
  /** Values of the path template's parameters. They are secrets (access key values) and redacted. */
  readonly params?: Readonly<Record<string, string>>;
  /** Query parameters; `undefined` values are left out. */
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  /** The JSON body. */
  readonly body?: unknown;
  /** Further secrets in the query or body, redacted from every error. The API key always is. */
  readonly secrets?: readonly string[];
}

/** One endpoint of the API: what a call with input `I` sends, and what it returns. */
export interface Endpoint<I, O> {
  readonly method: "GET" | "POST" | "PUT";
  /** The path template relative to the base URL, such as `/access-key/{accessKey}/permissions`. */
  readonly path: string;
  /**
   * Whether sending the request twice has the same effect as sending it once. Only repeatable
   * requests are retried after a failure that may have happened after the server processed them.
   */
  readonly repeatable: boolean;
  /** Builds the request from the call's input. */
  readonly build: (input: I) => RequestParts;
  /** Validates and normalises a 2xx body. */
  readonly decode: Decoder<O>;
  /** Error statuses that are an answer rather than a failure, and the value they stand for. */
  readonly answers?: { readonly statuses: ReadonlySet<number>; readonly value: O };
}

/** An endpoint whose method, path and repeatability alone are needed (to send and to report). */
export type EndpointInfo = Pick<Endpoint<never, unknown>, "method" | "path" | "repeatable">;

/** A list query with its paging defaults filled in (see `paging.ts`). */
type Resolved<Q> = Q & ResolvedListOptions;

/** The paging part of a list query, as both list endpoints send it. */
function pageQuery(query: Resolved<{ pageIndex: number }>): Record<string, string | number> {
  return { limit: query.limit, order: query.order, orderBy: query.orderBy, pageIndex: query.pageIndex };
}

/** The endpoints, by operation. */
export const ENDPOINTS = {
  /** Creates a new key each time: never repeated unless the server surely did not see it. */
  createAccessKey: {
    method: "POST",
    path: "/access-key",
    repeatable: false,
    build: (input) => ({
      body: { name: input.name, type: input.type, permissions: input.permissions },
    }),
    decode: decodeCreatedAccessKey,
  } satisfies Endpoint<CreateAccessKeyInput, CreatedAccessKey>,

  listAccessKeys: {
    method: "GET",
    path: "/access-key",
    repeatable: true,
    build: (query) => ({
      query: { ...pageQuery(query), accessKey: query.accessKey },
      // The filter value is a key value: keep it out of errors.
      secrets: query.accessKey === undefined ? [] : [query.accessKey],
    }),
    decode: decodePage(decodeAccessKeyRecord),
  } satisfies Endpoint<Resolved<ListAccessKeysQuery>, Page<AccessKeyRecord>>,

  /** The key's record; 404 when no such key exists. */
  getAccessKeyPermissions: {
    method: "GET",
    path: "/access-key/{accessKey}/permissions",
    repeatable: true,
    build: (accessKey) => ({ params: { accessKey } }),
    decode: (body) => decodeAccessKeyRecord(body),
  } satisfies Endpoint<string, AccessKeyRecord>,

  /** Sends the full lists every time, so applying it twice leaves the same state. */
  updateAccessKeyPermissions: {
    method: "POST",
    path: "/access-key/{accessKey}/permissions",
    repeatable: true,
    build: ({ accessKey, permissions }) => ({
      params: { accessKey },
      body: { send: permissions.send, receive: permissions.receive, resources: permissions.resources },
    }),
    decode: ignoreBody,
  } satisfies Endpoint<{ accessKey: string; permissions: Permissions }, void>,

  /**
   * Whether the key is valid. `200 {status:false}` and 401/403/404 all mean "not valid" (servers
   * differ); a server error or network failure throws, because it says nothing about the key.
   */
  verifyAccessKey: {
    method: "GET",
    path: "/access/verify/{accessKey}",
    repeatable: true,
    build: (accessKey) => ({ params: { accessKey } }),
    decode: decodeVerify,
    answers: { statuses: new Set([401, 403, 404]), value: false },
  } satisfies Endpoint<string, boolean>,

  /**
   * Each call generates a new pair, but only the last pair returned matters to the caller: a repeat
   * after a lost response replaces a pair nobody ever saw.
   */
  rotateServiceKeyPair: {
    method: "PUT",
    path: "/access/service-key-pair",
    repeatable: true,
    build: (accessKey) => ({ body: { access_key: accessKey }, secrets: [accessKey] }),
    decode: decodeServiceKeyPair,
  } satisfies Endpoint<string, ServiceKeyPair>,

  listWorkspaces: {
    method: "GET",
    path: "/workspace",
    repeatable: true,
    build: (query) => ({
      query: { ...pageQuery(query), name: query.name, id: query.id },
    }),
    decode: decodePage(decodeWorkspaceRecord),
  } satisfies Endpoint<Resolved<ListWorkspacesQuery>, Page<WorkspaceRecord>>,

  /**
   * Creates a new workspace each time (the API allows duplicate names): never repeated blindly. The
   * API answers with a message only, no id. `parentId` is sent only when it is positive (a top-level
   * workspace has none).
   */
  createWorkspace: {
    method: "POST",
    path: "/workspace",
    repeatable: false,
    build: (input) => {
      const parentId = input.parentId ?? 0;
      return { body: parentId > 0 ? { name: input.name, parentId } : { name: input.name } };
    },
    decode: ignoreBody,
  } satisfies Endpoint<CreateWorkspaceInput, void>,
} as const;
