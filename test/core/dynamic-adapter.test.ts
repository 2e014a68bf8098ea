/**
 * The dynamic adapter (`src/dynamic/impl/*`, what the shims require) in-process: the mapping of the core's
 * typed results to `dynamic.*` results. The provider host tests drive the same code through the
 * real host; these check the mapping in seconds.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as accessKey from "../../src/dynamic/impl/access-key";
import * as serviceKeyPair from "../../src/dynamic/impl/service-key-pair";
import * as workspace from "../../src/dynamic/impl/workspace";
import { DYNAMIC_LOGICAL_NAME_INPUT, DYNAMIC_URN_INPUT } from "../../src/core/declarations";
import { defaultIntentStore } from "../../src/core/intents";
import { UNKNOWN } from "../../src/core/unknown";
import { warn } from "../../src/dynamic/impl/host-log";
import { useCoreEmulator } from "./support";

// Warnings go to the engine's log in the provider host; here the test reads them.
vi.mock("../../src/dynamic/impl/host-log", async (importOriginal) => ({
  ...(await importOriginal<Record<string, unknown>>()),
  warn: vi.fn(() => Promise.resolve()),
}));

const core = useCoreEmulator();
const PROVIDER = 'exports.handler = require("pulumi-broker-config/providers/access-key");';

/** Configures the adapter (one connection per process, as in the provider host) with stack config. */
async function configure(extra: Record<string, string> = {}): Promise<void> {
  const values: Record<string, string> = {
    "broker:baseUrl": core().emulator.url,
    "broker:apiKey": core().emulator.adminKey,
    ...extra,
  };
  const get = (key: string): string | undefined => values[key];
  await accessKey.configure({
    config: {
      get,
      require: (key) => get(key) ?? expect.fail(`${key} is not configured`),
    },
  });
}

/** A property bag from a dynamic result (typed `any` by the SDK). */
function bagOf(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null) throw new Error("expected a property bag");
  return { ...value };
}

beforeEach(async () => {
  await configure();
});

describe("dynamic adapter", () => {
  it("check returns the program's inputs with defaults filled in, keeping unknowns and __provider as they came", async () => {
    const news = {
      __provider: PROVIDER,
      name: "k",
      type: "SERVICE",
      permissions: { send: [UNKNOWN], receive: UNKNOWN },
    };
    expect(await accessKey.check({}, news)).toEqual({
      inputs: {
        ...news,
        adopt: false,
        rotationTriggers: {},
        allowEndpointChange: false,
        baseUrl: core().emulator.url,
      },
      failures: [],
    });
    const bad = await accessKey.check({}, { __provider: PROVIDER, name: "", type: "ADMIN" });
    expect(bad.failures?.map((f) => f.property)).toEqual(["name", "type"]);
  });

  it("diff answers only what the dynamic host forwards", async () => {
    const olds = { name: "w", parentId: 0, adopt: false };
    expect(await workspace.diff("1", olds, { ...olds, parentId: 4 })).toEqual({
      changes: true,
      replaces: ["parentId"],
      deleteBeforeReplace: false,
    });
    await expect(workspace.diff("1", { parentId: 0 }, olds)).rejects.toThrow(
      /Workspace: property `name` must be a string/u,
    );
  });

  it("diff warns in the preview when a replacement would revoke the key the provider authenticates with (issue #49)", async () => {
    // Adopted, and opted in to revoke it (an adopted key is otherwise left as found: nothing to refuse).
    const news = { __provider: PROVIDER, name: "admin", type: "ACCOUNT", adopt: true, onDelete: "revoke" };
    const checked = bagOf((await accessKey.check({}, news)).inputs);
    const created = await accessKey.create(checked);
    const id = created.id;
    const outs: unknown = created.outs;
    vi.mocked(warn).mockClear();
    const replaced = await accessKey.diff(id, bagOf(outs), { ...checked, name: "admin-2" });
    expect(replaced.replaces).toEqual(["name"]);
    expect(vi.mocked(warn).mock.calls.map(([message]) => message)).toEqual([
      expect.stringMatching(
        /^This change replaces the object, and the replacement will fail when it revokes the old one: access key "admin" \(id \d+\) is the key this provider authenticates with/u,
      ),
    ]);
    // An in-place change, or another provider key: no warning.
    vi.mocked(warn).mockClear();
    await accessKey.diff(id, bagOf(outs), { ...checked, permissions: { send: ["a/b"] } });
    await configure({ "broker:apiKey": "bka_another_key" });
    await accessKey.diff(id, bagOf(outs), { ...checked, name: "admin-2" });
    expect(vi.mocked(warn)).not.toHaveBeenCalled();
  });

  it("turns a created-but-failed create into the host's error, with id, __provider and reasons", async () => {
    const inputs = bagOf(
      (await accessKey.check({}, { __provider: PROVIDER, name: "partial", type: "ACCOUNT" })).inputs,
    );
    await configure({ "broker:maxRetries": "0" });
    await core().controls.injectFault({
      kind: "503",
      count: 1,
      routes: ["GET /access-key/{accessKey}/permissions"],
    });
    const error = (await accessKey.create(inputs).catch((e: unknown) => e)) as {
      id?: string;
      properties?: Record<string, unknown>;
      reasons?: string[];
      message: string;
    };
    expect(error.id).toMatch(/^\d+$/u);
    expect(error.properties).toMatchObject({
      __provider: PROVIDER,
      name: "partial",
      accessKeyId: Number(error.id),
    });
    expect(error.properties).not.toHaveProperty("createdAt");
    expect(error.reasons?.[0]).toMatch(/Access key "partial" was created.*503/su);
    expect(error.message).not.toMatch(/bka_/u);
  });

  it("check names a key without a name as its interrupted create did (its intent), else anew", async () => {
    const urn = `urn:pulumi:check-${process.pid}::intents::broker:dynamic:AccessKey::orders-key`;
    const news = {
      __provider: PROVIDER,
      [DYNAMIC_URN_INPUT]: urn,
      [DYNAMIC_LOGICAL_NAME_INPUT]: "orders-key",
      type: "ACCOUNT",
    };
    const intents = defaultIntentStore();
    await intents.write({
      version: 1,
      urn,
      baseUrl: core().emulator.url,
      sentAt: new Date().toISOString(),
      kind: "AccessKey",
      object: {
        name: "orders-key-7c0ffee",
        type: "ACCOUNT",
        permissions: { send: [], receive: [], resources: {} },
      },
    });
    try {
      expect(bagOf((await accessKey.check({}, news)).inputs)["name"]).toBe("orders-key-7c0ffee");
    } finally {
      await intents.remove(urn);
    }
    expect(bagOf((await accessKey.check({}, news)).inputs)["name"]).toMatch(/^orders-key-[0-9a-f]{7}$/u);
  });

  it("read maps a vanished object to an empty id, and refreshes a workspace with no recorded state", async () => {
    const inputs = bagOf((await workspace.check({}, { __provider: PROVIDER, name: "ws" })).inputs);
    const created = await workspace.create(inputs);
    const outs = bagOf(created.outs);
    expect(await workspace.read(created.id, { __provider: PROVIDER })).toMatchObject({
      id: created.id,
      props: { ...outs, adopted: false },
    });
    await core().controls.removeWorkspace(Number(created.id));
    expect(await workspace.read(created.id, outs)).toEqual({ id: "" });
  });

  it("refuses to read a key pair without recorded state, saying why (the API cannot return a private key)", async () => {
    await expect(serviceKeyPair.read("3", {})).rejects.toThrow(/cannot be read without its recorded state/u);
  });
});
