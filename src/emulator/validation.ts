/**
 * Input validation for the API and the controls: one place decides what is valid, and every failure
 * is a 400 `validation_failed` that names the field (`query.limit`, `body.permissions.send[2]`).
 *
 * Messages never echo the submitted value: it could be a key.
 */
import { invalid } from "./errors";
import { ACCESS_KEY_TYPES, type AccessKeyType, type PermissionsInput, type PermissionsMode } from "./types";

/**
 * The event path grammar (our choice; the API shows only the `<name>/*` form): `/`-separated
 * non-empty segments without whitespace or control characters, and `*` only as the whole last
 * segment after at least one other, at most {@link MAX_EVENT_PATH_LENGTH} code points. `openapi.yaml`
 * carries the same pattern and limit (tests keep them equal).
 * The control characters (Unicode category Cc) are written as the ranges U+0000–U+001F and
 * U+007F–U+009F rather than `\p{Cc}`, which Python's `re` (used by contract fuzzers such as
 * Schemathesis) cannot read, so that a fuzzer can generate valid paths from the contract.
 */
export const EVENT_PATH_PATTERN =
  "^[^\\s/*\\x00-\\x1f\\x7f-\\x9f]+(?:/[^\\s/*\\x00-\\x1f\\x7f-\\x9f]+)*(?:/\\*)?$";

const EVENT_PATH = new RegExp(EVENT_PATH_PATTERN, "u");

/** Longest accepted event path, in code points (as JSON Schema counts). */
export const MAX_EVENT_PATH_LENGTH = 1024;

/** Longest accepted name of an access key or workspace, in code points (as JSON Schema counts). */
export const MAX_NAME_LENGTH = 200;

/** Largest accepted `limit` of a list operation. */
export const MAX_PAGE_LIMIT = 100;

const ORDERS = ["ASC", "DESC", "asc", "desc"] as const;
const ORDER_BY = ["name", "createdAt"] as const;

/** Paging and ordering of a list operation, normalised. */
export interface ListQuery {
  pageIndex: number;
  limit: number;
  order: "asc" | "desc";
  orderBy: (typeof ORDER_BY)[number];
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "object":
      return "an object";
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "boolean":
      return "a boolean";
    default:
      return typeof value;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Accepts a JSON object whose keys are all in `allowed`; an absent value reads as "is required". */
export function expectObject(
  value: unknown,
  field: string,
  allowed: readonly string[],
): Record<string, unknown> {
  if (value === undefined) throw invalid(field, "is required: send a JSON object");
  if (!isPlainObject(value)) throw invalid(field, `must be a JSON object, not ${describe(value)}`);
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw invalid(`${field}.${key}`, `is not a known field (known: ${allowed.join(", ")})`);
    }
  }
  return value;
}

// JSON Schema's maxLength counts code points, not UTF-16 units: count the same way as openapi.yaml.
function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** Accepts a non-empty string of at most {@link MAX_NAME_LENGTH} code points; optionally without `/`. */
export function expectName(value: unknown, field: string, options: { allowSlash: boolean }): string {
  if (value === undefined) throw invalid(field, "is required");
  if (typeof value !== "string") throw invalid(field, `must be a string, not ${describe(value)}`);
  if (value.length === 0) throw invalid(field, "must not be empty");
  if (codePoints(value) > MAX_NAME_LENGTH) {
    throw invalid(field, `must be at most ${MAX_NAME_LENGTH} characters long`);
  }
  if (!options.allowSlash && value.includes("/")) throw invalid(field, 'must not contain "/"');
  return value;
}

/** Accepts one of `allowed`, exactly as spelled. */
export function expectEnum<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  if (value === undefined) throw invalid(field, "is required");
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
    throw invalid(field, `must be one of ${allowed.join(", ")}`);
  }
  return value as T;
}

/** Accepts a JSON integer in `[min, max]`. */
export function expectInteger(value: unknown, field: string, min: number, max?: number): number {
  if (value === undefined) throw invalid(field, "is required");
  const range = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
  if (
    typeof value !== "number" ||
    !Number.isInteger(value) ||
    value < min ||
    (max !== undefined && value > max)
  ) {
    throw invalid(field, `must be an integer ${range}`);
  }
  return value;
}

/** Accepts a JSON number in `[min, max]`. */
export function expectNumber(value: unknown, field: string, min: number, max: number): number {
  if (value === undefined) throw invalid(field, "is required");
  if (typeof value !== "number" || value < min || value > max) {
    throw invalid(field, `must be a number from ${min} to ${max}`);
  }
  return value;
}

/** Accepts a non-empty string. */
export function expectNonEmptyString(value: unknown, field: string): string {
  if (value === undefined) throw invalid(field, "is required");
  if (typeof value !== "string") throw invalid(field, `must be a string, not ${describe(value)}`);
  if (value.length === 0) throw invalid(field, "must not be empty");
  return value;
}

/** Whether `path` follows the event path grammar ({@link EVENT_PATH_PATTERN}) within {@link MAX_EVENT_PATH_LENGTH}. */
export function isEventPath(path: string): boolean {
  return EVENT_PATH.test(path) && codePoints(path) <= MAX_EVENT_PATH_LENGTH;
}

function expectEventPaths(value: unknown, field: string): string[] {
  if (!Array.isArray(value)) throw invalid(field, `must be an array of event paths, not ${describe(value)}`);
  return value.map((item: unknown, index) => {
    const itemField = `${field}[${index}]`;
    if (typeof item !== "string") throw invalid(itemField, `must be a string, not ${describe(item)}`);
    if (!isEventPath(item)) {
      throw invalid(
        itemField,
        `must be an event path of at most ${MAX_EVENT_PATH_LENGTH} characters: non-empty "/"-separated segments without whitespace, with "*" only as the whole last segment after another one (orders/*)`,
      );
    }
    return item;
  });
}

/** Accepts a permissions object: `send`/`receive` optional event path arrays, `resources` an optional object. */
export function parsePermissionsInput(value: unknown, field: string): PermissionsInput {
  const object = expectObject(value, field, ["send", "receive", "resources"]);
  const result: PermissionsInput = {};
  if (object.send !== undefined) result.send = expectEventPaths(object.send, `${field}.send`);
  if (object.receive !== undefined) result.receive = expectEventPaths(object.receive, `${field}.receive`);
  if (object.resources !== undefined) {
    if (!isPlainObject(object.resources)) {
      throw invalid(`${field}.resources`, `must be a JSON object, not ${describe(object.resources)}`);
    }
    result.resources = object.resources;
  }
  return result;
}

/** The body of `POST /access-key`. */
export interface CreateAccessKeyBody {
  name: string;
  type: AccessKeyType;
  permissions: PermissionsInput;
}

/** Validates the body of `POST /access-key`. */
export function parseCreateAccessKey(body: unknown): CreateAccessKeyBody {
  const object = expectObject(body, "body", ["name", "type", "permissions"]);
  return {
    name: expectName(object.name, "body.name", { allowSlash: true }),
    type: expectEnum(object.type, "body.type", ACCESS_KEY_TYPES),
    permissions: parsePermissionsInput(object.permissions, "body.permissions"),
  };
}

/** Validates the body of `POST /workspace`. `parentId` 0 means top level; existence is checked by the caller. */
export function parseCreateWorkspace(body: unknown): { name: string; parentId: number } {
  const object = expectObject(body, "body", ["name", "parentId"]);
  return {
    name: expectName(object.name, "body.name", { allowSlash: false }),
    parentId: object.parentId === undefined ? 0 : expectInteger(object.parentId, "body.parentId", 0),
  };
}

/** Validates the body of `PUT /access/service-key-pair`. */
export function parseServiceKeyPairRequest(body: unknown): { accessKey: string } {
  const object = expectObject(body, "body", ["access_key"]);
  return { accessKey: expectNonEmptyString(object.access_key, "body.access_key") };
}

/** Validates a workspace change sent to the controls (rename and/or move). */
export function parseWorkspacePatch(body: unknown): { name?: string; parentId?: number } {
  const object = expectObject(body, "body", ["name", "parentId"]);
  const patch: { name?: string; parentId?: number } = {};
  if (object.name !== undefined) patch.name = expectName(object.name, "body.name", { allowSlash: false });
  if (object.parentId !== undefined) patch.parentId = expectInteger(object.parentId, "body.parentId", 0);
  return patch;
}

/** Validates the settings sent to the controls. */
export function parseSettings(body: unknown): { permissionsMode: PermissionsMode } {
  const object = expectObject(body, "body", ["permissionsMode"]);
  return {
    permissionsMode: expectEnum(object.permissionsMode, "body.permissionsMode", ["replace", "merge"]),
  };
}

function singleQueryParam(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw invalid(`query.${name}`, "must be given once");
  return values[0];
}

function requiredQueryInteger(params: URLSearchParams, name: string, min: number, max?: number): number {
  const field = `query.${name}`;
  const raw = singleQueryParam(params, name);
  if (raw === undefined) throw invalid(field, "is required");
  // Decimal digits only: "1.0", "1e2" or " 1" are not integers as a query string spells them.
  const value = /^-?\d+$/.test(raw) ? Number(raw) : Number.NaN;
  return expectInteger(value, field, min, max);
}

/** Validates the paging and ordering parameters shared by both list operations. Unknown parameters are ignored. */
export function parseListQuery(params: URLSearchParams): ListQuery {
  const pageIndex = requiredQueryInteger(params, "pageIndex", 0);
  const limit = requiredQueryInteger(params, "limit", 1, MAX_PAGE_LIMIT);
  const order = expectEnum(singleQueryParam(params, "order"), "query.order", ORDERS);
  const orderBy = expectEnum(singleQueryParam(params, "orderBy"), "query.orderBy", ORDER_BY);
  return { pageIndex, limit, order: order === "ASC" || order === "asc" ? "asc" : "desc", orderBy };
}

/** An optional string filter of a list operation. */
export function optionalQueryString(params: URLSearchParams, name: string): string | undefined {
  return singleQueryParam(params, name);
}

/** An optional id filter of a list operation: a string of decimal digits. */
export function optionalQueryId(params: URLSearchParams, name: string): number | undefined {
  const raw = singleQueryParam(params, name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw invalid(`query.${name}`, "must be a string of decimal digits");
  return Number(raw);
}
