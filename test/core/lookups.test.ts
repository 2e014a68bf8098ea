import { describe, expect, it } from "vitest";
import { BrokerSettingsError } from "../../src/client/errors";
import { FUNCTIONS } from "../../src/core/declarations";
import {
  getAccessKey,
  getAccessKeys,
  getWorkspace,
  getWorkspaces,
  LOOKUP_FUNCTIONS,
  verifyAccessKey,
  type LookupContext,
} from "../../src/core/lookups";
import { rejectionOf, useCoreEmulator } from "./support";

// The look-up functions of the core against the in-process emulator: what both doors return.

const emulator = useCoreEmulator();

describe("getWorkspace", () => {
  it("finds a workspace by path among namesakes elsewhere in the tree, with its children", async () => {
    const ctx = emulator().context();
    const platform = await ctx.broker.createWorkspaceAndFind({ name: "platform" });
    const orders = await ctx.broker.createWorkspaceAndFind({ name: "orders", parentId: platform.id });
    const other = await ctx.broker.createWorkspaceAndFind({ name: "other" });
    await ctx.broker.createWorkspaceAndFind({ name: "orders", parentId: other.id });
    expect(await getWorkspace(ctx, { path: "/platform/orders" })).toEqual({
      id: orders.id,
      name: "orders",
      path: "/platform/orders",
      parentId: platform.id,
      createdAt: orders.createdAt,
      childIds: [],
    });
    expect((await getWorkspace(ctx, { id: platform.id })).childIds).toEqual([orders.id]);
  });

  it("fails on two workspaces with one path, listing both ids", async () => {
    const ctx = emulator().context();
    const first = await ctx.broker.createWorkspaceAndFind({ name: "dup" });
    const second = await ctx.broker.createWorkspaceAndFind({ name: "dup" }, [first]);
    const error = await rejectionOf(getWorkspace(ctx, { path: "/dup" }));
    expect(error.message).toContain(`(ids ${first.id}, ${second.id})`);
  });

  it("fails for an id that does not exist, naming it and the base URL", async () => {
    const ctx = emulator().context();
    const error = await rejectionOf(getWorkspace(ctx, { id: 4242 }));
    expect(error.message).toBe(
      `broker:index:getWorkspace: no workspace with id 4242 at ${ctx.broker.baseUrl}; check the arguments, and that the provider points at the right environment`,
    );
  });

  it("rejects a bad path before any request, without even asking for a client", async () => {
    const error = await rejectionOf(
      getWorkspace({ client: () => expect.fail("no client may be made") }, { path: "/a//b" }),
    );
    expect(error.message).toContain("has an empty name at segment 2");
  });
});

describe("lists", () => {
  it("page through every page for the user", async () => {
    const ctx = emulator().context();
    for (let i = 0; i < 105; i++)
      await ctx.broker.createAccessKeyOnce({
        name: `k${i}`,
        type: "SERVICE",
        permissions: { send: ["orders/x"] },
      });
    const keys = await getAccessKeys(ctx, { type: "SERVICE" });
    expect(keys.accessKeys).toHaveLength(105);
    expect(keys.accessKeys.map((k) => k.name).slice(-2)).toEqual(["k103", "k104"]);
    expect(Object.keys(keys.accessKeys[0] ?? {})).not.toContain("accessKey");
  });

  it("getWorkspaces keeps exact names only", async () => {
    const ctx = emulator().context();
    await ctx.broker.createWorkspaceAndFind({ name: "ops" });
    await ctx.broker.createWorkspaceAndFind({ name: "ops-2" });
    expect((await getWorkspaces(ctx, { name: "ops" })).workspaces.map((w) => w.name)).toEqual(["ops"]);
    expect((await getWorkspaces(ctx, {})).workspaces).toHaveLength(2);
  });
});

describe("getAccessKey and verifyAccessKey", () => {
  it("returns a key found by name and type with its value; a retried request is retried", async () => {
    const ctx = emulator().context();
    const created = await ctx.broker.createAccessKeyOnce({ name: "svc", type: "SERVICE", permissions: {} });
    await ctx.broker.createAccessKeyOnce({ name: "svc", type: "ACCOUNT", permissions: {} });
    await emulator().controls.injectFault({ kind: "503", count: 1, routes: ["GET /access-key"] });
    const found = await getAccessKey(ctx, { name: "svc", type: "SERVICE" });
    expect(found).toMatchObject({ id: created.record.id, type: "SERVICE", accessKey: created.record.key });
    const log = await emulator().controls.requests();
    expect(log.filter((entry) => entry.route === "GET /access-key").map((entry) => entry.status)).toEqual(
      expect.arrayContaining([503, 200]),
    );
  });

  it("a key of another type than asked is not found", async () => {
    const ctx = emulator().context();
    const created = await ctx.broker.createAccessKeyOnce({ name: "svc", type: "SERVICE", permissions: {} });
    const error = await rejectionOf(getAccessKey(ctx, { id: created.record.id, type: "ACCOUNT" }));
    expect(error.message).toContain(`no access key with id ${created.record.id} of type ACCOUNT`);
  });

  it("verify: true for a live key, false for an unknown or removed one", async () => {
    const ctx = emulator().context();
    const created = await ctx.broker.createAccessKeyOnce({ name: "svc", type: "SERVICE", permissions: {} });
    expect(await verifyAccessKey(ctx, { accessKey: created.record.key })).toEqual({ valid: true });
    await emulator().controls.removeAccessKey(created.record.id);
    expect(await verifyAccessKey(ctx, { accessKey: created.record.key })).toEqual({ valid: false });
  });
});

describe("every function", () => {
  it("names itself when the settings are missing, saying it runs during preview too", async () => {
    const missing: LookupContext = {
      client: () => {
        throw new BrokerSettingsError("BROKER_SETTINGS_MISSING", "No broker API key: set broker:apiKey");
      },
    };
    for (const [token, run] of LOOKUP_FUNCTIONS) {
      const args = token.endsWith("verifyAccessKey")
        ? { accessKey: "k" }
        : token.endsWith("s")
          ? {}
          : { id: 1 };
      const error = await rejectionOf(run(missing, args));
      expect(error.message).toBe(
        `${token} reads the broker API, also during \`pulumi preview\`: No broker API key: set broker:apiKey`,
      );
    }
  });

  it("returns exactly the result properties its declaration lists", async () => {
    const ctx = emulator().context();
    const created = await ctx.broker.createAccessKeyOnce({ name: "svc", type: "SERVICE", permissions: {} });
    const workspace = await ctx.broker.createWorkspaceAndFind({ name: "w" });
    const args: Record<string, Record<string, unknown>> = {
      "broker:index:getWorkspace": { id: workspace.id },
      "broker:index:getWorkspaces": {},
      "broker:index:getAccessKey": { id: created.record.id },
      "broker:index:getAccessKeys": {},
      "broker:index:verifyAccessKey": { accessKey: created.record.key },
    };
    expect([...LOOKUP_FUNCTIONS.keys()].sort()).toEqual(FUNCTIONS.map((fn) => fn.token).sort());
    for (const fn of FUNCTIONS) {
      const result = await LOOKUP_FUNCTIONS.get(fn.token)!(ctx, args[fn.token] ?? {});
      expect(Object.keys(result).sort(), fn.token).toEqual(Object.keys(fn.outputs).sort());
    }
  });
});
