/** `getAccessKey`, `getAccessKeys` and `verifyAccessKey`: keys made elsewhere, and whether a key is valid. */
import type { AccessKeyRecord, AccessKeyType, Permissions } from "../../client/types";
import type { ById, ObjectInfo, RawArgs } from "./args";
import { oneOf, optionalId, optionalKeyType, optionalName, optionalString, rejectUnknownArgs } from "./args";
import { LookupArgumentError } from "./errors";
import { lookupClient, type LookupContext } from "./context";
import { accessKeyMatches, describeKeyLookup, exactlyOne, found, type AccessKeyFilter } from "./match";

/** The token of {@link getAccessKey}. */
export const GET_ACCESS_KEY = "broker:index:getAccessKey";
/** The token of {@link getAccessKeys}. */
export const GET_ACCESS_KEYS = "broker:index:getAccessKeys";
/** The token of {@link verifyAccessKey}. */
export const VERIFY_ACCESS_KEY = "broker:index:verifyAccessKey";

/** How to find one access key: by `id`, or by `name` (exactly one of them), optionally of a `type`. */
export interface GetAccessKeyArgs extends ById {
  /** The key's name, exactly. */
  readonly name?: string | undefined;
  /** Only a key of this type. */
  readonly type?: AccessKeyType | undefined;
}

/** An access key as the list returns it: everything but its value. */
export interface AccessKeyInfo extends ObjectInfo {
  readonly type: AccessKeyType;
  /** Its `send`/`receive` event paths and resource permissions, as the server holds them. */
  readonly permissions: Permissions;
}

/** One access key with its value: a secret in both doors. */
export interface GetAccessKeyResult extends AccessKeyInfo {
  /** The access key value: a credential. */
  readonly accessKey: string;
}

/** Which access keys to list: absent filters list every key. */
export type GetAccessKeysArgs = AccessKeyFilter;

/** Every key that matched, without values, in the API's order (creation). */
export interface GetAccessKeysResult {
  readonly accessKeys: readonly AccessKeyInfo[];
}

/** The key to verify. */
export interface VerifyAccessKeyArgs {
  /** The access key value; it never appears in an error or a log. */
  readonly accessKey: string;
}

/** Whether the key is valid (see `docs/decisions.md` for what counts as valid). */
export interface VerifyAccessKeyResult {
  readonly valid: boolean;
}

function info(record: AccessKeyRecord): AccessKeyInfo {
  const { send, receive, resources } = record.permissions;
  return {
    id: record.id,
    name: record.name,
    type: record.type,
    permissions: { send: [...send], receive: [...receive], resources: { ...resources } },
    createdAt: record.createdAt,
  };
}

/** Checks the arguments of {@link getAccessKey}, before any request. */
export function decodeGetAccessKeyArgs(args: RawArgs): GetAccessKeyArgs {
  rejectUnknownArgs(GET_ACCESS_KEY, args, ["id", "name", "type"]);
  oneOf(GET_ACCESS_KEY, args, "id", "name");
  return {
    id: optionalId(GET_ACCESS_KEY, args, "id"),
    name: optionalName(GET_ACCESS_KEY, args, "name", "accessKey"),
    type: optionalKeyType(GET_ACCESS_KEY, args, "type"),
  };
}

/** Checks the arguments of {@link getAccessKeys}, before any request. */
export function decodeGetAccessKeysArgs(args: RawArgs): GetAccessKeysArgs {
  rejectUnknownArgs(GET_ACCESS_KEYS, args, ["name", "type", "eventPathPrefix"]);
  const eventPathPrefix = optionalString(GET_ACCESS_KEYS, args, "eventPathPrefix");
  if (eventPathPrefix === "")
    throw new LookupArgumentError(
      GET_ACCESS_KEYS,
      "eventPathPrefix must not be empty; leave it out to list every key",
    );
  return {
    name: optionalName(GET_ACCESS_KEYS, args, "name", "accessKey"),
    type: optionalKeyType(GET_ACCESS_KEYS, args, "type"),
    eventPathPrefix,
  };
}

/** Checks the arguments of {@link verifyAccessKey}, before any request; no message holds the key. */
export function decodeVerifyAccessKeyArgs(args: RawArgs): VerifyAccessKeyArgs {
  rejectUnknownArgs(VERIFY_ACCESS_KEY, args, ["accessKey"]);
  const accessKey = args.accessKey;
  if (typeof accessKey !== "string")
    throw new LookupArgumentError(VERIFY_ACCESS_KEY, "accessKey must be a string");
  if (accessKey.trim() === "")
    throw new LookupArgumentError(VERIFY_ACCESS_KEY, "accessKey must not be empty");
  return { accessKey };
}

/**
 * The access key with this id, or with this name (and type). Fails when there is none (never an
 * empty result), and when several keys share the name (the API allows it): look it up by id.
 */
export async function getAccessKey(context: LookupContext, raw: RawArgs): Promise<GetAccessKeyResult> {
  const args = decodeGetAccessKeyArgs(raw);
  const client = lookupClient(GET_ACCESS_KEY, context);
  let record: AccessKeyRecord;
  if (args.id !== undefined) {
    const byId = await client.findAccessKeyById(args.id);
    const match = byId !== undefined && accessKeyMatches(byId, { type: args.type }) ? byId : undefined;
    const ofType = args.type === undefined ? "" : ` of type ${args.type}`;
    record = found(GET_ACCESS_KEY, match, `access key with id ${args.id}${ofType}`, client.baseUrl);
  } else {
    const name = args.name ?? "";
    const matches: AccessKeyRecord[] = [];
    for await (const key of client.accessKeys())
      if (accessKeyMatches(key, { name, type: args.type })) matches.push(key);
    record = exactlyOne(GET_ACCESS_KEY, matches, describeKeyLookup(name, args.type), client.baseUrl);
  }
  return { ...info(record), accessKey: record.key };
}

/** Every access key matching the filters (without its value), paged through; an empty list when none matches. */
export async function getAccessKeys(context: LookupContext, raw: RawArgs): Promise<GetAccessKeysResult> {
  const args = decodeGetAccessKeysArgs(raw);
  const client = lookupClient(GET_ACCESS_KEYS, context);
  const accessKeys: AccessKeyInfo[] = [];
  for await (const key of client.accessKeys()) if (accessKeyMatches(key, args)) accessKeys.push(info(key));
  return { accessKeys };
}

/**
 * Whether the broker accepts the key: `true` when it answers `{status: true}`; `false` when it
 * answers `{status: false}` or 401/403/404 (an unknown or revoked key). Other failures are errors.
 */
export async function verifyAccessKey(context: LookupContext, raw: RawArgs): Promise<VerifyAccessKeyResult> {
  const args = decodeVerifyAccessKeyArgs(raw);
  const client = lookupClient(VERIFY_ACCESS_KEY, context);
  return { valid: await client.verifyAccessKey(args.accessKey) };
}
