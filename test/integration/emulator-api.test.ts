/**
 * The emulator's /v1 API over real HTTP: every endpoint, every validation error, auth, HTTP-level
 * errors, paging, workspaces, key pairs and permission modes. Every exchange of this file is checked
 * against openapi.yaml (see afterEach).
 */
import { createPrivateKey, createPublicKey } from "node:crypto";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import type { EmulatorControls } from "../../src/emulator";
// The emulator imports nothing of the product; its tests take the limits from the domain model.
import { MAX_EVENT_PATH_LENGTH, MAX_NAME_LENGTH } from "../../src/model";
import {
  ApiCaller,
  listQuery,
  useCheckedEmulator,
  type CheckedEmulator,
  type CreatedKeyBody,
  type KeyRecord,
  type WorkspaceRecord,
} from "../support/emulator";

let checked: CheckedEmulator;
let api: ApiCaller;
let controls: EmulatorControls;

interface Page<T> {
  resultsLength: number;
  results: T[];
}

async function createKey(
  type: "ACCOUNT" | "SERVICE",
  name = `${type.toLowerCase()}-key`,
  permissions: object = {},
): Promise<CreatedKeyBody> {
  const response = await api.post("/access-key", { name, type, permissions });
  expect(response.status).toBe(201);
  return response.body as CreatedKeyBody;
}

async function keyRecord(value: string): Promise<KeyRecord> {
  const response = await api.get(`/access-key/${value}/permissions`);
  expect(response.status).toBe(200);
  return response.body as KeyRecord;
}

async function allWorkspaces(query: Record<string, string | number> = {}): Promise<WorkspaceRecord[]> {
  const response = await api.get("/workspace", { query: listQuery(query) });
  expect(response.status).toBe(200);
  return (response.body as Page<WorkspaceRecord>).results;
}

async function inBatches<T>(count: number, make: (index: number) => Promise<T>, batch = 25): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < count; start += batch) {
    const size = Math.min(batch, count - start);
    results.push(...(await Promise.all(Array.from({ length: size }, (_, offset) => make(start + offset)))));
  }
  return results;
}

function derivedPublicKey(privateKeyBase64: string): string {
  const privateKey = createPrivateKey({
    key: Buffer.from(privateKeyBase64, "base64"),
    format: "der",
    type: "pkcs8",
  });
  return createPublicKey(privateKey).export({ type: "spki", format: "der" }).toString("base64");
}

// Every response (and every accepted request) of each test must match openapi.yaml.
useCheckedEmulator((started) => ({ checked, api, controls } = started));

describe("access keys", () => {
  it("creates an ACCOUNT key: 201, a bka_ value, a string accessKeyId and no key pair", async () => {
    const created = await createKey("ACCOUNT", "deployer", { send: ["orders/*"] });
    expect(created.accessKey).toMatch(/^bka_[A-Za-z0-9_-]{43}$/);
    expect(created.accessKeyId).toMatch(/^\d+$/);
    expect(created.service_key_pair).toBeUndefined();
    const record = await keyRecord(created.accessKey);
    expect(record).toMatchObject({ id: Number(created.accessKeyId), name: "deployer", type: "ACCOUNT" });
  });

  it("creates a SERVICE key with an X25519 pair whose private key derives its public key", async () => {
    const created = await createKey("SERVICE");
    expect(created.accessKey).toMatch(/^bks_/);
    const pair = created.service_key_pair;
    if (!pair) throw new Error("no key pair");
    expect(
      createPublicKey({ key: Buffer.from(pair.public_key, "base64"), format: "der", type: "spki" })
        .asymmetricKeyType,
    ).toBe("x25519");
    expect(derivedPublicKey(pair.private_key)).toBe(pair.public_key);
    expect(await controls.publicKeyOf(Number(created.accessKeyId))).toBe(pair.public_key);
  });

  it("gives keys distinct values and increasing ids, the admin key being id 1", async () => {
    const first = await createKey("ACCOUNT", "one");
    const second = await createKey("SERVICE", "two");
    expect(first.accessKey).not.toBe(second.accessKey);
    expect(Number(second.accessKeyId)).toBe(Number(first.accessKeyId) + 1);
    const admin = await keyRecord(checked.emulator.adminKey);
    expect(admin).toMatchObject({ id: 1, name: "admin", type: "ACCOUNT" });
  });

  it("returns records with all three permission fields and an ISO 8601 UTC createdAt", async () => {
    const before = Date.now();
    const created = await createKey("SERVICE", "reader", { receive: ["orders/created"] });
    const record = await keyRecord(created.accessKey);
    expect(record).toEqual({
      id: Number(created.accessKeyId),
      name: "reader",
      key: created.accessKey,
      type: "SERVICE",
      permissions: { send: [], receive: ["orders/created"], resources: {} },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as unknown,
    });
    expect(Date.parse(record.createdAt)).toBeGreaterThanOrEqual(before - 1);
  });

  it("filters the key list by exact key value", async () => {
    const created = await createKey("ACCOUNT", "findme");
    await createKey("ACCOUNT", "other");
    const found = await api.get("/access-key", { query: listQuery({ accessKey: created.accessKey }) });
    expect(found.body).toMatchObject({
      resultsLength: 1,
      results: [{ key: created.accessKey, name: "findme" }],
    });
    const prefix = await api.get("/access-key", {
      query: listQuery({ accessKey: created.accessKey.slice(0, -1) }),
    });
    expect(prefix.body).toEqual({ resultsLength: 0, results: [] });
  });

  it("answers 404 for an unknown key in the permissions path, without repeating the value", async () => {
    const unknown = "bka_NotAKeyThatExistsAnywhere";
    for (const response of [
      await api.get(`/access-key/${unknown}/permissions`),
      await api.post(`/access-key/${unknown}/permissions`, { send: [] }),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: "not_found" });
      expect(response.text).not.toContain(unknown);
    }
  });

  it("verifies existing keys of both types as true and unknown keys as false", async () => {
    const service = await createKey("SERVICE");
    expect((await api.get(`/access/verify/${checked.emulator.adminKey}`)).body).toEqual({ status: true });
    expect((await api.get(`/access/verify/${service.accessKey}`)).body).toEqual({ status: true });
    const unknown = await api.get("/access/verify/bks_unknown");
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({ status: false });
  });
});

describe("permissions updates", () => {
  it("replaces the given fields and keeps absent ones in the default replace mode", async () => {
    const created = await createKey("SERVICE", "k", { send: ["a"], receive: ["b"], resources: { x: 1 } });
    const response = await api.post(`/access-key/${created.accessKey}/permissions`, { send: ["c/*"] });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: "Permissions updated" });
    expect((await keyRecord(created.accessKey)).permissions).toEqual({
      send: ["c/*"],
      receive: ["b"],
      resources: { x: 1 },
    });

    await api.post(`/access-key/${created.accessKey}/permissions`, { send: [], resources: { y: 2 } });
    expect((await keyRecord(created.accessKey)).permissions).toEqual({
      send: [],
      receive: ["b"],
      resources: { y: 2 },
    });
  });

  it("accepts an empty update as a no-op", async () => {
    const created = await createKey("SERVICE", "k", { send: ["a"] });
    expect((await api.post(`/access-key/${created.accessKey}/permissions`, {})).status).toBe(200);
    expect((await keyRecord(created.accessKey)).permissions.send).toEqual(["a"]);
  });

  it("merges in merge mode: union of lists in stored-then-new order without duplicates, shallow resources", async () => {
    await controls.setPermissionsMode("merge");
    const created = await createKey("SERVICE", "k", {
      send: ["a", "b"],
      receive: ["r"],
      resources: { x: 1, y: { deep: 1 } },
    });
    await api.post(`/access-key/${created.accessKey}/permissions`, {
      send: ["c", "a", "c"],
      resources: { y: { other: 2 }, z: 3 },
    });
    expect((await keyRecord(created.accessKey)).permissions).toEqual({
      send: ["a", "b", "c"],
      receive: ["r"],
      resources: { x: 1, y: { other: 2 }, z: 3 },
    });
  });

  it("returns to replace mode after a reset", async () => {
    await controls.setPermissionsMode("merge");
    await controls.reset();
    const created = await createKey("SERVICE", "k", { send: ["a"] });
    await api.post(`/access-key/${created.accessKey}/permissions`, { send: ["b"] });
    expect((await keyRecord(created.accessKey)).permissions.send).toEqual(["b"]);
  });
});

describe("service key pairs", () => {
  it("rotates the pair: a new, matching pair that the controls report as current", async () => {
    const created = await createKey("SERVICE");
    const id = Number(created.accessKeyId);
    const response = await api.put("/access/service-key-pair", { access_key: created.accessKey });
    expect(response.status).toBe(200);
    const pair = response.body as { public_key: string; private_key: string };
    expect(Object.keys(pair).sort()).toEqual(["private_key", "public_key"]);
    expect(pair.public_key).not.toBe(created.service_key_pair?.public_key);
    expect(pair.private_key).not.toBe(created.service_key_pair?.private_key);
    expect(derivedPublicKey(pair.private_key)).toBe(pair.public_key);
    expect(await controls.publicKeyOf(id)).toBe(pair.public_key);
  });

  it("answers 404 for an unknown key and 409 naming body.access_key for an ACCOUNT key", async () => {
    const unknown = await api.put("/access/service-key-pair", { access_key: "bks_unknown" });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "not_found" });
    expect(unknown.text).not.toContain("bks_unknown");

    const account = await createKey("ACCOUNT");
    const refused = await api.put("/access/service-key-pair", { access_key: account.accessKey });
    // Schema-valid, and the key exists: its type, not the request's form, forbids the rotation.
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      code: "conflict",
      field: "body.access_key",
      message: "body.access_key is an ACCOUNT key; only SERVICE keys have key pairs",
    });
  });
});

describe("workspaces", () => {
  it("creates a hierarchy: 201 without id, paths from names, parentId 0 at top level, children as records", async () => {
    const created = await api.post("/workspace", { name: "a" });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ message: "Workspace created" });
    const [a] = await allWorkspaces({ name: "a" });
    if (!a) throw new Error("a not found");
    expect(a).toMatchObject({ name: "a", path: "/a", parentId: 0, children: [] });
    await api.post("/workspace", { name: "b", parentId: a.id });
    const [b] = await allWorkspaces({ name: "b" });
    if (!b) throw new Error("b not found");
    await api.post("/workspace", { name: "c", parentId: b.id });

    const all = await allWorkspaces();
    expect(all.map((workspace) => workspace.path)).toEqual(["/a", "/a/b", "/a/b/c"]);
    const top = all[0];
    expect(top?.children).toHaveLength(1);
    expect(top?.children?.[0]).toMatchObject({ name: "b", path: "/a/b", parentId: a.id });
    expect(top?.children?.[0]?.children?.[0]).toMatchObject({
      name: "c",
      path: "/a/b/c",
      parentId: b.id,
      children: [],
    });
  });

  it("answers 404 naming body.parentId for a schema-valid create under a parent that does not exist", async () => {
    const response = await api.post("/workspace", { name: "a", parentId: 4242 });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      code: "not_found",
      field: "body.parentId",
      message: "body.parentId does not name an existing workspace (use 0 or omit it for top level)",
    });
    expect(await allWorkspaces({ name: "a" })).toEqual([]);
  });

  it("accepts parentId 0 as top level and allows duplicate names under one parent", async () => {
    expect((await api.post("/workspace", { name: "dup", parentId: 0 })).status).toBe(201);
    expect((await api.post("/workspace", { name: "dup" })).status).toBe(201);
    const found = await allWorkspaces({ name: "dup" });
    expect(found.map((workspace) => workspace.path)).toEqual(["/dup", "/dup"]);
    expect(found[0]?.id).not.toBe(found[1]?.id);
  });

  it("filters by exact name and by id", async () => {
    await api.post("/workspace", { name: "alpha" });
    await api.post("/workspace", { name: "alphabet" });
    const [alpha] = await allWorkspaces({ name: "alpha" });
    expect(alpha?.name).toBe("alpha");
    expect(await allWorkspaces({ name: "alp" })).toEqual([]);
    const byId = await allWorkspaces({ id: String(alpha?.id) });
    expect(byId.map((workspace) => workspace.name)).toEqual(["alpha"]);
    expect(await allWorkspaces({ id: "999999" })).toEqual([]);
  });

  it("recomputes descendants' paths after an out-of-band rename and move", async () => {
    await api.post("/workspace", { name: "a" });
    const [a] = await allWorkspaces({ name: "a" });
    await api.post("/workspace", { name: "b", parentId: a?.id ?? -1 });
    const [b] = await allWorkspaces({ name: "b" });
    await api.post("/workspace", { name: "c", parentId: b?.id ?? -1 });
    await api.post("/workspace", { name: "z" });
    const [z] = await allWorkspaces({ name: "z" });

    await controls.updateWorkspace(a?.id ?? -1, { name: "renamed" });
    expect((await allWorkspaces()).map((workspace) => workspace.path)).toEqual([
      "/renamed",
      "/renamed/b",
      "/renamed/b/c",
      "/z",
    ]);

    await controls.updateWorkspace(b?.id ?? -1, { parentId: z?.id ?? -1 });
    const moved = await allWorkspaces();
    expect(moved.map((workspace) => workspace.path)).toEqual(["/renamed", "/z/b", "/z/b/c", "/z"]);
    expect(moved.find((workspace) => workspace.name === "renamed")?.children).toEqual([]);
  });
});

describe("paging and ordering", () => {
  it("pages 230 keys as 100/100/30/0 in every order, each key exactly once", async () => {
    // 229 keys plus the admin key. Names are assigned out of id order so that name order is a real sort.
    await inBatches(229, (index) =>
      createKey("ACCOUNT", `key-${String((index * 7919) % 229).padStart(3, "0")}`),
    );
    const all: KeyRecord[] = [];
    for (let pageIndex = 0; ; pageIndex++) {
      const response = await api.get("/access-key", { query: listQuery({ pageIndex }) });
      const page = response.body as Page<KeyRecord>;
      expect(page.resultsLength).toBe(page.results.length);
      expect(page.resultsLength).toBe([100, 100, 30, 0][pageIndex]);
      all.push(...page.results);
      if (page.resultsLength === 0) break;
    }
    expect(new Set(all.map((record) => record.id)).size).toBe(230);

    const byName = [...all].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : x.id - y.id));
    const byCreated = [...all].sort((x, y) =>
      x.createdAt < y.createdAt ? -1 : x.createdAt > y.createdAt ? 1 : x.id - y.id,
    );
    const cases: [string, string, KeyRecord[]][] = [
      ["ASC", "name", byName],
      ["asc", "name", byName],
      ["DESC", "name", [...byName].reverse()],
      ["desc", "name", [...byName].reverse()],
      ["ASC", "createdAt", byCreated],
      ["DESC", "createdAt", [...byCreated].reverse()],
    ];
    for (const [order, orderBy, expected] of cases) {
      const ids: number[] = [];
      for (const pageIndex of [0, 1, 2, 3]) {
        const page = (await api.get("/access-key", { query: listQuery({ pageIndex, order, orderBy }) }))
          .body as Page<KeyRecord>;
        ids.push(...page.results.map((record) => record.id));
      }
      expect(ids, `${order} ${orderBy}`).toEqual(expected.map((record) => record.id));
    }
  });

  it("honours limits of 1 and 100 and breaks createdAt ties by id in the same direction", async () => {
    await inBatches(30, (index) => createKey("ACCOUNT", `same-${index}`), 30);
    const one = (await api.get("/access-key", { query: listQuery({ limit: 1, pageIndex: 3 }) }))
      .body as Page<KeyRecord>;
    expect(one.resultsLength).toBe(1);
    const asc = (await api.get("/access-key", { query: listQuery() })).body as Page<KeyRecord>;
    const desc = (await api.get("/access-key", { query: listQuery({ order: "DESC" }) }))
      .body as Page<KeyRecord>;
    expect(asc.results.map((record) => record.id)).toEqual(
      [...asc.results.map((record) => record.id)].sort((x, y) => x - y),
    );
    expect(desc.results.map((record) => record.id)).toEqual(asc.results.map((record) => record.id).reverse());
    expect(one.results[0]?.id).toBe(asc.results[3]?.id);
  });

  it("pages workspaces too, sorted by name", async () => {
    await inBatches(105, (index) =>
      api.post("/workspace", { name: `w${String(104 - index).padStart(3, "0")}` }),
    );
    const first = (await api.get("/workspace", { query: listQuery({ orderBy: "name" }) }))
      .body as Page<WorkspaceRecord>;
    const second = (await api.get("/workspace", { query: listQuery({ orderBy: "name", pageIndex: 1 }) }))
      .body as Page<WorkspaceRecord>;
    expect([first.resultsLength, second.resultsLength]).toEqual([100, 5]);
    expect(first.results[0]?.name).toBe("w000");
    expect(second.results.at(-1)?.name).toBe("w104");
  });
});

describe("authentication", () => {
  const routes: [string, string, unknown][] = [
    ["POST", "/access-key", { name: "n", type: "ACCOUNT", permissions: {} }],
    ["GET", "/access-key?pageIndex=0&limit=1&order=ASC&orderBy=name", undefined],
    ["GET", "/access-key/KEY/permissions", undefined],
    ["POST", "/access-key/KEY/permissions", { send: [] }],
    ["GET", "/access/verify/KEY", undefined],
    ["PUT", "/access/service-key-pair", { access_key: "KEY" }],
    ["GET", "/workspace?pageIndex=0&limit=1&order=ASC&orderBy=name", undefined],
    ["POST", "/workspace", { name: "w" }],
  ];

  it.each(routes)(
    "%s %s: 401 without X-API-KEY, 401 for an unknown key, 403 for a SERVICE key",
    async (method, path, json) => {
      const service = await createKey("SERVICE");
      const target = path.replace("KEY", service.accessKey);
      const options = json === undefined ? {} : { json };
      const missing = await api.call(method, target, { ...options, key: null });
      expect(missing.status).toBe(401);
      expect(missing.body).toMatchObject({ code: "unauthorized" });
      const unknown = await api.call(method, target, { ...options, key: "bka_wrong" });
      expect(unknown.status).toBe(401);
      expect(unknown.text).not.toContain("bka_wrong");
      const forbidden = await api.call(method, target, { ...options, key: service.accessKey });
      expect(forbidden.status).toBe(403);
      expect(forbidden.body).toMatchObject({ code: "forbidden" });
      expect(forbidden.text).not.toContain(service.accessKey);
    },
  );

  it("checks auth before validation, 404s and 405s", async () => {
    expect((await api.post("/access-key", { name: "" }, { key: null })).status).toBe(401);
    expect((await api.get("/access-key", { key: null })).status).toBe(401);
    expect((await api.get("/access-key/nope/permissions", { key: null })).status).toBe(401);
    expect((await api.get("/no-such-route", { key: null })).status).toBe(401);
    expect((await api.call("DELETE", "/workspace", { key: null })).status).toBe(401);
  });

  it("accepts a newly created ACCOUNT key", async () => {
    const account = await createKey("ACCOUNT");
    const response = await api.get("/workspace", { query: listQuery(), key: account.accessKey });
    expect(response.status).toBe(200);
  });
});

describe("validation", () => {
  const validKey = { name: "n", type: "ACCOUNT", permissions: {} };
  const list = { pageIndex: "0", limit: "10", order: "ASC", orderBy: "name" };
  const queryCases: [string, string, Record<string, string>, string][] = [
    ["keys", "/access-key", { ...list, pageIndex: "-1" }, "query.pageIndex"],
    ["keys", "/access-key", { ...list, pageIndex: "abc" }, "query.pageIndex"],
    ["keys", "/access-key", { ...list, pageIndex: "1.5" }, "query.pageIndex"],
    ["keys", "/access-key", { ...list, pageIndex: "" }, "query.pageIndex"],
    ["keys", "/access-key", { limit: "1", order: "ASC", orderBy: "name" }, "query.pageIndex"],
    ["keys", "/access-key", { ...list, limit: "0" }, "query.limit"],
    ["keys", "/access-key", { ...list, limit: "101" }, "query.limit"],
    ["keys", "/access-key", { pageIndex: "0", order: "ASC", orderBy: "name" }, "query.limit"],
    ["keys", "/access-key", { ...list, order: "ascending" }, "query.order"],
    ["keys", "/access-key", { pageIndex: "0", limit: "1", orderBy: "name" }, "query.order"],
    ["keys", "/access-key", { ...list, orderBy: "id" }, "query.orderBy"],
    ["keys", "/access-key", { pageIndex: "0", limit: "1", order: "ASC" }, "query.orderBy"],
    ["workspaces", "/workspace", { ...list, limit: "1000" }, "query.limit"],
    ["workspaces", "/workspace", { ...list, orderBy: "path" }, "query.orderBy"],
    ["workspaces", "/workspace", { ...list, id: "abc" }, "query.id"],
    ["workspaces", "/workspace", { ...list, id: "-1" }, "query.id"],
  ];

  it.each(queryCases)("list %s: %s?%j is 400 naming %s", async (_what, path, query, field) => {
    const response = await api.get(path, { query });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "validation_failed", field });
  });

  it("rejects a repeated paging parameter and ignores unknown ones", async () => {
    const repeated = await api.get("/access-key?pageIndex=0&pageIndex=1&limit=1&order=ASC&orderBy=name");
    expect(repeated.body).toMatchObject({ field: "query.pageIndex" });
    expect((await api.get("/access-key", { query: { ...list, foo: "bar" } })).status).toBe(200);
  });

  const bodyCases: [string, string, string, unknown, string][] = [
    ["create key", "POST", "/access-key", null, "body"],
    ["create key", "POST", "/access-key", [], "body"],
    ["create key", "POST", "/access-key", "text", "body"],
    ["create key", "POST", "/access-key", { ...validKey, extra: 1 }, "body.extra"],
    ["create key", "POST", "/access-key", { type: "ACCOUNT", permissions: {} }, "body.name"],
    ["create key", "POST", "/access-key", { ...validKey, name: "" }, "body.name"],
    ["create key", "POST", "/access-key", { ...validKey, name: 5 }, "body.name"],
    [
      "create key",
      "POST",
      "/access-key",
      { ...validKey, name: "x".repeat(MAX_NAME_LENGTH + 1) },
      "body.name",
    ],
    ["create key", "POST", "/access-key", { name: "n", permissions: {} }, "body.type"],
    ["create key", "POST", "/access-key", { ...validKey, type: "account" }, "body.type"],
    ["create key", "POST", "/access-key", { name: "n", type: "ACCOUNT" }, "body.permissions"],
    ["create key", "POST", "/access-key", { ...validKey, permissions: [] }, "body.permissions"],
    [
      "create key",
      "POST",
      "/access-key",
      { ...validKey, permissions: { send: ["x".repeat(MAX_EVENT_PATH_LENGTH + 1)] } },
      "body.permissions.send[0]",
    ],
    [
      "create key",
      "POST",
      "/access-key",
      { ...validKey, permissions: { admin: true } },
      "body.permissions.admin",
    ],
    [
      "create key",
      "POST",
      "/access-key",
      { ...validKey, permissions: { send: "a" } },
      "body.permissions.send",
    ],
    [
      "create key",
      "POST",
      "/access-key",
      { ...validKey, permissions: { send: [1] } },
      "body.permissions.send[0]",
    ],
    [
      "create key",
      "POST",
      "/access-key",
      { ...validKey, permissions: { send: ["ok", "a b"] } },
      "body.permissions.send[1]",
    ],
    [
      "create key",
      "POST",
      "/access-key",
      { ...validKey, permissions: { send: ["x", "y", "*"] } },
      "body.permissions.send[2]",
    ],
    [
      "create key",
      "POST",
      "/access-key",
      { ...validKey, permissions: { send: ["orders/*/x"] } },
      "body.permissions.send[0]",
    ],
    [
      "create key",
      "POST",
      "/access-key",
      { ...validKey, permissions: { send: ["/orders"] } },
      "body.permissions.send[0]",
    ],
    [
      "create key",
      "POST",
      "/access-key",
      { ...validKey, permissions: { send: ["orders/"] } },
      "body.permissions.send[0]",
    ],
    [
      "create key",
      "POST",
      "/access-key",
      { ...validKey, permissions: { send: ["a//b"] } },
      "body.permissions.send[0]",
    ],
    [
      "create key",
      "POST",
      "/access-key",
      { ...validKey, permissions: { send: ["ord*"] } },
      "body.permissions.send[0]",
    ],
    [
      "create key",
      "POST",
      "/access-key",
      { ...validKey, permissions: { send: [""] } },
      "body.permissions.send[0]",
    ],
    [
      "create key",
      "POST",
      "/access-key",
      { ...validKey, permissions: { receive: ["a\tb"] } },
      "body.permissions.receive[0]",
    ],
    [
      "create key",
      "POST",
      "/access-key",
      { ...validKey, permissions: { receive: null } },
      "body.permissions.receive",
    ],
    [
      "create key",
      "POST",
      "/access-key",
      { ...validKey, permissions: { resources: [] } },
      "body.permissions.resources",
    ],
    [
      "create key",
      "POST",
      "/access-key",
      { ...validKey, permissions: { resources: "x" } },
      "body.permissions.resources",
    ],
    ["update permissions", "POST", "/access-key/ADMIN/permissions", [], "body"],
    ["update permissions", "POST", "/access-key/ADMIN/permissions", { send: "a" }, "body.send"],
    ["update permissions", "POST", "/access-key/ADMIN/permissions", { receive: ["*"] }, "body.receive[0]"],
    ["update permissions", "POST", "/access-key/ADMIN/permissions", { resources: null }, "body.resources"],
    ["update permissions", "POST", "/access-key/ADMIN/permissions", { permissions: {} }, "body.permissions"],
    ["key pair", "PUT", "/access/service-key-pair", {}, "body.access_key"],
    ["key pair", "PUT", "/access/service-key-pair", { access_key: 5 }, "body.access_key"],
    ["key pair", "PUT", "/access/service-key-pair", { access_key: "" }, "body.access_key"],
    ["key pair", "PUT", "/access/service-key-pair", { access_key: "k", accessKey: "k" }, "body.accessKey"],
    ["create workspace", "POST", "/workspace", {}, "body.name"],
    ["create workspace", "POST", "/workspace", { name: "" }, "body.name"],
    ["create workspace", "POST", "/workspace", { name: "a/b" }, "body.name"],
    ["create workspace", "POST", "/workspace", { name: "x".repeat(MAX_NAME_LENGTH + 1) }, "body.name"],
    ["create workspace", "POST", "/workspace", { name: ["a"] }, "body.name"],
    ["create workspace", "POST", "/workspace", { name: "a", parentId: -1 }, "body.parentId"],
    ["create workspace", "POST", "/workspace", { name: "a", parentId: 1.5 }, "body.parentId"],
    ["create workspace", "POST", "/workspace", { name: "a", parentId: "1" }, "body.parentId"],
    ["create workspace", "POST", "/workspace", { name: "a", path: "/a" }, "body.path"],
  ];

  it.each(bodyCases)("%s: %s %s with %j is 400 naming %s", async (_what, method, path, json, field) => {
    const response = await api.call(method, path.replace("ADMIN", checked.emulator.adminKey), { json });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "validation_failed", field });
    expect((response.body as { message: string }).message).toMatch(
      new RegExp(`^${field.replace(/[[\].]/g, "\\$&")} `),
    );
  });

  it("treats a missing body as a missing object", async () => {
    const response = await api.call("POST", "/access-key");
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "validation_failed", field: "body" });
  });

  it("never repeats a submitted value in a validation message", async () => {
    const secret = "bka_ThisLooksLikeAKeyValue";
    const response = await api.post("/access-key", { ...validKey, permissions: { send: [`${secret} x`] } });
    expect(response.status).toBe(400);
    expect(response.text).not.toContain(secret);
  });

  it("accepts the boundaries: 200-character names, wildcards after a segment, unicode segments", async () => {
    const name = "é".repeat(MAX_NAME_LENGTH);
    const created = await createKey("SERVICE", name, {
      send: [
        "orders",
        "orders/created",
        "orders/*",
        "a/b/c/*",
        "ünïcode/✓",
        "😀".repeat(MAX_EVENT_PATH_LENGTH),
      ],
      receive: [],
      resources: { nested: { any: ["json"] } },
    });
    expect((await keyRecord(created.accessKey)).name).toBe(name);
    expect((await api.post("/workspace", { name: "w".repeat(MAX_NAME_LENGTH), parentId: 0 })).status).toBe(
      201,
    );
  });
});

describe("connections", () => {
  // The emulator leaves idle keep-alive connections to the client: a server-side idle timer races
  // the client's and resets a request sent as it fires (src/emulator/README.md, "Connections").
  it("keeps connections alive without announcing an idle timeout of its own", async () => {
    const response = await api.get("/workspace", { query: listQuery() });
    expect(response.status).toBe(200);
    expect(response.headers.get("connection")).toBe("keep-alive");
    expect(response.headers.get("keep-alive")).toBeNull();
  });
});

describe("HTTP-level errors", () => {
  it("answers 404 JSON for unknown routes under /v1 and elsewhere", async () => {
    const unknown = await api.get("/access-keys");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "not_found" });
    const outside = await fetch(`${checked.emulator.origin}/elsewhere`);
    expect(outside.status).toBe(404);
    expect(await outside.json()).toMatchObject({ code: "not_found" });
  });

  it("answers 405 with an Allow header for a known path with another method", async () => {
    const response = await api.call("DELETE", "/workspace");
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, POST");
    expect(response.body).toMatchObject({ code: "method_not_allowed" });
    const templated = await api.call("DELETE", `/access-key/${checked.emulator.adminKey}/permissions`);
    expect(templated.headers.get("allow")).toBe("GET, POST");
    expect(templated.text).not.toContain(checked.emulator.adminKey);
  });

  it("answers 415 for a body without Content-Type: application/json", async () => {
    const body = JSON.stringify({ name: "n", type: "ACCOUNT", permissions: {} });
    const plain = await api.call("POST", "/access-key", { raw: body, contentType: "text/plain" });
    expect(plain.status).toBe(415);
    expect(plain.body).toMatchObject({ code: "unsupported_media_type" });
    const withCharset = await api.call("POST", "/access-key", {
      raw: body,
      contentType: "Application/JSON; charset=utf-8",
    });
    expect(withCharset.status).toBe(201);
  });

  it("answers 400 malformed_json for unparsable JSON", async () => {
    const response = await api.call("POST", "/workspace", {
      raw: '{"name": ',
      contentType: "application/json",
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "malformed_json" });
  });

  it("accepts a body of exactly 1 MiB and answers 413 for one byte more", async () => {
    const skeleton = JSON.stringify({
      name: "big",
      type: "ACCOUNT",
      permissions: { resources: { pad: "" } },
    });
    const exact = skeleton.replace('"pad":""', `"pad":"${"x".repeat(1024 * 1024 - skeleton.length)}"`);
    expect(Buffer.byteLength(exact)).toBe(1024 * 1024);
    expect(
      (await api.call("POST", "/access-key", { raw: exact, contentType: "application/json" })).status,
    ).toBe(201);
    const over = await api.call("POST", "/access-key", { raw: `${exact} `, contentType: "application/json" });
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ code: "payload_too_large" });
  });

  it("stops reading an endless chunked body: answers 413 long before the client is done", async () => {
    const port = checked.emulator.port;
    const socket = connect(port, "127.0.0.1");
    let response = "";
    socket.on("data", (data: Buffer) => (response += data.toString("latin1")));
    socket.on("error", () => undefined);
    socket.write(
      `POST /v1/access-key HTTP/1.1\r\nHost: localhost\r\nX-API-KEY: ${checked.emulator.adminKey}\r\n` +
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
    );
    const chunk = "x".repeat(64 * 1024);
    let sent = 0;
    while (response === "" && sent < 16 * 1024 * 1024) {
      await new Promise<void>((resolve) =>
        socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`, () => {
          resolve();
        }),
      );
      sent += chunk.length;
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Wait for the whole answer (or the server closing the connection), not for a time.
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (response.includes("payload_too_large") || socket.closed) resolve();
      };
      socket.on("data", check);
      socket.on("close", () => {
        resolve();
      });
      check();
    });
    socket.destroy();
    expect(response).toMatch(/^HTTP\/1\.1 413 /);
    expect(sent).toBeLessThan(4 * 1024 * 1024);
    expect((await api.get("/access-key", { query: listQuery() })).status).toBe(200);
  });

  it("keeps serving after every kind of bad input", async () => {
    await api.call("POST", "/access-key", { raw: "\u0000\u00ff{", contentType: "application/json" });
    await api.call("GET", "/access-key/%E0%A4%A/permissions");
    await api.call("PUT", "/access/service-key-pair", {
      raw: "[]".repeat(1000),
      contentType: "application/json",
    });
    const socket = connect(checked.emulator.port, "127.0.0.1");
    socket.on("error", () => undefined);
    let reply = "";
    socket.on("data", (data: Buffer) => (reply += data.toString()));
    socket.end("THIS IS NOT HTTP\r\n\r\n");
    await new Promise((resolve) => socket.on("close", resolve));
    expect(reply).toMatch(/^HTTP\/1\.1 400 /);
    expect((await api.get("/access-key", { query: listQuery() })).status).toBe(200);
  });
});
