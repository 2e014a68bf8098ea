/**
 * Minimal validation and normalisation of response bodies. The API is loosely described, so the
 * decoders check only what the client relies on, fill documented defaults, drop unknown fields, and
 * fix the API's inconsistencies (the create response's string `accessKeyId`).
 *
 * A decoder throws {@link ShapeError}; `request()` turns it into a `BROKER_BAD_RESPONSE` error. Shape
 * errors name the position of the problem, never the value (values can be credentials).
 */
import type {
  AccessKeyRecord,
  AccessKeyType,
  CreatedAccessKey,
  Page,
  Permissions,
  ServiceKeyPair,
  WorkspaceRecord,
} from "./types";
import { BrokerError } from "./errors";

/** A response body that does not have the expected shape. Internal: never escapes `request()`. */
export class ShapeError extends BrokerError {
  constructor(detail: string) {
    // Never leaves the client: `request()` reports it as a `BrokerApiError` of the same code.
    super("BROKER_BAD_RESPONSE", detail);
    this.name = "ShapeError";
  }
}

/** Turns a parsed JSON body into the value a call returns. */
export type Decoder<T> = (body: unknown) => T;

type Json = Record<string, unknown>;

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function object(value: unknown, where: string): Json {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ShapeError(`${where} is ${describe(value)}, expected an object`);
  }
  return value as Json;
}

function string(value: unknown, where: string): string {
  if (typeof value !== "string") throw new ShapeError(`${where} is ${describe(value)}, expected a string`);
  return value;
}

/** An integer id, also accepted as a numeric string (the API types `accessKeyId` as a string). */
function integer(value: unknown, where: string): number {
  const n = typeof value === "string" && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n)) {
    throw new ShapeError(`${where} is ${describe(value)}, expected an integer`);
  }
  return n;
}

function stringArray(value: unknown, where: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ShapeError(`${where} is ${describe(value)}, expected an array`);
  return value.map((item, i) => string(item, `${where}[${i}]`));
}

/** Permissions with all three members, whatever the server omitted. */
export function decodePermissions(value: unknown, where: string): Permissions {
  if (value === undefined || value === null) return { send: [], receive: [], resources: {} };
  const p = object(value, where);
  const resources =
    p["resources"] === undefined || p["resources"] === null
      ? {}
      : object(p["resources"], `${where}.resources`);
  return {
    send: stringArray(p["send"], `${where}.send`),
    receive: stringArray(p["receive"], `${where}.receive`),
    resources: { ...resources },
  };
}

function accessKeyType(value: unknown, where: string): AccessKeyType {
  const text = string(value, where).toUpperCase();
  if (text !== "ACCOUNT" && text !== "SERVICE") throw new ShapeError(`${where} is not ACCOUNT or SERVICE`);
  return text;
}

/** An access key record (list item or get-permissions response). */
export function decodeAccessKeyRecord(value: unknown, where = "body"): AccessKeyRecord {
  const r = object(value, where);
  return {
    id: integer(r["id"], `${where}.id`),
    name: string(r["name"], `${where}.name`),
    key: string(r["key"], `${where}.key`),
    type: accessKeyType(r["type"], `${where}.type`),
    permissions: decodePermissions(r["permissions"], `${where}.permissions`),
    createdAt: string(r["createdAt"], `${where}.createdAt`),
  };
}

/** A workspace record, children included. A missing `parentId` (or `null`) means top level: 0. */
export function decodeWorkspaceRecord(value: unknown, where = "body"): WorkspaceRecord {
  const r = object(value, where);
  const children = r["children"] === undefined || r["children"] === null ? [] : r["children"];
  if (!Array.isArray(children))
    throw new ShapeError(`${where}.children is ${describe(children)}, expected an array`);
  return {
    id: integer(r["id"], `${where}.id`),
    name: string(r["name"], `${where}.name`),
    path: string(r["path"], `${where}.path`),
    parentId:
      r["parentId"] === undefined || r["parentId"] === null ? 0 : integer(r["parentId"], `${where}.parentId`),
    createdAt: string(r["createdAt"], `${where}.createdAt`),
    children: children.map((child, i) => decodeWorkspaceRecord(child, `${where}.children[${i}]`)),
  };
}

/** A page of a list operation, each item decoded with `item`. */
export function decodePage<T>(item: (value: unknown, where: string) => T): Decoder<Page<T>> {
  return (body) => {
    const page = object(body, "body");
    const results = page["results"];
    if (!Array.isArray(results))
      throw new ShapeError(`body.results is ${describe(results)}, expected an array`);
    const decoded = results.map((r, i) => item(r, `body.results[${i}]`));
    // resultsLength counts this page only (docs/decisions.md); tolerate its absence, trust the array.
    const resultsLength =
      page["resultsLength"] === undefined
        ? decoded.length
        : integer(page["resultsLength"], "body.resultsLength");
    return { resultsLength, results: decoded };
  };
}

function decodeKeyPair(value: unknown, where: string): ServiceKeyPair {
  const pair = object(value, where);
  return {
    publicKey: string(pair["public_key"], `${where}.public_key`),
    privateKey: string(pair["private_key"], `${where}.private_key`),
  };
}

/** The create-access-key response; `accessKeyId` becomes a number. */
export const decodeCreatedAccessKey: Decoder<CreatedAccessKey> = (body) => {
  const r = object(body, "body");
  const created: CreatedAccessKey = {
    accessKey: string(r["accessKey"], "body.accessKey"),
    accessKeyId: integer(r["accessKeyId"], "body.accessKeyId"),
  };
  const pair = r["service_key_pair"];
  if (pair !== undefined && pair !== null)
    created.serviceKeyPair = decodeKeyPair(pair, "body.service_key_pair");
  return created;
};

/** The update-service-key-pair response. */
export const decodeServiceKeyPair: Decoder<ServiceKeyPair> = (body) => decodeKeyPair(body, "body");

/** The verify response's `status`. */
export const decodeVerify: Decoder<boolean> = (body) => {
  const status = object(body, "body")["status"];
  if (typeof status !== "boolean")
    throw new ShapeError(`body.status is ${describe(status)}, expected a boolean`);
  return status;
};

/**
 * Responses whose content the client does not use (`{message}` confirmations): any JSON or an empty
 * body is accepted; only a body that is not JSON at all is refused, by `request()` itself.
 */
export const ignoreBody: Decoder<undefined> = () => undefined;
