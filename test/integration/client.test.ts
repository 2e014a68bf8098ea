/**
 * The client against the emulator over real HTTP: every endpoint, paging, filters, validation errors,
 * authentication errors, and the contract (openapi.yaml) of every request and response.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import {
  BrokerClient,
  type AccessKeyRecord,
  type CreateAccessKeyInput,
  type ListOptions,
} from "../../src/client";
import { type EmulatorControls, type EmulatorExchange, type EmulatorHandle } from "../../src/emulator";
import { STACK_SETTING_NAMES } from "../../src/settings/connection";
import { apiRejection, testClients } from "../support/client";
import { exchangeProblems, startControlledEmulator } from "../support/emulator";

let emulator: EmulatorHandle;
let controls: EmulatorControls;
let exchanges: EmulatorExchange[];
let client: BrokerClient;
/** Clients of the emulator with fast backoff (the retry policy is unit-tested with exact delays). */
const { clientOf, closeAll } = testClients(
  () => emulator,
  { settingNames: STACK_SETTING_NAMES },
  { baseDelayMs: 5, maxDelayMs: 50 },
);

beforeEach(async () => {
  exchanges = [];
  ({ emulator, controls } = await startControlledEmulator({
    inspect: (exchange) => exchanges.push(exchange),
  }));
  client = clientOf();
});

afterEach(async () => {
  await closeAll();
  await emulator.close();
});

/** Problems of every recorded exchange with the contract: request (path, query, body) and response. */
function contractProblems(): string[] {
  // An inspect hook that recorded nothing would make this check vacuous.
  if (exchanges.length === 0) return ["no exchange was recorded"];
  return exchanges.flatMap((exchange) => exchangeProblems(exchange, true));
}

async function collect<T>(iterator: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterator) items.push(item);
  return items;
}

/** Runs `task` over `items` with at most `width` at a time. */
async function inBatches<T, R>(
  items: readonly T[],
  width: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += width)
    results.push(...(await Promise.all(items.slice(i, i + width).map(task))));
  return results;
}

describe("every endpoint through the client", () => {
  it("creates, reads, updates, verifies and rotates access keys", async () => {
    const account = await client.createAccessKey({
      name: "ci",
      type: "ACCOUNT",
      permissions: { send: ["orders/*"] },
    });
    expect(account.accessKeyId).toEqual(expect.any(Number));
    expect(account.serviceKeyPair).toBeUndefined();

    const service = await client.createAccessKey({ name: "app", type: "SERVICE", permissions: {} });
    expect(service.serviceKeyPair?.publicKey).toBe(await controls.publicKeyOf(service.accessKeyId));

    const record = await client.getAccessKeyPermissions(account.accessKey);
    expect(record).toEqual({
      id: account.accessKeyId,
      name: "ci",
      key: account.accessKey,
      type: "ACCOUNT",
      permissions: { send: ["orders/*"], receive: [], resources: {} },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
    });

    const desired = { send: ["a/b"], receive: ["c/*"], resources: { note: "x" } };
    await client.updateAccessKeyPermissions(service.accessKey, desired);
    expect((await client.getAccessKeyPermissions(service.accessKey)).permissions).toEqual(desired);

    await expect(client.verifyAccessKey(service.accessKey)).resolves.toBe(true);
    await expect(client.verifyAccessKey("bka_does_not_exist")).resolves.toBe(false);

    const pair = await client.rotateServiceKeyPair(service.accessKey);
    expect(pair.publicKey).not.toBe(service.serviceKeyPair?.publicKey);
    expect(pair.publicKey).toBe(await controls.publicKeyOf(service.accessKeyId));

    expect(await client.findAccessKeyById(service.accessKeyId)).toMatchObject({
      name: "app",
      type: "SERVICE",
    });
    await expect(client.findAccessKeyById(999_999)).resolves.toBeUndefined();
    expect(contractProblems()).toEqual([]);
  });

  it("creates and finds workspaces, nested ones included", async () => {
    const parent = await client.createWorkspaceAndFind({ name: "orders" });
    expect(parent).toMatchObject({ name: "orders", parentId: 0, path: "/orders", children: [] });
    const child = await client.createWorkspaceAndFind({ name: "eu", parentId: parent.id });
    expect(child).toMatchObject({ name: "eu", parentId: parent.id, path: "/orders/eu" });

    expect((await client.getWorkspace(parent.id))?.children.map((c) => c.id)).toEqual([child.id]);
    await expect(client.getWorkspace(999_999)).resolves.toBeUndefined();

    await client.createWorkspace({ name: "plain" });
    const [plain] = await collect(client.workspaces({ name: "plain" }));
    expect(plain).toMatchObject({ name: "plain", parentId: 0 });
    expect(contractProblems()).toEqual([]);
  });

  it("tells a new workspace apart from existing ones with the same name", async () => {
    const first = await client.createWorkspaceAndFind({ name: "dup" });
    const second = await client.createWorkspaceAndFind({ name: "dup" });
    expect(second.id).not.toBe(first.id);
    expect((await controls.stats()).workspaces).toBe(2);
  });

  it("creates access keys once, reading the record back", async () => {
    const { created, record, recovered } = await client.createAccessKeyOnce({
      name: "svc",
      type: "SERVICE",
      permissions: { receive: ["x/*"] },
    });
    expect(recovered).toBe(false);
    expect(record).toMatchObject({
      id: created.accessKeyId,
      key: created.accessKey,
      permissions: { receive: ["x/*"] },
    });
    expect(created.serviceKeyPair?.publicKey).toBe(await controls.publicKeyOf(created.accessKeyId));
  });
});

describe("paging", () => {
  const KEYS = 250;

  async function seedKeys(): Promise<AccessKeyRecord[]> {
    const inputs: CreateAccessKeyInput[] = Array.from({ length: KEYS }, (_, i) => ({
      name: `key-${String(KEYS - i).padStart(3, "0")}`,
      type: i % 5 === 0 ? "SERVICE" : "ACCOUNT",
      permissions: {},
    }));
    await inBatches(inputs, 16, (input) => client.createAccessKey(input));
    return collect(client.accessKeys());
  }

  it("reads 250 keys (and the admin key) across pages, in both orders", async () => {
    const ascending = await seedKeys();
    expect(ascending).toHaveLength(KEYS + 1);
    expect(new Set(ascending.map((k) => k.id)).size).toBe(KEYS + 1);
    const times = ascending.map((k) => Date.parse(k.createdAt));
    expect(times).toEqual([...times].sort((a, b) => a - b));

    const descending = await collect(client.accessKeys({ order: "DESC" }));
    expect(descending.map((k) => k.id)).toEqual(ascending.map((k) => k.id).reverse());

    const byName = await collect(client.accessKeys({ orderBy: "name", limit: 7 }));
    const names = byName.map((k) => k.name);
    expect(names).toEqual([...names].sort());
    expect(names).toHaveLength(KEYS + 1);
  });

  it("asks for pages until a short one: 3 requests for 251 keys at 100 per page", async () => {
    await seedKeys();
    await controls.clearRequests();
    await collect(client.accessKeys());
    const lists = (await controls.requests()).filter((r) => r.route === "GET /access-key");
    expect(lists).toHaveLength(3);
  });

  it("reads a single page with its own limit and index", async () => {
    const all = await seedKeys();
    const page = await client.listAccessKeys({ pageIndex: 2, limit: 10 });
    expect(page.resultsLength).toBe(10);
    expect(page.results.map((k) => k.id)).toEqual(all.slice(20, 30).map((k) => k.id));
  });

  it("filters keys by value", async () => {
    const all = await seedKeys();
    const target = all[42];
    const page = await client.listAccessKeys({ pageIndex: 0, accessKey: target?.key ?? "" });
    expect(page.results).toEqual([target]);
  });

  it("pages workspaces and filters them by name and id", async () => {
    const names = Array.from({ length: 120 }, (_, i) => `ws-${i % 3}`);
    await inBatches(names, 16, (name) => client.createWorkspace({ name }));
    const all = await collect(client.workspaces());
    expect(all).toHaveLength(120);
    const options: ListOptions = { limit: 13, order: "DESC", orderBy: "name" };
    const named = await collect(client.workspaces({ ...options, name: "ws-1" }));
    expect(named).toHaveLength(40);
    expect(named.every((w) => w.name === "ws-1")).toBe(true);
    const one = all[77];
    expect(await collect(client.workspaces({ id: one?.id ?? 0 }))).toEqual([one]);
    expect(contractProblems()).toEqual([]);
  });
});

describe("validation errors surface as BrokerApiError 400 with the field", () => {
  const cases: [string, (c: BrokerClient) => Promise<unknown>, string][] = [
    ["limit 0", (c) => c.listAccessKeys({ pageIndex: 0, limit: 0 }), "query.limit"],
    ["limit 101", (c) => c.listWorkspaces({ pageIndex: 0, limit: 101 }), "query.limit"],
    ["a negative page index", (c) => c.listAccessKeys({ pageIndex: -1 }), "query.pageIndex"],
    ["a fractional page index", (c) => c.listWorkspaces({ pageIndex: 1.5 }), "query.pageIndex"],
    ["an unknown order", (c) => c.listAccessKeys({ pageIndex: 0, order: "UP" as "ASC" }), "query.order"],
    [
      "an unknown sort field",
      (c) => c.listWorkspaces({ pageIndex: 0, orderBy: "size" as "name" }),
      "query.orderBy",
    ],
    ["a negative workspace id filter", (c) => c.listWorkspaces({ pageIndex: 0, id: -1 }), "query.id"],
    [
      "an empty key name",
      (c) => c.createAccessKey({ name: "", type: "ACCOUNT", permissions: {} }),
      "body.name",
    ],
    [
      "an unknown key type",
      (c) => c.createAccessKey({ name: "n", type: "ROOT" as "ACCOUNT", permissions: {} }),
      "body.type",
    ],
    [
      "an event path with whitespace",
      (c) => c.createAccessKey({ name: "n", type: "ACCOUNT", permissions: { send: ["a b"] } }),
      "body.permissions.send[0]",
    ],
    ["a workspace name with a slash", (c) => c.createWorkspace({ name: "a/b" }), "body.name"],
  ];

  it.each(cases)("%s", async (_, call, field) => {
    const error = await apiRejection(call(client));
    expect(error).toMatchObject({
      code: "BROKER_INVALID_REQUEST",
      status: 400,
      field,
      serverCode: "validation_failed",
      attempts: 1,
      outcomeUnknown: false,
    });
    expect(error.message).toContain(`the broker API rejected ${field}; correct that input`);
    expect(error.message).toMatch(/^(GET|POST|PUT) \/[a-z-/{}]+ failed: 400 Bad Request: /);
  });

  it("rejects a permissions update with a bad path, naming the field", async () => {
    const { accessKey } = await client.createAccessKey({ name: "k", type: "ACCOUNT", permissions: {} });
    const error = await apiRejection(
      client.updateAccessKeyPermissions(accessKey, { send: [], receive: ["*"], resources: {} }),
    );
    expect(error).toMatchObject({ status: 400, field: "body.receive[0]" });
  });
});

describe("schema-valid requests the broker cannot carry out surface as 404 or 409 with the field", () => {
  it("explains a create under an unknown parent workspace (404)", async () => {
    const error = await apiRejection(client.createWorkspace({ name: "a", parentId: 999 }));
    expect(error).toMatchObject({
      code: "BROKER_NOT_FOUND",
      status: 404,
      field: "body.parentId",
      serverCode: "not_found",
      attempts: 1,
    });
    expect(error.message).toMatch(
      /^POST \/workspace failed: 404 Not Found: .+ — the object that body\.parentId names does not exist on the broker; correct that input$/,
    );
  });

  it("refuses to rotate the pair of an ACCOUNT key (409)", async () => {
    const { accessKey } = await client.createAccessKey({ name: "k", type: "ACCOUNT", permissions: {} });
    const error = await apiRejection(client.rotateServiceKeyPair(accessKey));
    expect(error).toMatchObject({
      code: "BROKER_CONFLICT",
      status: 409,
      field: "body.access_key",
      serverCode: "conflict",
      pathTemplate: "/access/service-key-pair",
    });
    expect(error.message).toContain(
      "the request conflicts with the current state of the object that body.access_key names; correct that input",
    );
    expect(error.message).not.toContain(accessKey);
  });
});

describe("authentication and missing objects", () => {
  it("explains a 401: the API key is not an ACCOUNT key the broker knows", async () => {
    const error = await apiRejection(
      clientOf({ apiKey: "bka_unknown_admin" }).listWorkspaces({ pageIndex: 0 }),
    );
    expect(error).toMatchObject({ code: "BROKER_UNAUTHORIZED", status: 401, serverCode: "unauthorized" });
    expect(error.message).toMatch(
      /^GET \/workspace failed: 401 Unauthorized: .+ — check that broker:apiKey \(or BROKER_API_KEY\) holds an ACCOUNT access key$/,
    );
  });

  it("explains a 403: a SERVICE key cannot call the API", async () => {
    const { accessKey } = await client.createAccessKey({ name: "svc", type: "SERVICE", permissions: {} });
    const error = await apiRejection(
      clientOf({ apiKey: accessKey }).createAccessKey({ name: "x", type: "ACCOUNT", permissions: {} }),
    );
    expect(error).toMatchObject({ code: "BROKER_FORBIDDEN", status: 403, outcomeUnknown: false });
    expect(error.message).toMatch(
      /^POST \/access-key failed: 403 Forbidden: .+ — the API key was refused for this operation: is broker:apiKey \(or BROKER_API_KEY\) a SERVICE key\? use an ACCOUNT key$/,
    );
    expect((await controls.stats()).accessKeys).toBe(2);
  });

  it("reports an unknown key as BROKER_NOT_FOUND, and as not valid", async () => {
    const error = await apiRejection(client.getAccessKeyPermissions("bka_never_created"));
    expect(error).toMatchObject({
      code: "BROKER_NOT_FOUND",
      status: 404,
      pathTemplate: "/access-key/{accessKey}/permissions",
    });
    await expect(client.verifyAccessKey("bka_never_created")).resolves.toBe(false);
    await expect(
      client.updateAccessKeyPermissions("bka_never_created", { send: [], receive: [], resources: {} }),
    ).rejects.toMatchObject({ code: "BROKER_NOT_FOUND" });
  });

  it("reports a key removed behind its back as not found", async () => {
    const { accessKey, accessKeyId } = await client.createAccessKey({
      name: "gone",
      type: "ACCOUNT",
      permissions: {},
    });
    await controls.removeAccessKey(accessKeyId);
    await expect(client.getAccessKeyPermissions(accessKey)).rejects.toMatchObject({
      code: "BROKER_NOT_FOUND",
    });
    await expect(client.findAccessKeyById(accessKeyId)).resolves.toBeUndefined();
  });
});
