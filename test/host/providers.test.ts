import { execFileSync } from "node:child_process";
import * as crypto from "node:crypto";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { ProviderCallError, ProviderHost, UNKNOWN } from "../../harness/provider-host.mts";
import { apiOf } from "../support/emulator";
import { injectFaultMix, struckRequests } from "../support/fault-mix";

// Each provider is driven through the real dynamic provider host over gRPC, with `__provider`
// serialized in a real `node` process (vitest's module loader would serialize differently).

const fixture = inject("packageFixture");
const serialized = JSON.parse(
  execFileSync(process.execPath, [path.join(__dirname, "../support/serialize-providers.cjs")], {
    cwd: fixture,
    encoding: "utf8",
  }),
) as Record<
  "Workspace" | "AccessKey" | "ServiceKeyPair",
  { provider: string; additionalSecretOutputs: string[] }
>;

const urn = (type: string, name: string): string =>
  `urn:pulumi:dev::test::pulumi-nodejs:dynamic/broker:${type}::${name}`;
const WS = serialized.Workspace.provider;
const AK = serialized.AccessKey.provider;
const SKP = serialized.ServiceKeyPair.provider;

let emulator: EmulatorHandle;
let host: ProviderHost;

async function startHost(
  config: Record<string, string> = {},
  env: Record<string, string | undefined> = {},
): Promise<ProviderHost> {
  const started = await ProviderHost.start(fixture, {
    BROKER_BASE_URL: undefined,
    BROKER_API_KEY: undefined,
    ...env,
  });
  await started.configure(config);
  return started;
}

/** The warnings `host` sent to the engine: what `pulumi up` shows the user. */
function warnings(target: ProviderHost): string {
  return target.engineLog
    .filter((m) => m.severity === "warning")
    .map((m) => m.message)
    .join("\n");
}

function brokerConfig(extra: Record<string, string> = {}): Record<string, string> {
  return {
    "broker:baseUrl": emulator.url,
    "broker:apiKey": emulator.adminKey,
    "broker:maxRetries": "6",
    ...extra,
  };
}

/** Check then create, as the engine does for a new resource. */
async function checkAndCreate(
  type: string,
  name: string,
  provider: string,
  inputs: Record<string, unknown>,
  target: ProviderHost = host,
): Promise<{ id: string; outs: Record<string, unknown>; inputs: Record<string, unknown> }> {
  const checked = await target.check(urn(type, name), {}, { ...inputs, __provider: provider });
  expect(checked.failures).toEqual([]);
  const created = await target.create(urn(type, name), checked.inputs);
  return { ...created, inputs: checked.inputs };
}

beforeAll(async () => {
  emulator = await startEmulator({ controls: true });
  host = await startHost(brokerConfig());
});

afterAll(async () => {
  await host.stop();
  await emulator.close();
});

afterEach(async () => {
  await emulator.controls!.clearFaults();
  await emulator.controls!.setPermissionsMode("replace");
});

describe("the harness's provider host", () => {
  // A real engine answers at the host's engine address for the whole run, and the host cancels
  // every call once it stops answering (the engine watch). A harness that gives the host an address
  // where nothing listens fails every call made a few seconds after the start.
  it("still answers a call after 10 s idle, as under a real engine", async () => {
    const idle = await startHost(brokerConfig());
    try {
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      const created = await checkAndCreate("Workspace", "after-idle", WS, { name: "after-idle" }, idle);
      expect(created.id).not.toBe("");
      expect(idle.stderr.join("")).not.toContain("stopped answering");
    } finally {
      await idle.stop();
    }
  });
});

describe("serialized providers", () => {
  it.each(["Workspace", "AccessKey", "ServiceKeyPair"] as const)(
    "%s serializes to a short require of the installed package, with no secret and no absolute path",
    (type) => {
      const text = serialized[type].provider;
      const module = { Workspace: "workspace", AccessKey: "access-key", ServiceKeyPair: "service-key-pair" }[
        type
      ];
      expect(Buffer.byteLength(text)).toBeLessThan(1024);
      expect(text).toContain(`require("pulumi-broker-config/providers/${module}")`);
      expect(text).not.toContain("bks_x");
      for (const absolute of [fixture, os.homedir(), os.tmpdir(), process.cwd()])
        expect(text).not.toContain(absolute);
    },
  );

  it("marks exactly the generated credentials as secret outputs", () => {
    expect(serialized.Workspace.additionalSecretOutputs).toEqual([]);
    expect([...serialized.AccessKey.additionalSecretOutputs].sort()).toEqual(["accessKey", "privateKey"]);
    expect([...serialized.ServiceKeyPair.additionalSecretOutputs].sort()).toEqual([
      "accessKey",
      "privateKey",
    ]);
  });

  it("keeps the secret outputs a user passes and adds its own", () => {
    const withUser = JSON.parse(
      execFileSync(
        process.execPath,
        [path.join(__dirname, "../support/serialize-providers.cjs"), "--user-secret-outputs"],
        {
          cwd: fixture,
          encoding: "utf8",
        },
      ),
    ) as typeof serialized;
    expect([...withUser.AccessKey.additionalSecretOutputs].sort()).toEqual([
      "accessKey",
      "name",
      "privateKey",
    ]);
    expect([...withUser.ServiceKeyPair.additionalSecretOutputs].sort()).toEqual([
      "accessKey",
      "name",
      "privateKey",
    ]);
  });
});

describe("check", () => {
  it("reports every invalid input by property path, without any request", async () => {
    await emulator.controls!.clearRequests();
    const { failures } = await host.check(
      urn("AccessKey", "bad"),
      {},
      {
        __provider: AK,
        name: " padded",
        type: "ADMIN",
        permissions: { send: ["orders/created", "orders//x", "a b"], receive: ["*"], resources: [] },
        onDelete: "delete",
      },
    );
    const byProperty = Object.fromEntries(failures.map((f) => [f.property, f.reason]));
    expect(Object.keys(byProperty).sort()).toEqual(
      [
        "name",
        "onDelete",
        "permissions.receive[0]",
        "permissions.resources",
        "permissions.send[1]",
        "permissions.send[2]",
        "type",
      ].sort(),
    );
    expect(byProperty["permissions.send[1]"]).toMatch(/empty segment.*orders\/\*/u);
    expect(byProperty["type"]).toMatch(/"ACCOUNT", "SERVICE"/u);
    expect(await emulator.controls!.requests()).toEqual([]);
  });

  // Regression: "a/b" used to pass check (a green preview) and then fail `pulumi up` with a 400.
  it("rejects a Workspace named 'a/b' in check, on name, before any request", async () => {
    await emulator.controls!.clearRequests();
    const { failures } = await host.check(urn("Workspace", "slash"), {}, { __provider: WS, name: "a/b" });
    expect(failures).toEqual([
      {
        property: "name",
        reason: expect.stringMatching(/^Workspace name must not contain '\/'.*paths/u) as string,
      },
    ]);
    expect(await emulator.controls!.requests()).toEqual([]);
  });

  it("lets values that are not known yet pass, and diff treats them as changes", async () => {
    const { failures } = await host.check(
      urn("AccessKey", "later"),
      {},
      {
        __provider: AK,
        name: UNKNOWN,
        type: "SERVICE",
        permissions: { send: [UNKNOWN], receive: UNKNOWN },
      },
    );
    expect(failures).toEqual([]);
    const olds = {
      name: "k",
      type: "SERVICE",
      permissions: { send: [], receive: [], resources: {} },
      __provider: AK,
    };
    const d = await host.diff(urn("AccessKey", "later"), "1", olds, { ...olds, name: UNKNOWN });
    expect(d).toEqual({ changes: "some", replaces: ["name"] });
    const p = await host.diff(urn("AccessKey", "later"), "1", olds, {
      ...olds,
      permissions: { send: [UNKNOWN] },
    });
    expect(p).toEqual({ changes: "some", replaces: [] });
  });

  it("works with no credentials at all (a preview from a fork)", async () => {
    const bare = await startHost({});
    try {
      const { failures, inputs } = await bare.check(
        urn("Workspace", "w"),
        {},
        { __provider: WS, name: "team" },
      );
      expect(failures).toEqual([]);
      expect(inputs).toMatchObject({ name: "team", parentId: 0, adopt: false });
      const created = bare.create(urn("Workspace", "w"), inputs);
      await expect(created).rejects.toThrow(
        /broker:baseUrl.*BROKER_BASE_URL|BROKER_BASE_URL.*broker:baseUrl/su,
      );
    } finally {
      await bare.stop();
    }
  });

  it("fails the preview when the stack now points at another endpoint", async () => {
    const olds = {
      name: "team",
      parentId: 0,
      adopt: false,
      baseUrl: "http://127.0.0.1:1/v1",
      __provider: WS,
    };
    const { failures } = await host.check(urn("Workspace", "w"), olds, { __provider: WS, name: "team" });
    expect(failures).toHaveLength(1);
    expect(failures[0]?.property).toBe("");
    expect(failures[0]?.reason).toContain("http://127.0.0.1:1/v1");
    expect(failures[0]?.reason).toContain(emulator.url);
    const moved = await host.check(urn("Workspace", "w"), olds, {
      __provider: WS,
      name: "team",
      allowEndpointChange: true,
    });
    expect(moved.failures).toEqual([]);
    const d = await host.diff(urn("Workspace", "w"), "1", olds, moved.inputs);
    expect(d.replaces).toContain("baseUrl");
  });
});

describe("Workspace", () => {
  it("creates nested workspaces, finds their ids and paths, and replaces on rename", async () => {
    const parent = await checkAndCreate("Workspace", "parent", WS, { name: "host-team" });
    expect(parent.outs).toMatchObject({
      name: "host-team",
      parentId: 0,
      path: "/host-team",
      baseUrl: emulator.url,
    });
    expect(parent.id).toBe(String(parent.outs["workspaceId"]));
    const child = await checkAndCreate("Workspace", "child", WS, {
      name: "orders",
      parentId: parent.outs["workspaceId"],
    });
    expect(child.outs).toMatchObject({ path: "/host-team/orders", parentId: parent.outs["workspaceId"] });

    const same = await host.diff(urn("Workspace", "child"), child.id, child.outs, child.inputs);
    expect(same.changes).toBe("none");
    const renamed = await host.diff(urn("Workspace", "child"), child.id, child.outs, {
      ...child.inputs,
      name: "billing",
    });
    expect(renamed).toEqual({ changes: "some", replaces: ["name"] });
  });

  it("refresh finds a rename made outside Pulumi, and drops a removed workspace", async () => {
    const ws = await checkAndCreate("Workspace", "drift", WS, { name: "drifting" });
    const id = Number(ws.id);
    await emulator.controls!.updateWorkspace(id, { name: "renamed-outside" });
    const read = await host.read(urn("Workspace", "drift"), ws.id, ws.outs);
    expect(read.outs).toMatchObject({ name: "renamed-outside", path: "/renamed-outside" });
    expect(read.inputs).toMatchObject({ name: "renamed-outside" });
    const next = await host.diff(urn("Workspace", "drift"), ws.id, read.outs, ws.inputs);
    expect(next).toEqual({ changes: "some", replaces: ["name"] });
    await emulator.controls!.removeWorkspace(id);
    expect((await host.read(urn("Workspace", "drift"), ws.id, ws.outs)).id).toBe("");
  });

  it("refuses to take over an existing workspace unless adopt is set", async () => {
    const first = await checkAndCreate("Workspace", "original", WS, { name: "shared" });
    const second = await host.check(urn("Workspace", "copy"), {}, { __provider: WS, name: "shared" });
    await expect(host.create(urn("Workspace", "copy"), second.inputs)).rejects.toThrow(
      /already exists.*Set `adopt` \(`Adopt` in Go and \.NET\) to true/su,
    );
    const adopted = await checkAndCreate("Workspace", "copy", WS, { name: "shared", adopt: true });
    expect(adopted.id).toBe(first.id);
    expect(adopted.outs["adopted"]).toBe(true);
  });

  it("only forgets a workspace on delete, with a warning", async () => {
    const ws = await checkAndCreate("Workspace", "gone", WS, { name: "to-forget" });
    const before = await emulator.controls!.stats();
    await host.delete(urn("Workspace", "gone"), ws.id, ws.outs);
    expect(warnings(host)).toMatch(/to-forget.*still exists.*no delete endpoint/su);
    // Nothing was deleted or created on the server, and the workspace is still there.
    expect(await emulator.controls!.stats()).toEqual(before);
    const listed = await apiOf(emulator).listAll<{ id: number }>("/workspace", { name: "to-forget" });
    expect(listed.map((w) => w.id)).toEqual([Number(ws.id)]);
  });
});

describe("AccessKey", () => {
  it("creates a SERVICE key with its pair, never using the key value as id", async () => {
    const key = await checkAndCreate("AccessKey", "svc", AK, {
      name: "svc",
      type: "SERVICE",
      permissions: { send: ["orders/created", "orders/created", "audit/*"], receive: ["payments/*"] },
    });
    expect(key.id).toBe(String(key.outs["accessKeyId"]));
    expect(key.id).not.toContain("bks_");
    expect(String(key.outs["accessKey"])).toMatch(/^bks_/u);
    expect(key.outs["permissions"]).toEqual({
      send: ["audit/*", "orders/created"],
      receive: ["payments/*"],
      resources: {},
    });
    const publicKey = crypto.createPublicKey(
      crypto.createPrivateKey({
        key: Buffer.from(String(key.outs["privateKey"]), "base64"),
        format: "der",
        type: "pkcs8",
      }),
    );
    expect(publicKey.export({ format: "der", type: "spki" }).toString("base64")).toBe(key.outs["publicKey"]);
  });

  it("compares permission lists as sets and updates changed ones in place, read back from the server", async () => {
    const key = await checkAndCreate("AccessKey", "perm", AK, {
      name: "perm",
      type: "ACCOUNT",
      permissions: { send: ["a/b", "c/d"], receive: [] },
    });
    const reordered = await host.check(urn("AccessKey", "perm"), key.inputs, {
      __provider: AK,
      name: "perm",
      type: "ACCOUNT",
      permissions: { send: ["c/d", "a/b", "a/b"] },
    });
    expect((await host.diff(urn("AccessKey", "perm"), key.id, key.outs, reordered.inputs)).changes).toBe(
      "none",
    );

    const changed = await host.check(urn("AccessKey", "perm"), key.inputs, {
      __provider: AK,
      name: "perm",
      type: "ACCOUNT",
      permissions: { send: ["a/b"], receive: ["x/*"] },
    });
    expect(await host.diff(urn("AccessKey", "perm"), key.id, key.outs, changed.inputs)).toEqual({
      changes: "some",
      replaces: [],
    });
    await emulator.controls!.clearRequests();
    const outs = await host.update(urn("AccessKey", "perm"), key.id, key.outs, changed.inputs);
    expect(outs["permissions"]).toEqual({ send: ["a/b"], receive: ["x/*"], resources: {} });
    const routes = (await emulator.controls!.requests()).map((r) => r.route);
    expect(routes).toEqual([
      "POST /access-key/{accessKey}/permissions",
      "GET /access-key/{accessKey}/permissions",
    ]);
  });

  it("explains when the server merges permission updates instead of replacing them", async () => {
    const key = await checkAndCreate("AccessKey", "merge", AK, {
      name: "merge",
      type: "ACCOUNT",
      permissions: { send: ["old/path"] },
    });
    await emulator.controls!.setPermissionsMode("merge");
    const changed = await host.check(urn("AccessKey", "merge"), key.inputs, {
      __provider: AK,
      name: "merge",
      type: "ACCOUNT",
      permissions: { send: ["new/path"] },
    });
    await expect(host.update(urn("AccessKey", "merge"), key.id, key.outs, changed.inputs)).rejects.toThrow(
      /kept other permissions.*send also holds old\/path.*merge/su,
    );
  });

  it("refresh finds permissions changed outside Pulumi, and drops a removed key", async () => {
    const key = await checkAndCreate("AccessKey", "drift", AK, {
      name: "drift",
      type: "SERVICE",
      permissions: { send: ["a/b"] },
    });
    await emulator.controls!.setKeyPermissions(Number(key.id), { send: ["a/b", "sneaky/*"] });
    const read = await host.read(urn("AccessKey", "drift"), key.id, key.outs);
    expect(read.outs["permissions"]).toEqual({ send: ["a/b", "sneaky/*"], receive: [], resources: {} });
    expect(read.outs["privateKey"]).toBe(key.outs["privateKey"]);
    const next = await host.diff(urn("AccessKey", "drift"), key.id, read.outs, key.inputs);
    expect(next).toEqual({ changes: "some", replaces: [] });
    await emulator.controls!.removeAccessKey(Number(key.id));
    expect((await host.read(urn("AccessKey", "drift"), key.id, key.outs)).id).toBe("");
  });

  it("adopts an existing key by name and type and sets its permissions", async () => {
    const original = await checkAndCreate("AccessKey", "orig", AK, {
      name: "adoptee",
      type: "SERVICE",
      permissions: { send: ["x/y"] },
    });
    const adopted = await checkAndCreate("AccessKey", "adopter", AK, {
      name: "adoptee",
      type: "SERVICE",
      adopt: true,
      permissions: { receive: ["z/*"] },
    });
    expect(adopted.id).toBe(original.id);
    expect(adopted.outs).toMatchObject({
      adopted: true,
      accessKey: original.outs["accessKey"],
      permissions: { send: [], receive: ["z/*"] },
    });
    expect(adopted.outs["privateKey"]).toBeUndefined();
  });

  it("revokes the key on delete by default, and retains it when asked", async () => {
    const revoked = await checkAndCreate("AccessKey", "rev", AK, {
      name: "rev",
      type: "SERVICE",
      permissions: { send: ["a/b"] },
    });
    await host.delete(urn("AccessKey", "rev"), revoked.id, revoked.outs);
    const after = await host.read(urn("AccessKey", "rev"), revoked.id, revoked.outs);
    expect(after.outs["permissions"]).toEqual({ send: [], receive: [], resources: {} });
    expect(warnings(host)).toMatch(/"rev".*revoked.*still exists/su);

    const kept = await checkAndCreate("AccessKey", "keep", AK, {
      name: "keep",
      type: "SERVICE",
      permissions: { send: ["a/b"] },
      onDelete: "retain",
    });
    await host.delete(urn("AccessKey", "keep"), kept.id, kept.outs);
    expect((await host.read(urn("AccessKey", "keep"), kept.id, kept.outs)).outs["permissions"]).toMatchObject(
      { send: ["a/b"] },
    );
  });

  it("keeps a created key in state when a later step fails", async () => {
    const faulty = await startHost(brokerConfig({ "broker:maxRetries": "0" }));
    try {
      const checked = await faulty.check(
        urn("AccessKey", "partial"),
        {},
        {
          __provider: AK,
          name: "partial",
          type: "SERVICE",
          permissions: { send: ["a/b"] },
        },
      );
      // The create succeeds; the read-back after it fails.
      await emulator.controls!.injectFault({
        kind: "503",
        count: 1,
        routes: ["GET /access-key/{accessKey}/permissions"],
      });
      await emulator.controls!.clearRequests();
      const error = await faulty.create(urn("AccessKey", "partial"), checked.inputs).catch((e: unknown) => e);
      // The fault really struck the read-back, after a create that succeeded.
      expect((await emulator.controls!.requests()).map((r) => [r.route, r.status, r.fault])).toEqual([
        ["POST /access-key", 201, undefined],
        ["GET /access-key/{accessKey}/permissions", 503, "503"],
      ]);
      expect(error).toBeInstanceOf(ProviderCallError);
      const failure = (error as ProviderCallError).initFailure;
      expect(failure?.id).toMatch(/^\d+$/u);
      expect(failure?.properties).toMatchObject({
        __provider: AK,
        name: "partial",
        type: "SERVICE",
        accessKeyId: Number(failure?.id),
      });
      expect(String(failure?.properties["accessKey"])).toMatch(/^bks_/u);
      expect(failure?.reasons[0]).toMatch(/created.*503/su);
      expect((error as Error).message).not.toMatch(/bks_|bka_/u);
      // The next `pulumi up` finishes the resource with an update from what was kept.
      const outs = await faulty.update(
        urn("AccessKey", "partial"),
        failure!.id,
        failure!.properties,
        checked.inputs,
      );
      expect(outs["permissions"]).toEqual({ send: ["a/b"], receive: [], resources: {} });
    } finally {
      await faulty.stop();
    }
  });
});

describe("ServiceKeyPair", () => {
  it("rotates the pair on create and when rotationTriggers change, matching the server's pair", async () => {
    const key = await checkAndCreate("AccessKey", "pair-owner", AK, { name: "pair-owner", type: "SERVICE" });
    const pair = await checkAndCreate("ServiceKeyPair", "pair", SKP, {
      accessKey: key.outs["accessKey"],
      rotationTriggers: { q: "1" },
    });
    expect(pair.outs["publicKey"]).toBe(await emulator.controls!.publicKeyOf(Number(key.id)));
    expect(pair.outs["privateKey"]).not.toBe(key.outs["privateKey"]);
    expect(pair.outs["accessKeyId"]).toBe(Number(key.id));

    const changed = await host.check(urn("ServiceKeyPair", "pair"), pair.inputs, {
      __provider: SKP,
      accessKey: key.outs["accessKey"],
      rotationTriggers: { q: "2" },
    });
    expect(await host.diff(urn("ServiceKeyPair", "pair"), pair.id, pair.outs, changed.inputs)).toEqual({
      changes: "some",
      replaces: [],
    });
    const rotated = await host.update(urn("ServiceKeyPair", "pair"), pair.id, pair.outs, changed.inputs);
    expect(rotated["privateKey"]).not.toBe(pair.outs["privateKey"]);
    expect(rotated["publicKey"]).toBe(await emulator.controls!.publicKeyOf(Number(key.id)));
  });

  it("rejects an ACCOUNT key with a clear error", async () => {
    const key = await checkAndCreate("AccessKey", "acct", AK, { name: "acct", type: "ACCOUNT" });
    const checked = await host.check(
      urn("ServiceKeyPair", "bad"),
      {},
      { __provider: SKP, accessKey: key.outs["accessKey"] },
    );
    const error = (await host
      .create(urn("ServiceKeyPair", "bad"), checked.inputs)
      .catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/ACCOUNT key; only SERVICE keys have encryption key pairs/u);
    expect(error.message).not.toContain(String(key.outs["accessKey"]));
  });

  it("leaves the stack on refresh when its key is gone", async () => {
    const key = await checkAndCreate("AccessKey", "short-lived", AK, {
      name: "short-lived",
      type: "SERVICE",
    });
    const pair = await checkAndCreate("ServiceKeyPair", "short-pair", SKP, {
      accessKey: key.outs["accessKey"],
    });
    await emulator.controls!.removeAccessKey(Number(key.id));
    expect((await host.read(urn("ServiceKeyPair", "short-pair"), pair.id, pair.outs)).id).toBe("");
  });
});

describe("under injected faults", () => {
  async function cycle(prefix: string): Promise<void> {
    await checkAndCreate("Workspace", `${prefix}-ws`, WS, { name: `${prefix}-ws` });
    const key = await checkAndCreate("AccessKey", `${prefix}-key`, AK, {
      name: `${prefix}-key`,
      type: "SERVICE",
      permissions: { send: ["a/b"] },
    });
    await checkAndCreate("ServiceKeyPair", `${prefix}-pair`, SKP, { accessKey: key.outs["accessKey"] });
    const changed = await host.check(urn("AccessKey", `${prefix}-key`), key.inputs, {
      __provider: AK,
      name: `${prefix}-key`,
      type: "SERVICE",
      permissions: { send: ["a/b", "c/*"], receive: ["d/e"] },
    });
    await host.update(urn("AccessKey", `${prefix}-key`), key.id, key.outs, changed.inputs);
    const doomed = await checkAndCreate("AccessKey", `${prefix}-doomed`, AK, {
      name: `${prefix}-doomed`,
      type: "ACCOUNT",
      permissions: { send: ["z/z"] },
    });
    await host.delete(urn("AccessKey", `${prefix}-doomed`), doomed.id, doomed.outs);
  }

  async function snapshot(prefix: string): Promise<unknown> {
    const keys = (await apiOf(emulator).listAll("/access-key")).filter((k) =>
      String(k["name"]).startsWith(`${prefix}-`),
    );
    const workspaces = (await apiOf(emulator).listAll("/workspace")).filter((w) =>
      String(w["name"]).startsWith(`${prefix}-`),
    );
    return {
      keys: keys.map((k) => ({
        name: String(k["name"]).slice(prefix.length),
        type: k["type"],
        permissions: k["permissions"],
      })),
      workspaces: workspaces.map((w) => String(w["name"]).slice(prefix.length)),
    };
  }

  it("a create, update and destroy cycle ends in the same server state as without faults, without duplicates", async () => {
    await cycle("calm");
    const mix = [
      ["429", "before"],
      ["503", "before"],
      ["503", "after"],
      ["reset", "before"],
      ["reset", "after"],
    ] as const;
    await injectFaultMix(emulator.controls!, mix, 7);
    await emulator.controls!.clearRequests();
    await cycle("faulty");
    const { struck, applied } = await struckRequests(emulator.controls!);
    await emulator.controls!.clearFaults();
    // The faults really struck (the retries, not luck, made the cycle succeed).
    expect(struck.length).toBeGreaterThan(0);
    expect(struck).toHaveLength(applied);
    expect(new Set(struck.map((r) => r.fault)).size, "more than one kind of fault struck").toBeGreaterThan(1);
    expect(await snapshot("faulty")).toEqual(await snapshot("calm"));
  });
});
