/** The access key endpoints: thin, typed wrappers around `request()`. */
import {
  decodeAccessKeyRecord,
  decodeCreatedAccessKey,
  decodePage,
  decodeServiceKeyPair,
  decodeVerify,
  ignoreBody,
} from "./decode";
import { ENDPOINTS } from "./endpoints";
import { isBrokerApiError } from "./errors";
import { listDefaults } from "./paging";
import { request, type RequestContext } from "./request";
import type {
  AccessKeyRecord,
  CreateAccessKeyInput,
  CreatedAccessKey,
  ListOptions,
  Page,
  Permissions,
  ServiceKeyPair,
} from "./types";

/** `POST /access-key`. Not repeatable: see `createAccessKeyOnce` for a create that survives lost responses. */
export function createAccessKey(ctx: RequestContext, input: CreateAccessKeyInput): Promise<CreatedAccessKey> {
  return request(ctx, {
    endpoint: ENDPOINTS.createAccessKey,
    body: { name: input.name, type: input.type, permissions: input.permissions },
    decode: decodeCreatedAccessKey,
  });
}

/** Query of `GET /access-key`. */
export type ListAccessKeysQuery = ListOptions & { pageIndex: number; accessKey?: string };

/** `GET /access-key`: one page. */
export function listAccessKeys(
  ctx: RequestContext,
  query: ListAccessKeysQuery,
): Promise<Page<AccessKeyRecord>> {
  return request(ctx, {
    endpoint: ENDPOINTS.listAccessKeys,
    query: { ...listDefaults(query), pageIndex: query.pageIndex, accessKey: query.accessKey },
    // The filter value is a key value: keep it out of errors.
    secrets: query.accessKey === undefined ? [] : [query.accessKey],
    decode: decodePage(decodeAccessKeyRecord),
  });
}

/** `GET /access-key/{accessKey}/permissions`: the key's record. 404 when no such key exists. */
export function getAccessKeyPermissions(ctx: RequestContext, accessKey: string): Promise<AccessKeyRecord> {
  return request(ctx, {
    endpoint: ENDPOINTS.getAccessKeyPermissions,
    params: { accessKey },
    decode: (body) => decodeAccessKeyRecord(body),
  });
}

/** `POST /access-key/{accessKey}/permissions` with the full desired lists. */
export async function updateAccessKeyPermissions(
  ctx: RequestContext,
  accessKey: string,
  permissions: Permissions,
): Promise<void> {
  await request(ctx, {
    endpoint: ENDPOINTS.updateAccessKeyPermissions,
    params: { accessKey },
    body: { send: permissions.send, receive: permissions.receive, resources: permissions.resources },
    decode: ignoreBody,
  });
}

/** Statuses with which a server may say "this key is not valid" (docs/decisions.md). */
const INVALID_KEY_STATUSES: ReadonlySet<number> = new Set([401, 403, 404]);

/**
 * `GET /access/verify/{accessKey}`: whether the key is valid. `200 {status:false}` and 401/403/404 all
 * mean "not valid"; a server error or network failure throws, because it says nothing about the key.
 */
export async function verifyAccessKey(ctx: RequestContext, accessKey: string): Promise<boolean> {
  try {
    return await request(ctx, {
      endpoint: ENDPOINTS.verifyAccessKey,
      params: { accessKey },
      decode: decodeVerify,
    });
  } catch (error) {
    if (isBrokerApiError(error) && INVALID_KEY_STATUSES.has(error.status)) return false;
    throw error;
  }
}

/** `PUT /access/service-key-pair`: a new key pair for a SERVICE key. */
export function rotateServiceKeyPair(ctx: RequestContext, accessKey: string): Promise<ServiceKeyPair> {
  return request(ctx, {
    endpoint: ENDPOINTS.rotateServiceKeyPair,
    body: { access_key: accessKey },
    secrets: [accessKey],
    decode: decodeServiceKeyPair,
  });
}
