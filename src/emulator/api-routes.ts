/** The eight operations of the configuration API, as handlers over the {@link Broker}. */
import type { Broker } from "./broker";
import { toAccessKeyRecord } from "./broker";
import type { Reply } from "./http";
import { pageOf, type Sortable } from "./paging";
import { Router } from "./router";
import {
  type ListQuery,
  optionalQueryId,
  optionalQueryString,
  parseCreateAccessKey,
  parseCreateWorkspace,
  parseListQuery,
  parsePermissionsInput,
  parseServiceKeyPairRequest,
} from "./validation";

/** What an API handler gets: the request already authenticated, routed and its body parsed. */
export interface ApiContext {
  broker: Broker;
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  body: unknown;
}

/** An API handler: synchronous, since the store is. Throws an ApiError for a 4xx. */
export type ApiHandler = (context: ApiContext) => Reply;

function param(context: ApiContext, name: string): string {
  return context.params[name] ?? "";
}

function page(items: readonly Sortable[], list: ListQuery): Reply {
  const results = pageOf(items, list);
  return { status: 200, body: { resultsLength: results.length, results } };
}

const createAccessKey: ApiHandler = ({ broker, body }) => {
  const key = broker.createAccessKey(parseCreateAccessKey(body));
  const created: Record<string, unknown> = { accessKey: key.key, accessKeyId: String(key.id) };
  if (key.keyPair) {
    created.service_key_pair = { public_key: key.keyPair.publicKey, private_key: key.keyPair.privateKey };
  }
  return { status: 201, body: created };
};

const listAccessKeys: ApiHandler = ({ broker, query }) => {
  const list = parseListQuery(query);
  const value = optionalQueryString(query, "accessKey");
  const records = broker.accessKeyRecords().filter((record) => value === undefined || record.key === value);
  return page(records, list);
};

const getPermissions: ApiHandler = (context) => {
  const key = context.broker.requireKeyByValue(param(context, "accessKey"), "the path parameter accessKey");
  return { status: 200, body: toAccessKeyRecord(key) };
};

const updatePermissions: ApiHandler = (context) => {
  const key = context.broker.requireKeyByValue(param(context, "accessKey"), "the path parameter accessKey");
  context.broker.updatePermissions(key, parsePermissionsInput(context.body, "body"));
  return { status: 200, body: { message: "Permissions updated" } };
};

const verifyAccessKey: ApiHandler = ({ broker, params }) => {
  const value = params.accessKey ?? "";
  return { status: 200, body: { status: broker.store.accessKeyByValue(value) !== undefined } };
};

const updateServiceKeyPair: ApiHandler = ({ broker, body }) => {
  const { accessKey } = parseServiceKeyPairRequest(body);
  const key = broker.requireKeyByValue(accessKey, "body.access_key");
  const pair = broker.rotateKeyPair(key, "body.access_key");
  return { status: 200, body: { public_key: pair.publicKey, private_key: pair.privateKey } };
};

const listWorkspaces: ApiHandler = ({ broker, query }) => {
  const list = parseListQuery(query);
  const name = optionalQueryString(query, "name");
  const id = optionalQueryId(query, "id");
  const records = broker
    .workspaceRecords()
    .filter(
      (record) => (name === undefined || record.name === name) && (id === undefined || record.id === id),
    );
  return page(records, list);
};

const createWorkspace: ApiHandler = ({ broker, body }) => {
  broker.createWorkspace(parseCreateWorkspace(body));
  return { status: 201, body: { message: "Workspace created" } };
};

/** The API's routes, relative to `/v1`. */
export const apiRouter = new Router<ApiHandler>([
  { method: "POST", template: "/access-key", handler: createAccessKey },
  { method: "GET", template: "/access-key", handler: listAccessKeys },
  { method: "GET", template: "/access-key/{accessKey}/permissions", handler: getPermissions },
  { method: "POST", template: "/access-key/{accessKey}/permissions", handler: updatePermissions },
  { method: "GET", template: "/access/verify/{accessKey}", handler: verifyAccessKey },
  { method: "PUT", template: "/access/service-key-pair", handler: updateServiceKeyPair },
  { method: "GET", template: "/workspace", handler: listWorkspaces },
  { method: "POST", template: "/workspace", handler: createWorkspace },
]);
