/**
 * The `broker` plugin's resources over the core, driven in-process through gRPC against the
 * emulator: whole property Structs (secrets and unknowns included) for each step of each
 * resource's lifecycle, import by id, the endpoint guard, previews, set-semantics detailed diffs
 * and a create that fails half-way.
 */
import { STACK_SETTING_NAMES } from "../../src/settings/connection";
import { status } from "@grpc/grpc-js";
import * as rpc from "@pulumi/pulumi/proto/provider_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BrokerClient } from "../../src/client";
import { checkWorkspace } from "../../src/core/workspace";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { BROKER_RESOURCES } from "../../src/native/resources";
import { startProviderServer } from "../../src/native/server";
import {
  checkedServiceKeyInputs,
  failure,
  providerClient,
  secret,
  struct,
  UNKNOWN,
  type LoggedMessage,
} from "../support/plugin-server";
import { startPluginStand, type PluginStand } from "../support/plugin-stand";

type Plain = Record<string, unknown>;
type Client = ReturnType<typeof providerClient>;

const WORKSPACE = "broker:index:Workspace";
const ACCESS_KEY = "broker:index:AccessKey";
const KEY_PAIR = "broker:index:ServiceKeyPair";
const urnOf = (type: string, name: string) => `urn:pulumi:dev::proj::${type}::${name}`;

let stand: PluginStand;
let emulator: EmulatorHandle;
let engine: PluginStand["engine"];
let client: Client;
/** A client of the API outside Pulumi, to make objects to import and to look at the server. */
let outside: BrokerClient;

beforeAll(async () => {
  stand = await startPluginStand();
  ({ emulator, engine, client, api: outside } = stand);
});

afterAll(async () => {
  await stand.close();
});

/** Points the provider at the emulator (no retries, so one injected fault is one failure). */
async function configure(on: Client = client, args: Plain = {}): Promise<void> {
  await on.configure(
    new rpc.ConfigureRequest()
      .setArgs(struct({ baseUrl: emulator.url, apiKey: secret(emulator.adminKey), maxRetries: "0", ...args }))
      .setAcceptsecrets(true),
  );
}

beforeEach(async () => {
  await configure();
});

const plain = (s: Struct | undefined): Plain => s?.toJavaScript() ?? {};

/** The plugin's answers for one resource, as plain wire-format values. */
function resource(type: string, name: string, on: Client = client) {
  const urn = urnOf(type, name);
  return {
    urn,
    async check(news: Plain, olds: Plain = {}) {
      const response = await on.check(
        new rpc.CheckRequest().setUrn(urn).setType(type).setNews(struct(news)).setOlds(struct(olds)),
      );
      return {
        inputs: plain(response.getInputs()),
        failures: response
          .getFailuresList()
          .map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
      };
    },
    async checked(news: Plain, olds: Plain = {}): Promise<Plain> {
      const result = await this.check(news, olds);
      expect(result.failures).toEqual([]);
      return result.inputs;
    },
    async create(properties: Plain, preview = false) {
      const response = await on.create(
        new rpc.CreateRequest()
          .setUrn(urn)
          .setType(type)
          .setProperties(struct(properties))
          .setPreview(preview),
      );
      return { id: response.getId(), properties: plain(response.getProperties()) };
    },
    async diff(id: string, olds: Plain, oldInputs: Plain, news: Plain) {
      const response = await on.diff(
        new rpc.DiffRequest()
          .setUrn(urn)
          .setType(type)
          .setId(id)
          .setOlds(struct(olds))
          .setOldInputs(struct(oldInputs))
          .setNews(struct(news)),
      );
      const detailed: Record<string, string> = {};
      const kinds = Object.fromEntries(Object.entries(rpc.PropertyDiff.Kind).map(([k, v]) => [v, k]));
      response.getDetaileddiffMap().forEach((entry, path) => {
        detailed[path] = kinds[entry.getKind()] ?? "?";
      });
      return {
        changes: response.getChanges(),
        diffs: response.getDiffsList(),
        replaces: response.getReplacesList(),
        stables: response.getStablesList(),
        detailed,
        deleteBeforeReplace: response.getDeletebeforereplace(),
      };
    },
    async update(id: string, olds: Plain, oldInputs: Plain, news: Plain, preview = false) {
      const response = await on.update(
        new rpc.UpdateRequest()
          .setUrn(urn)
          .setType(type)
          .setId(id)
          .setOlds(struct(olds))
          .setOldInputs(struct(oldInputs))
          .setNews(struct(news))
          .setPreview(preview),
      );
      return plain(response.getProperties());
    },
    async read(id: string, properties: Plain = {}, inputs: Plain = {}) {
      const response = await on.read(
        new rpc.ReadRequest()
          .setUrn(urn)
          .setType(type)
          .setId(id)
          .setProperties(struct(properties))
          .setInputs(struct(inputs)),
      );
      return {
        id: response.getId(),
        properties: plain(response.getProperties()),
        inputs: plain(response.getInputs()),
      };
    },
    delete(id: string, properties: Plain) {
      return on.delete(
        new rpc.DeleteRequest().setUrn(urn).setType(type).setId(id).setProperties(struct(properties)),
      );
    },
  };
}

/** The messages the engine received while `work` ran. */
async function logged(work: () => Promise<unknown>): Promise<LoggedMessage[]> {
  const before = engine.messages.length;
  await work();
  return engine.messages.slice(before);
}

const EMPTY_PERMISSIONS = { send: [], receive: [], resources: {} };
const ISO_TIME = expect.stringMatching(/^\d{4}-\d\d-\d\dT/u) as unknown;

describe("a workspace", () => {
  it("goes through check, preview, create, diff, update, refresh and delete (forgotten, with a warning under it)", async () => {
    const ws = resource(WORKSPACE, "team");
    const inputs = await ws.checked({ name: "lifecycle" });
    expect(inputs).toEqual({
      name: "lifecycle",
      parentId: 0,
      adopt: false,
      allowEndpointChange: false,
      baseUrl: emulator.url,
    });
    expect(await ws.create(inputs, true)).toEqual({ id: "", properties: inputs });

    const created = await ws.create(inputs);
    const outputs = {
      ...inputs,
      workspaceId: Number(created.id),
      path: "/lifecycle",
      createdAt: ISO_TIME,
      adopted: false,
    };
    expect(created.properties).toEqual(outputs);

    const news = await ws.checked({ name: "lifecycle", adopt: true }, inputs);
    const diff = await ws.diff(created.id, created.properties, inputs, news);
    expect(diff).toEqual({
      changes: rpc.DiffResponse.DiffChanges.DIFF_SOME,
      diffs: ["adopt"],
      replaces: [],
      stables: [
        "adopted",
        "allowEndpointChange",
        "baseUrl",
        "createdAt",
        "name",
        "parentId",
        "path",
        "workspaceId",
      ],
      detailed: { adopt: "UPDATE" },
      deleteBeforeReplace: false,
    });
    const updatedOutputs = { ...created.properties, adopt: true };
    expect(await ws.update(created.id, created.properties, inputs, news, true)).toEqual(updatedOutputs);
    expect(await ws.update(created.id, created.properties, inputs, news)).toEqual(updatedOutputs);

    expect(await ws.read(created.id, updatedOutputs, news)).toEqual({
      id: created.id,
      properties: updatedOutputs,
      inputs: news,
    });

    const messages = await logged(() => ws.delete(created.id, updatedOutputs));
    expect(messages).toEqual([
      {
        severity: "warning",
        urn: ws.urn,
        message: expect.stringContaining(
          `Workspace /lifecycle (id ${created.id}) was removed from the stack but still exists on the broker`,
        ) as unknown,
      },
    ]);
    expect(await outside.getWorkspace(Number(created.id))).toMatchObject({ name: "lifecycle" });
  });

  it("replaces on a rename, with no stables, and counts a name not known yet as a replacing change", async () => {
    const ws = resource(WORKSPACE, "renamed");
    const inputs = await ws.checked({ name: "before-rename" });
    const created = await ws.create(inputs);
    const renamed = await ws.diff(
      created.id,
      created.properties,
      inputs,
      await ws.checked({ name: "after-rename" }, inputs),
    );
    expect(renamed).toMatchObject({
      changes: rpc.DiffResponse.DiffChanges.DIFF_SOME,
      diffs: ["name"],
      replaces: ["name"],
      stables: [],
      detailed: { name: "UPDATE_REPLACE" },
    });
    const unknown = await ws.diff(
      created.id,
      created.properties,
      inputs,
      await ws.checked({ name: UNKNOWN }, inputs),
    );
    expect(unknown.detailed).toEqual({ name: "UPDATE_REPLACE" });
  });
});

describe("an access key", () => {
  it("goes through its lifecycle with whole outputs, secrets included, and is revoked on delete", async () => {
    const key = resource(ACCESS_KEY, "orders");
    const inputs = await key.checked({
      name: "lifecycle-key",
      type: "SERVICE",
      permissions: { send: ["b/x", "a/x", "a/x"] },
    });
    expect(inputs).toEqual(checkedServiceKeyInputs("lifecycle-key", emulator.url));
    // Preview: the inputs; the server-made outputs are left out (the engine reads them as unknown).
    expect(await key.create(inputs, true)).toEqual({ id: "", properties: inputs });

    const created = await key.create(inputs);
    const record = await outside.findAccessKeyById(Number(created.id));
    if (record === undefined) throw new Error("the key was not created");
    const publicKey = created.properties["publicKey"];
    expect(created.properties).toEqual({
      ...inputs,
      accessKey: secret(record.key),
      accessKeyId: record.id,
      createdAt: record.createdAt,
      adopted: false,
      publicKey: expect.any(String) as unknown,
      privateKey: secret(expect.any(String)),
    });

    const news = await key.checked(
      { name: "lifecycle-key", type: "SERVICE", permissions: { send: ["a/x", "b/x", "c/x"] } },
      inputs,
    );
    const updated = {
      ...created.properties,
      permissions: { send: ["a/x", "b/x", "c/x"], receive: [], resources: {} },
    };
    // The preview knows the result: every recorded output (the key, its id, its pair) stays known.
    expect(await key.update(created.id, created.properties, inputs, news, true)).toEqual(updated);
    expect(await key.update(created.id, created.properties, inputs, news)).toEqual(updated);
    expect((await outside.getAccessKeyPermissions(record.key)).permissions.send).toEqual([
      "a/x",
      "b/x",
      "c/x",
    ]);

    expect(await key.read(created.id, updated, news)).toEqual({
      id: created.id,
      properties: updated,
      inputs: news,
    });

    const messages = await logged(() => key.delete(created.id, updated));
    expect(messages).toEqual([
      {
        severity: "warning",
        urn: key.urn,
        message: expect.stringContaining(
          `Access key "lifecycle-key" (id ${created.id}) was revoked`,
        ) as unknown,
      },
    ]);
    expect((await outside.getAccessKeyPermissions(record.key)).permissions).toEqual(EMPTY_PERMISSIONS);
    expect(typeof publicKey).toBe("string");
  });

  it("diffs permission lists as sets: reordering and repeats are no change; entries are added and removed by index", async () => {
    const key = resource(ACCESS_KEY, "sets");
    const inputs = await key.checked({
      name: "set-key",
      type: "ACCOUNT",
      permissions: { send: ["b/x", "a/x", "c/x"] },
    });
    const created = await key.create(inputs);
    const diffTo = async (send: string[]) =>
      key.diff(
        created.id,
        created.properties,
        inputs,
        await key.checked({ name: "set-key", type: "ACCOUNT", permissions: { send } }, inputs),
      );

    for (const same of [
      ["c/x", "a/x", "b/x"],
      ["a/x", "b/x", "b/x", "c/x", "a/x"],
    ]) {
      const diff = await diffTo(same);
      expect(diff.changes).toBe(rpc.DiffResponse.DiffChanges.DIFF_NONE);
      expect(diff.detailed).toEqual({});
    }

    // Old (normalised) [a, b, c], new [a, c, d]: b goes at old index 1, d comes at new index 2.
    expect(await diffTo(["d/x", "c/x", "a/x", "d/x"])).toEqual({
      changes: rpc.DiffResponse.DiffChanges.DIFF_SOME,
      diffs: ["permissions"],
      replaces: [],
      stables: [
        "accessKey",
        "accessKeyId",
        "adopt",
        "adopted",
        "allowEndpointChange",
        "baseUrl",
        "createdAt",
        "name",
        "onDelete",
        "privateKey",
        "publicKey",
        "rotationTriggers",
        "type",
      ],
      detailed: { "permissions.send[1]": "DELETE", "permissions.send[2]": "ADD" },
      deleteBeforeReplace: false,
    });
  });

  it("lets a key pair built from it preview as unchanged while its permissions are updated", async () => {
    const key = resource(ACCESS_KEY, "paired");
    const pair = resource(KEY_PAIR, "paired");
    const keyInputs = await key.checked({ name: "paired-key", type: "SERVICE" });
    const createdKey = await key.create(keyInputs);
    const pairInputs = await pair.checked({ accessKey: createdKey.properties["accessKey"] });
    const createdPair = await pair.create(pairInputs);

    const keyNews = await key.checked(
      { name: "paired-key", type: "SERVICE", permissions: { send: ["n/x"] } },
      keyInputs,
    );
    const previewed = await key.update(createdKey.id, createdKey.properties, keyInputs, keyNews, true);
    expect(previewed["accessKey"]).toEqual(createdKey.properties["accessKey"]);

    // The pair's input comes from the previewed key output: known, so nothing changes.
    const pairNews = await pair.checked({ accessKey: previewed["accessKey"] }, pairInputs);
    expect(pairNews).toEqual(pairInputs);
    const diff = await pair.diff(createdPair.id, createdPair.properties, pairInputs, pairNews);
    expect(diff.changes).toBe(rpc.DiffResponse.DiffChanges.DIFF_NONE);
  });
});

describe("the key the provider authenticates with (issue #49)", () => {
  it("is never revoked: Delete fails before any request, and Diff warns in the preview of a replacement", async () => {
    const key = resource(ACCESS_KEY, "own");
    const inputs = await key.checked({ name: "admin", type: "ACCOUNT", adopt: true, onDelete: "revoke" });
    const created = await key.create(inputs);
    expect(created.properties["accessKey"]).toMatchObject({ value: emulator.adminKey });
    const before = await outside.getAccessKeyPermissions(emulator.adminKey);

    const renamed = await key.checked(
      { name: "admin-2", type: "ACCOUNT", adopt: true, onDelete: "revoke" },
      inputs,
    );
    const messages = await logged(() => key.diff(created.id, created.properties, inputs, renamed));
    expect(messages).toEqual([
      {
        severity: "warning",
        urn: key.urn,
        message: expect.stringMatching(
          /^This change replaces the object, and the replacement will fail when it revokes the old one: access key "admin" \(id \d+\) is the key this provider authenticates with/u,
        ) as unknown,
      },
    ]);

    await emulator.controls!.clearRequests();
    const error = await key.delete(created.id, created.properties).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(
      /Refusing to revoke: access key "admin" \(id \d+\) is the key this provider/u,
    );
    expect(error?.message).not.toContain(emulator.adminKey);
    expect(await emulator.controls!.requests()).toEqual([]);
    expect(await outside.getAccessKeyPermissions(emulator.adminKey)).toEqual(before);
  });
});

describe("a service key pair", () => {
  it("keeps its key secret, previews a create with an unknown key, rotates in place with the new keys unknown in preview", async () => {
    const key = resource(ACCESS_KEY, "pair-key");
    const pair = resource(KEY_PAIR, "pair");
    const createdKey = await key.create(await key.checked({ name: "pair-key", type: "SERVICE" }));
    const keyValue = (createdKey.properties["accessKey"] as { value: string }).value;

    // Preview with the key not known yet: the key stays unknown (and secret), nothing else is made up.
    const unknownKey = await pair.checked({ accessKey: UNKNOWN });
    expect(unknownKey).toEqual({
      accessKey: secret(UNKNOWN),
      rotationTriggers: {},
      allowEndpointChange: false,
      baseUrl: emulator.url,
    });
    expect(await pair.create(unknownKey, true)).toEqual({ id: "", properties: unknownKey });

    // A plain key value (a program that unwrapped it) comes back from Check as a secret.
    const inputs = await pair.checked({ accessKey: keyValue, rotationTriggers: { quarter: "q1" } });
    expect(inputs).toEqual({
      accessKey: secret(keyValue),
      rotationTriggers: { quarter: "q1" },
      allowEndpointChange: false,
      baseUrl: emulator.url,
    });
    const created = await pair.create(inputs);
    expect(created).toEqual({
      id: createdKey.id,
      properties: {
        ...inputs,
        accessKeyId: Number(createdKey.id),
        publicKey: expect.any(String) as unknown,
        privateKey: secret(expect.any(String)),
        rotatedAt: ISO_TIME,
      },
    });

    const news = await pair.checked(
      { accessKey: secret(keyValue), rotationTriggers: { quarter: "q2" } },
      inputs,
    );
    expect(await pair.diff(created.id, created.properties, inputs, news)).toEqual({
      changes: rpc.DiffResponse.DiffChanges.DIFF_SOME,
      diffs: ["rotationTriggers"],
      replaces: [],
      stables: ["accessKey", "accessKeyId", "allowEndpointChange", "baseUrl"],
      detailed: { "rotationTriggers.quarter": "UPDATE" },
      deleteBeforeReplace: false,
    });
    expect(await pair.update(created.id, created.properties, inputs, news, true)).toEqual({
      ...created.properties,
      rotationTriggers: { quarter: "q2" },
      publicKey: UNKNOWN,
      privateKey: secret(UNKNOWN),
      rotatedAt: UNKNOWN,
    });
    const rotated = await pair.update(created.id, created.properties, inputs, news);
    expect(rotated).toEqual({
      ...created.properties,
      rotationTriggers: { quarter: "q2" },
      publicKey: expect.any(String) as unknown,
      privateKey: secret(expect.any(String)),
      rotatedAt: ISO_TIME,
    });
    expect(rotated["publicKey"]).not.toEqual(created.properties["publicKey"]);

    const messages = await logged(() => pair.delete(created.id, rotated));
    expect(messages).toEqual([
      {
        severity: "warning",
        urn: pair.urn,
        message: expect.stringContaining(
          `The service key pair of access key ${created.id} was removed from the stack`,
        ) as unknown,
      },
    ]);
  });

  it("cannot be imported, and says why with FAILED_PRECONDITION", async () => {
    const error = await failure(resource(KEY_PAIR, "imported").read("12"));
    expect(error.code).toBe(status.FAILED_PRECONDITION);
    expect(error.details).toContain("Service key pair 12 cannot be read without its recorded state");
  });
});

describe("import by id", () => {
  it("rebuilds a workspace made outside Pulumi; Check and Diff of the result are clean", async () => {
    await outside.createWorkspace({ name: "made-outside" });
    const made = (await outside.listWorkspaces({ pageIndex: 0, name: "made-outside" })).results[0];
    if (made === undefined) throw new Error("the workspace was not made");
    const ws = resource(WORKSPACE, "imported");
    const imported = await ws.read(String(made.id));
    const inputs = {
      name: "made-outside",
      parentId: 0,
      adopt: false,
      allowEndpointChange: false,
      baseUrl: emulator.url,
    };
    expect(imported).toEqual({
      id: String(made.id),
      properties: {
        ...inputs,
        workspaceId: made.id,
        path: "/made-outside",
        createdAt: made.createdAt,
        adopted: false,
      },
      inputs,
    });
    const checked = await ws.checked(imported.inputs, imported.inputs);
    expect(checked).toEqual(imported.inputs);
    const diff = await ws.diff(imported.id, imported.properties, imported.inputs, checked);
    expect(diff.changes).toBe(rpc.DiffResponse.DiffChanges.DIFF_NONE);
  });

  it("rebuilds an access key made outside Pulumi with its value as a secret; Check and Diff are clean", async () => {
    const made = await outside.createAccessKey({
      name: "key-made-outside",
      type: "ACCOUNT",
      permissions: { receive: ["z/*", "y/*"] },
    });
    const key = resource(ACCESS_KEY, "imported");
    const imported = await key.read(String(made.accessKeyId));
    const inputs = {
      name: "key-made-outside",
      type: "ACCOUNT",
      permissions: { send: [], receive: ["y/*", "z/*"], resources: {} },
      adopt: false,
      rotationTriggers: {},
      allowEndpointChange: false,
      baseUrl: emulator.url,
    };
    expect(imported).toEqual({
      id: String(made.accessKeyId),
      properties: {
        ...inputs,
        accessKey: secret(made.accessKey),
        accessKeyId: made.accessKeyId,
        createdAt: ISO_TIME,
        adopted: false,
      },
      inputs,
    });
    const checked = await key.checked(imported.inputs, imported.inputs);
    expect(checked).toEqual(imported.inputs);
    const diff = await key.diff(imported.id, imported.properties, imported.inputs, checked);
    expect(diff.changes).toBe(rpc.DiffResponse.DiffChanges.DIFF_NONE);
  });

  it("answers an empty id for an id nothing has, and a clear error for an id that is not a number", async () => {
    expect((await resource(ACCESS_KEY, "ghost").read("987654")).id).toBe("");
    expect((await resource(WORKSPACE, "ghost").read("987654")).id).toBe("");
    const error = await failure(resource(WORKSPACE, "named").read("team"));
    expect(error.details).toBe(
      'Workspace id must be the object\'s numeric id on the broker (such as 42), got "team".',
    );
  });
});

describe("the endpoint guard", () => {
  const ELSEWHERE = "http://elsewhere.test/v1";

  it("fails Check on baseUrl with the core's message when the provider points elsewhere, and moves on purpose", async () => {
    const ws = resource(WORKSPACE, "guarded");
    const inputs = await ws.checked({ name: "guarded" });
    const created = await ws.create(inputs);

    await configure(client, { baseUrl: ELSEWHERE });
    const moved = await ws.check({ name: "guarded" }, inputs);
    const expected = checkWorkspace(
      { configuredBaseUrl: () => ELSEWHERE, settingNames: STACK_SETTING_NAMES },
      { name: "guarded" },
      emulator.url,
    );
    expect(expected.failures).toHaveLength(1);
    expect(moved).toEqual({ inputs: { name: "guarded" }, failures: expected.failures });

    // Refresh and delete against the wrong endpoint refuse to run.
    const refresh = await failure(ws.read(created.id, created.properties, inputs));
    expect(refresh.details).toContain(
      `Refreshing workspace ${created.id}: this resource lives at ${emulator.url}`,
    );

    const allowed = await ws.checked({ name: "guarded", allowEndpointChange: true }, inputs);
    expect(allowed).toEqual({ ...inputs, allowEndpointChange: true, baseUrl: ELSEWHERE });
    const diff = await ws.diff(created.id, created.properties, inputs, allowed);
    expect(diff).toMatchObject({
      replaces: ["baseUrl"],
      detailed: { baseUrl: "UPDATE_REPLACE", allowEndpointChange: "UPDATE" },
    });
  });

  it("refuses to revoke a key recorded at another endpoint", async () => {
    const key = resource(ACCESS_KEY, "guarded");
    const created = await key.create(await key.checked({ name: "guarded-key", type: "ACCOUNT" }));
    await configure(client, { baseUrl: ELSEWHERE });
    const error = await failure(key.delete(created.id, created.properties));
    expect(error.details).toContain(
      `Revoking access key "guarded-key": this resource lives at ${emulator.url}`,
    );
  });
});

describe("provider instances", () => {
  it("each use their own endpoint and credentials, from Configure or the server's environment", async () => {
    const second = await startEmulator();
    const viaEnv = await startProviderServer({
      resources: BROKER_RESOURCES,
      env: { BROKER_BASE_URL: second.url, BROKER_API_KEY: second.adminKey },
    });
    const otherClient = providerClient(viaEnv.port);
    const check = new BrokerClient({ baseUrl: second.url, apiKey: second.adminKey });
    try {
      await otherClient.configure(new rpc.ConfigureRequest().setArgs(struct({})).setAcceptsecrets(true));
      const ws = resource(WORKSPACE, "second", otherClient);
      const created = await ws.create(await ws.checked({ name: "only-on-second" }));
      expect(created.properties["baseUrl"]).toBe(second.url);
      expect(await check.getWorkspace(Number(created.id))).toMatchObject({ name: "only-on-second" });
      // The first provider, configured for the first emulator, is untouched.
      const first = await resource(WORKSPACE, "first").checked({ name: "x" });
      expect(first["baseUrl"]).toBe(emulator.url);
      expect((await outside.listWorkspaces({ pageIndex: 0, name: "only-on-second" })).results).toEqual([]);
    } finally {
      await check.close();
      otherClient.close();
      await viaEnv.close();
      await second.close();
    }
  });
});

describe("a create that fails after the object exists", () => {
  it("reaches the engine as rpc.ErrorResourceInitFailed with the key's secrets and secret inputs kept", async () => {
    const key = resource(ACCESS_KEY, "partial");
    const inputs = await key.checked({
      name: secret("partial-key"),
      type: "SERVICE",
      permissions: { send: ["a/b"] },
    });
    expect(inputs["name"]).toEqual(secret("partial-key"));
    await emulator.controls?.injectFault({
      kind: "503",
      count: 1,
      routes: ["GET /access-key/{accessKey}/permissions"],
    });
    const error = await failure(key.create(inputs));
    expect(error.code).toBe(status.UNKNOWN);
    expect(error.details).toContain('Access key "partial-key" was created (id ');
    const bytes = error.metadata.get("grpc-status-details-bin")[0];
    if (!(bytes instanceof Buffer)) throw new Error("no status details");
    const detail = Status.deserializeBinary(new Uint8Array(bytes))
      .getDetailsList()[0]
      ?.unpack((b) => rpc.ErrorResourceInitFailed.deserializeBinary(b), "pulumirpc.ErrorResourceInitFailed");
    const id = detail?.getId() ?? "";
    const record = await outside.findAccessKeyById(Number(id));
    if (record === undefined) throw new Error("the key was not created");
    // No permissions and no createdAt: the read-back failed; the next update finishes the key.
    expect(detail?.getProperties()?.toJavaScript()).toEqual({
      name: secret("partial-key"),
      type: "SERVICE",
      adopt: false,
      rotationTriggers: {},
      allowEndpointChange: false,
      baseUrl: emulator.url,
      accessKey: secret(record.key),
      accessKeyId: record.id,
      adopted: false,
      publicKey: expect.any(String) as unknown,
      privateKey: secret(expect.any(String)),
    });
    expect(detail?.getReasonsList()).toEqual([
      expect.stringContaining('Access key "partial-key" was created'),
    ]);
  });
});
