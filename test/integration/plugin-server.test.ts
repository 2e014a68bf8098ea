import { status } from "@grpc/grpc-js";
import { PluginAttach } from "@pulumi/pulumi/proto/plugin_pb";
import {
  CheckRequest,
  ConfigureRequest,
  ConstructRequest,
  CreateRequest,
  DeleteRequest,
  DiffRequest,
  DiffResponse,
  ErrorResourceInitFailed,
  GetSchemaRequest,
  PropertyDiff,
  ProviderHandshakeRequest,
  ReadRequest,
  UpdateRequest,
  type CheckResponse,
  type CreateResponse,
} from "@pulumi/pulumi/proto/provider_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultIntentStore } from "../../src/core/intents";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { pv } from "../../src/native/codec";
import { BROKER_RESOURCES } from "../../src/native/resources";
import type { ResourceAdapter } from "../../src/native/resource-adapter";
import { startProviderServer, type RunningServer } from "../../src/native/server";
import {
  checkedServiceKeyInputs,
  failure,
  providerClient,
  secret,
  startFakeEngine,
  struct,
  UNKNOWN,
  expectBrokerSchema,
  withProviderServer,
  type LoggedMessage,
} from "../support/plugin-server";
import { waitFor } from "../reliability/support/processes";

const VERSION = (
  JSON.parse(readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8")) as { version: string }
).version;
const KEY_URN = "urn:pulumi:dev::proj::broker:index:AccessKey::orders";
const WORKSPACE_URN = "urn:pulumi:dev::proj::broker:index:Workspace::team";
const PROVIDER_URN = "urn:pulumi:dev::proj::pulumi:providers:broker::default";

const plain = (s: Struct | undefined) => s?.toJavaScript();

let emulator: EmulatorHandle;
let engine: Awaited<ReturnType<typeof startFakeEngine>>;
let server: RunningServer;
let client: ReturnType<typeof providerClient>;

beforeAll(async () => {
  emulator = await startEmulator();
  engine = await startFakeEngine();
  // No BROKER_* variables: the provider must get its settings from Configure.
  server = await startProviderServer({ engineAddress: engine.address, resources: BROKER_RESOURCES, env: {} });
  client = providerClient(server.port);
});

afterAll(async () => {
  client.close();
  await server.close();
  await engine.close();
  await emulator.close();
});

/** An adapter whose every operation fails, to override one operation in a test. */
function workspaceAdapter(): ResourceAdapter {
  const unused = () => Promise.reject(new Error("not used by this test"));
  return {
    token: "broker:index:Workspace",
    check: unused,
    diff: unused,
    create: unused,
    read: unused,
    update: unused,
    delete: unused,
    encodeFailedProperties: () => ({}),
  };
}

function checkRequest(urn: string, news: Record<string, unknown>, olds: Record<string, unknown> = {}) {
  return new CheckRequest()
    .setUrn(urn)
    .setType(urn.split("::")[2] ?? "")
    .setNews(struct(news))
    .setOlds(struct(olds));
}

/**
 * Fills in `request` (a Diff or an Update) as the engine does for the resource `created` made from
 * the inputs `checked`, now declared with the inputs `news` (both as Check answered them).
 */
function changeOf<R extends DiffRequest | UpdateRequest>(
  request: R,
  urn: string,
  created: CreateResponse,
  checked: CheckResponse,
  news: CheckResponse,
): R {
  request.setUrn(urn);
  request.setType(urn.split("::")[2] ?? "");
  request.setId(created.getId());
  request.setOlds(created.getProperties());
  request.setOldInputs(checked.getInputs());
  request.setNews(news.getInputs());
  return request;
}

async function configure(args: Record<string, unknown>, variables: Record<string, string> = {}) {
  const request = new ConfigureRequest().setArgs(struct(args)).setAcceptsecrets(true);
  for (const [key, value] of Object.entries(variables)) request.getVariablesMap().set(key, value);
  return client.configure(request);
}

describe("plugin information", () => {
  it("reports the package's version", async () => {
    const info = await client.getPluginInfo(new Empty());
    expect(info.getVersion()).toBe(VERSION);
  });

  it("serves schema.json with the package's version filled in", async () => {
    const response = await client.getSchema(new GetSchemaRequest());
    expectBrokerSchema(response.getSchema(), VERSION);
  });
});

describe("provider configuration", () => {
  it("CheckConfig reports a bad baseUrl against that property", async () => {
    const response = await client.checkConfig(
      checkRequest(PROVIDER_URN, { baseUrl: "ftp://x/v2", apiKey: secret("k") }),
    );
    expect(response.getFailuresList().map((f) => f.getProperty())).toEqual(["baseUrl"]);
    expect(response.getFailuresList()[0]?.getReason()).toContain("Invalid broker API base URL");
  });

  it("CheckConfig returns a plain API key as a secret, without a warning (the engine sends it no secrets)", async () => {
    const before = engine.messages.length;
    const response = await client.checkConfig(
      checkRequest(PROVIDER_URN, { baseUrl: emulator.url, apiKey: "bka_plain", timeoutMs: "30000" }),
    );
    expect(response.getFailuresList()).toEqual([]);
    expect(plain(response.getInputs())).toEqual({
      baseUrl: emulator.url,
      apiKey: secret("bka_plain"),
      timeoutMs: "30000",
    });
    expect(engine.messages.slice(before)).toEqual([]);
  });

  it("Configure warns through the engine when the API key arrives as a plain value, and not when it is a secret", async () => {
    const before = engine.messages.length;
    await configure({ baseUrl: emulator.url, apiKey: secret(emulator.adminKey) });
    expect(engine.messages.slice(before)).toEqual([]);
    await configure({ baseUrl: emulator.url, apiKey: "bka_plain" });
    const logged: LoggedMessage[] = engine.messages.slice(before);
    expect(logged).toHaveLength(1);
    expect(logged[0]?.severity).toBe("warning");
    expect(logged[0]?.message).toContain("is not a secret");
    expect(logged[0]?.message).not.toContain("bka_plain");
    await configure({ baseUrl: emulator.url, apiKey: secret(emulator.adminKey) });
  });

  it("DiffConfig shows a baseUrl change as an update, never a replacement", async () => {
    const request = new DiffRequest()
      .setUrn(PROVIDER_URN)
      .setOlds(struct({ baseUrl: "http://a.test/v1" }))
      .setOldInputs(struct({ baseUrl: "http://a.test/v1" }))
      .setNews(struct({ baseUrl: "http://b.test/v1" }));
    const response = await client.diffConfig(request);
    expect(response.getChanges()).toBe(DiffResponse.DiffChanges.DIFF_SOME);
    expect(response.getDiffsList()).toEqual(["baseUrl"]);
    expect(response.getReplacesList()).toEqual([]);
  });

  it("Configure accepts secrets and preview, takes no resources, and needs no credentials", async () => {
    const response = await configure({});
    expect(response.getAcceptsecrets()).toBe(true);
    expect(response.getSupportspreview()).toBe(true);
    expect(response.getAcceptresources()).toBe(false);
  });

  /** A real (not preview) create of workspace "x", which needs the API. */
  const createWorkspaceX = () =>
    client.create(
      new CreateRequest()
        .setUrn(WORKSPACE_URN)
        .setType("broker:index:Workspace")
        .setProperties(struct({ name: "x", parentId: 0, adopt: false })),
    );

  it("a create without credentials fails with the settings message, naming broker:baseUrl", async () => {
    await configure({});
    const error = await failure(createWorkspaceX());
    expect(error.code).toBe(status.UNKNOWN);
    expect(error.details).toContain("broker:baseUrl");
  });

  it("an API error names the stack settings, as the dynamic providers' messages do", async () => {
    await configure({ baseUrl: emulator.url, apiKey: secret("bka_not-a-key-of-this-broker") });
    const error = await failure(createWorkspaceX());
    expect(error.code).toBe(status.UNKNOWN);
    expect(error.details).toContain("401");
    expect(error.details).toContain("broker:apiKey (or BROKER_API_KEY)");
    expect(error.details).not.toContain("bka_not-a-key-of-this-broker");
  });
});

describe("resources against the emulator", () => {
  beforeAll(async () => {
    // `variables` point elsewhere: the provider must read `args`.
    await configure(
      { baseUrl: emulator.url, apiKey: secret(emulator.adminKey), timeoutMs: "30000", maxRetries: "1" },
      { "broker:config:baseUrl": "http://wrong.invalid/v1" },
    );
  });

  it("rejects an unknown type token with INVALID_ARGUMENT", async () => {
    const error = await failure(
      client.check(checkRequest("urn:pulumi:dev::proj::broker:index:Queue::q", { name: "q" })),
    );
    expect(error.code).toBe(status.INVALID_ARGUMENT);
    expect(error.details).toContain('no resource type "broker:index:Queue"');
  });

  it("rejects a Construct of a type that is no component with INVALID_ARGUMENT, naming the components", async () => {
    const request = new ConstructRequest()
      .setType("broker:index:Workspace")
      .setName("team")
      .setProject("proj")
      .setStack("dev")
      .setMonitorendpoint("127.0.0.1:1");
    const error = await failure(client.construct(request));
    expect(error.code).toBe(status.INVALID_ARGUMENT);
    expect(error.details).toBe(
      'The broker provider has no resource type "broker:index:Workspace"; it serves broker:index:Environment.',
    );
  });

  it("Check reports bad input per property, with no error", async () => {
    const response = await client.check(checkRequest(KEY_URN, { name: "", type: "ROOT" }));
    expect(response.getFailuresList().map((f) => f.getProperty())).toEqual(["name", "type"]);
  });

  it("Check names a resource without a name as its interrupted create did (its intent), else anew", async () => {
    // A stack of its own: the intents live in the process's Pulumi home, as a user's do.
    const urn = `urn:pulumi:check-${process.pid}::intents::broker:index:Workspace::orders`;
    const intents = defaultIntentStore();
    await intents.write({
      version: 1,
      urn,
      baseUrl: emulator.url,
      sentAt: new Date().toISOString(),
      kind: "Workspace",
      object: { name: "orders-7c0ffee", parentId: 0 },
    });
    try {
      const named = await client.check(checkRequest(urn, {}));
      expect(named.getFailuresList()).toEqual([]);
      expect(named.getInputs()?.toJavaScript()["name"]).toBe("orders-7c0ffee");
    } finally {
      await intents.remove(urn);
    }
    const anew = await client.check(checkRequest(urn, {}));
    expect(anew.getInputs()?.toJavaScript()["name"]).toMatch(/^orders-[0-9a-f]{7}$/u);
    expect(anew.getInputs()?.toJavaScript()["name"]).not.toBe("orders-7c0ffee");
  });

  it("takes an access key through check, preview, create, diff, update, read and delete", async () => {
    const checked = await client.check(
      checkRequest(KEY_URN, {
        name: "orders",
        type: "SERVICE",
        permissions: { send: ["b/x", "a/x", "a/x"] },
      }),
    );
    expect(checked.getFailuresList()).toEqual([]);
    const inputs = plain(checked.getInputs());
    expect(inputs).toEqual(checkedServiceKeyInputs("orders", emulator.url));

    const preview = await client.create(
      new CreateRequest()
        .setUrn(KEY_URN)
        .setType("broker:index:AccessKey")
        .setProperties(checked.getInputs())
        .setPreview(true),
    );
    expect(preview.getId()).toBe("");
    expect(plain(preview.getProperties())).toEqual(inputs);

    const created = await client.create(
      new CreateRequest()
        .setUrn(KEY_URN)
        .setType("broker:index:AccessKey")
        .setProperties(checked.getInputs()),
    );
    expect(created.getId()).toMatch(/^\d+$/);
    const outputs = plain(created.getProperties()) as Record<string, unknown>;
    expect(outputs["accessKey"]).toEqual(secret(expect.any(String)));
    expect(outputs["privateKey"]).toEqual(secret(expect.any(String)));
    expect(typeof outputs["publicKey"]).toBe("string");
    expect(outputs["accessKeyId"]).toBe(Number(created.getId()));

    const rechecked = await client.check(
      checkRequest(
        KEY_URN,
        { name: "orders", type: "SERVICE", permissions: { send: ["a/x", "b/x", "c/x"] } },
        inputs,
      ),
    );
    const diff = await client.diff(changeOf(new DiffRequest(), KEY_URN, created, checked, rechecked));
    expect(diff.getChanges()).toBe(DiffResponse.DiffChanges.DIFF_SOME);
    expect(diff.getDiffsList()).toEqual(["permissions"]);
    expect(diff.getReplacesList()).toEqual([]);
    expect(diff.getHasdetaileddiff()).toBe(true);
    const detailed: Record<string, number> = {};
    diff.getDetaileddiffMap().forEach((entry, key) => (detailed[key] = entry.getKind()));
    expect(detailed).toEqual({ "permissions.send[2]": PropertyDiff.Kind.ADD });
    expect(diff.getStablesList()).toEqual(
      expect.arrayContaining(["accessKey", "accessKeyId", "publicKey", "privateKey"]),
    );

    const update = (preview: boolean) =>
      client.update(changeOf(new UpdateRequest(), KEY_URN, created, checked, rechecked).setPreview(preview));
    const previewed = plain((await update(true)).getProperties()) as Record<string, unknown>;
    expect(previewed["accessKey"]).toEqual(outputs["accessKey"]);
    expect(previewed["publicKey"]).toEqual(outputs["publicKey"]);
    expect(previewed["permissions"]).toEqual({ send: ["a/x", "b/x", "c/x"], receive: [], resources: {} });
    const updated = await update(false);
    expect(plain(updated.getProperties())).toEqual({
      ...outputs,
      permissions: { send: ["a/x", "b/x", "c/x"], receive: [], resources: {} },
    });

    const read = await client.read(
      new ReadRequest()
        .setUrn(KEY_URN)
        .setType("broker:index:AccessKey")
        .setId(created.getId())
        .setProperties(updated.getProperties())
        .setInputs(rechecked.getInputs()),
    );
    expect(read.getId()).toBe(created.getId());
    expect(plain(read.getProperties())).toEqual(plain(updated.getProperties()));

    await client.delete(
      new DeleteRequest()
        .setUrn(KEY_URN)
        .setType("broker:index:AccessKey")
        .setId(created.getId())
        .setProperties(updated.getProperties()),
    );
    const afterDelete = await client.read(
      new ReadRequest()
        .setUrn(KEY_URN)
        .setType("broker:index:AccessKey")
        .setId(created.getId())
        .setProperties(updated.getProperties()),
    );
    expect((plain(afterDelete.getProperties()) as Record<string, unknown>)["permissions"]).toEqual({
      send: [],
      receive: [],
      resources: {},
    });
  });

  it("diffs a workspace rename as a replacement of name, and a preview with an unknown name as a change", async () => {
    const checked = await client.check(checkRequest(WORKSPACE_URN, { name: "team" }));
    const created = await client.create(
      new CreateRequest()
        .setUrn(WORKSPACE_URN)
        .setType("broker:index:Workspace")
        .setProperties(checked.getInputs()),
    );
    const diffTo = async (name: string) => {
      const news = await client.check(checkRequest(WORKSPACE_URN, { name }, plain(checked.getInputs())));
      return client.diff(changeOf(new DiffRequest(), WORKSPACE_URN, created, checked, news));
    };
    const renamed = await diffTo("platform");
    expect(renamed.getReplacesList()).toEqual(["name"]);
    expect(renamed.getDiffsList()).toEqual(["name"]);
    expect(renamed.getStablesList()).toEqual([]);
    const unknown = await diffTo(UNKNOWN);
    expect(unknown.getChanges()).toBe(DiffResponse.DiffChanges.DIFF_SOME);
    expect(unknown.getDiffsList()).toEqual(["name"]);
    const same = await diffTo("team");
    expect(same.getChanges()).toBe(DiffResponse.DiffChanges.DIFF_NONE);
  });
});

describe("crashes", () => {
  it("fail the calls in flight with UNKNOWN and the cause", async () => {
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const hanging: ResourceAdapter = {
      ...workspaceAdapter(),
      check: () => {
        started();
        return new Promise(() => undefined);
      },
    };
    await withProviderServer({ resources: [hanging], env: {} }, async (otherClient, other) => {
      const pending = failure(otherClient.check(checkRequest(WORKSPACE_URN, { name: "x" })));
      await running;
      other.failInFlight(new Error("out of memory"));
      const error = await pending;
      expect(error.code).toBe(status.UNKNOWN);
      expect(error.details).toBe("The broker provider stopped unexpectedly: out of memory");
    });
  });
});

describe("cancellation", () => {
  const CANCELLED =
    "broker: the run was cancelled; requests not yet sent are dropped, those already sent finish";
  const notices = (messages: readonly LoggedMessage[]) => messages.filter((m) => m.message === CANCELLED);

  it("a Cancel with no operation in flight (the engine's, as it shuts plugins down after a run) says nothing", async () => {
    const quiet = await startFakeEngine();
    try {
      await withProviderServer(
        {
          engineAddress: quiet.address,
          resources: BROKER_RESOURCES,
          env: {},
        },
        async (otherClient) => {
          await otherClient.configure(new ConfigureRequest().setArgs(struct({ apiKey: secret("k") })));
          await otherClient.cancel(new Empty());
          await otherClient.cancel(new Empty());
          // A call the plugin answers only once its warning reached the engine, after any notice.
          await otherClient.configure(new ConfigureRequest().setArgs(struct({ apiKey: "plain" })));
          expect(quiet.messages.map((m) => m.severity)).toEqual(["warning"]);
          expect(notices(quiet.messages)).toEqual([]);
        },
      );
    } finally {
      await quiet.close();
    }
  });

  it("a Cancel while an operation runs says once that the run was cancelled; the operation still answers", async () => {
    const told = await startFakeEngine();
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    let finish: () => void = () => undefined;
    const held: ResourceAdapter = {
      ...workspaceAdapter(),
      check: ({ news }) => {
        started();
        return new Promise((resolve) => {
          finish = () => {
            resolve({ inputs: news, failures: [] });
          };
        });
      },
    };
    try {
      await withProviderServer(
        { engineAddress: told.address, resources: [held], env: {} },
        async (otherClient) => {
          const checked = otherClient.check(checkRequest(WORKSPACE_URN, { name: "x" }));
          await running;
          await otherClient.cancel(new Empty());
          await otherClient.cancel(new Empty()); // the engine's second one, as it shuts the plugin down
          finish();
          expect(plain((await checked).getInputs())).toEqual({ name: "x" });
          await waitFor("the notice to reach the engine", () =>
            notices(told.messages).length > 0 ? true : undefined,
          );
          // A call the plugin answers only once its warning reached the engine, after any second notice.
          await otherClient.configure(new ConfigureRequest().setArgs(struct({ apiKey: "plain" })));
          expect(notices(told.messages)).toEqual([{ severity: "info", message: CANCELLED, urn: "" }]);
        },
      );
    } finally {
      await told.close();
    }
  });
});

describe("the endpoint guard", () => {
  afterAll(async () => {
    await configure({ baseUrl: emulator.url, apiKey: secret(emulator.adminKey) });
  });

  it("fails Check on the resource when the provider now points at another endpoint, unless allowEndpointChange", async () => {
    await configure({ baseUrl: emulator.url, apiKey: secret(emulator.adminKey) });
    const recorded = plain(
      (await client.check(checkRequest(WORKSPACE_URN, { name: "guarded" }))).getInputs(),
    );
    expect(recorded).toMatchObject({ baseUrl: emulator.url });

    await configure({ baseUrl: "http://elsewhere.test/v1", apiKey: secret(emulator.adminKey) });
    const moved = await client.check(checkRequest(WORKSPACE_URN, { name: "guarded" }, recorded));
    // On the resource (no property): `baseUrl` is no input, and the engine would print `{<nil>}`.
    expect(moved.getFailuresList().map((f) => f.getProperty())).toEqual([""]);
    expect(moved.getFailuresList()[0]?.getReason()).toContain(`this resource lives at ${emulator.url}`);

    const allowed = await client.check(
      checkRequest(WORKSPACE_URN, { name: "guarded", allowEndpointChange: true }, recorded),
    );
    expect(allowed.getFailuresList()).toEqual([]);
    expect(plain(allowed.getInputs())).toMatchObject({ baseUrl: "http://elsewhere.test/v1" });
  });
});

describe("a key pair", () => {
  const PAIR_URN = "urn:pulumi:dev::proj::broker:index:ServiceKeyPair::pair";

  it("keeps its key secret from Check on, rotates in place and previews the new pair as unknown", async () => {
    const key = await client.create(
      new CreateRequest()
        .setUrn(KEY_URN)
        .setType("broker:index:AccessKey")
        .setProperties(
          (await client.check(checkRequest(KEY_URN, { name: "pair-key", type: "SERVICE" }))).getInputs(),
        ),
    );
    const keyValue = (plain(key.getProperties()) as { accessKey: { value: string } }).accessKey.value;

    // A plain value (e.g. from a program that unwrapped it) comes back from Check as a secret.
    const checked = await client.check(
      checkRequest(PAIR_URN, { accessKey: keyValue, rotationTriggers: { quarter: "q1" } }),
    );
    const inputs = plain(checked.getInputs()) as Record<string, unknown>;
    expect(inputs["accessKey"]).toEqual(secret(keyValue));

    const created = await client.create(
      new CreateRequest()
        .setUrn(PAIR_URN)
        .setType("broker:index:ServiceKeyPair")
        .setProperties(checked.getInputs()),
    );
    const outputs = plain(created.getProperties()) as Record<string, unknown>;
    expect(outputs["accessKey"]).toEqual(secret(keyValue));
    expect(outputs["privateKey"]).toEqual(secret(expect.any(String)));
    expect(Object.entries(outputs).filter(([, value]) => value === keyValue)).toEqual([]);

    const rechecked = await client.check(
      checkRequest(PAIR_URN, { accessKey: secret(keyValue), rotationTriggers: { quarter: "q2" } }, inputs),
    );
    const diff = await client.diff(changeOf(new DiffRequest(), PAIR_URN, created, checked, rechecked));
    const detailed: Record<string, number> = {};
    diff.getDetaileddiffMap().forEach((entry, path) => (detailed[path] = entry.getKind()));
    expect(detailed).toEqual({ "rotationTriggers.quarter": PropertyDiff.Kind.UPDATE });
    expect(diff.getReplacesList()).toEqual([]);
    expect(diff.getStablesList()).toContain("accessKeyId");
    expect(diff.getStablesList()).not.toContain("privateKey");

    const preview = await client.update(
      changeOf(new UpdateRequest(), PAIR_URN, created, checked, rechecked).setPreview(true),
    );
    const previewed = plain(preview.getProperties()) as Record<string, unknown>;
    expect(previewed["publicKey"]).toBe(UNKNOWN);
    expect(previewed["privateKey"]).toEqual(secret(UNKNOWN));
    expect(previewed["accessKeyId"]).toBe(outputs["accessKeyId"]);
  });
});

describe("a resource created although the operation failed", () => {
  it("reaches the engine as ErrorResourceInitFailed with its secrets kept", async () => {
    const failing: ResourceAdapter = {
      ...workspaceAdapter(),
      create: () =>
        Promise.reject(
          Object.assign(new Error("created (id 7) but a later step failed: 503"), {
            id: "7",
            properties: { name: "team", secretish: "pk" },
            reasons: ["read-back failed: 503"],
          }),
        ),
      encodeFailedProperties: (properties) => ({
        name: pv.string(String(properties["name"])),
        secretish: pv.secret(pv.string(String(properties["secretish"]))),
      }),
    };
    await withProviderServer({ resources: [failing], env: {} }, async (otherClient) => {
      const error = await failure(
        otherClient.create(
          new CreateRequest()
            .setUrn(WORKSPACE_URN)
            .setType("broker:index:Workspace")
            .setProperties(struct({ name: "team" })),
        ),
      );
      expect(error.code).toBe(status.UNKNOWN);
      const bytes = error.metadata.get("grpc-status-details-bin")[0];
      if (!(bytes instanceof Buffer)) throw new Error("no status details");
      const detail = Status.deserializeBinary(new Uint8Array(bytes))
        .getDetailsList()[0]
        ?.unpack((b) => ErrorResourceInitFailed.deserializeBinary(b), "pulumirpc.ErrorResourceInitFailed");
      expect(detail?.getId()).toBe("7");
      expect(detail?.getProperties()?.toJavaScript()).toEqual({ name: "team", secretish: secret("pk") });
      expect(detail?.getReasonsList()).toEqual(["read-back failed: 503"]);
    });
  });
});

/**
 * Checks that a server started without an engine address sends its messages to the stand-in engine
 * `introduce` names to it: the warning of a Configure with a plain-text key reaches that engine.
 */
async function expectMessagesSentToEngineOf(
  introduce: (client: ReturnType<typeof providerClient>, address: string) => Promise<unknown>,
): Promise<void> {
  const second = await startFakeEngine();
  try {
    await withProviderServer({ resources: BROKER_RESOURCES, env: {} }, async (otherClient) => {
      await introduce(otherClient, second.address);
      await otherClient.configure(new ConfigureRequest().setArgs(struct({ apiKey: "plain" })));
      expect(second.messages.map((m) => m.severity)).toEqual(["warning"]);
    });
  } finally {
    await second.close();
  }
}

describe("handshake", () => {
  it("declares what Configure does: secrets accepted and autonaming honoured; no resources, outputs or byte strings", async () => {
    const response = await client.handshake(
      new ProviderHandshakeRequest()
        .setEngineAddress(engine.address)
        .setAcceptsByteString(true)
        .setConfigureWithUrn(true),
    );
    expect(response.getAcceptSecrets()).toBe(true);
    expect(response.getAcceptResources()).toBe(false);
    expect(response.getAcceptOutputs()).toBe(false);
    expect(response.getSupportsAutonamingConfiguration()).toBe(true);
    expect(response.getAcceptsByteString()).toBe(false);
  });

  it("sends later messages to the engine named in the handshake (a plugin started by hand)", async () => {
    await expectMessagesSentToEngineOf((c, address) =>
      c.handshake(new ProviderHandshakeRequest().setEngineAddress(address)),
    );
  });
});

describe("attach", () => {
  it("sends later messages to the engine it is attached to", async () => {
    await expectMessagesSentToEngineOf((c, address) => c.attach(new PluginAttach().setAddress(address)));
  });
});
