import { status } from "@grpc/grpc-js";
import { ConfigureRequest, GetSchemaRequest, InvokeRequest } from "@pulumi/pulumi/proto/provider_pb";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BrokerClient } from "../../src/client";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { failure, SECRET_SIG, SIG, secret, struct } from "../support/plugin-server";
import { startPluginStand, type PluginStand } from "../support/plugin-stand";

// The plugin's `Invoke` of the look-up functions, in process: a provider server configured for one
// emulator, objects made there directly through the API (as another team's tooling would), and the
// functions' answers as the engine receives them (secrets in the wire format).

let stand: PluginStand;
let emulator: EmulatorHandle;
let other: EmulatorHandle;
let client: PluginStand["client"];
let api: BrokerClient;

beforeAll(async () => {
  stand = await startPluginStand();
  ({ emulator, client, api } = stand);
  other = await startEmulator();
});

afterAll(async () => {
  await stand.close();
  await other.close();
});

beforeEach(async () => {
  await emulator.controls!.reset();
  await configure({ baseUrl: emulator.url, apiKey: secret(emulator.adminKey) });
});

async function configure(args: Record<string, unknown>) {
  return client.configure(new ConfigureRequest().setArgs(struct(args)).setAcceptsecrets(true));
}

async function invoke(tok: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await client.invoke(new InvokeRequest().setTok(tok).setArgs(struct(args)));
  return (response.getReturn() as Struct).toJavaScript();
}

async function invokeError(tok: string, args: Record<string, unknown>): Promise<string> {
  const error = await failure(client.invoke(new InvokeRequest().setTok(tok).setArgs(struct(args))));
  expect(error.code).toBe(status.UNKNOWN);
  return error.details;
}

describe("the schema", () => {
  it("declares the five functions with the key value as a secret result", async () => {
    const schema = JSON.parse((await client.getSchema(new GetSchemaRequest())).getSchema()) as {
      functions: Record<string, { outputs: { properties: Record<string, { secret?: boolean }> } }>;
    };
    expect(Object.keys(schema.functions).sort()).toEqual([
      "broker:index:getAccessKey",
      "broker:index:getAccessKeys",
      "broker:index:getWorkspace",
      "broker:index:getWorkspaces",
      "broker:index:verifyAccessKey",
    ]);
    expect(schema.functions["broker:index:getAccessKey"]?.outputs.properties.accessKey?.secret).toBe(true);
  });
});

describe("Invoke", () => {
  it("getWorkspace finds a workspace made outside Pulumi by its path, with its children", async () => {
    const platform = await api.createWorkspaceAndFind({ name: "platform" });
    const orders = await api.createWorkspaceAndFind({ name: "orders", parentId: platform.id });
    const result = await invoke("broker:index:getWorkspace", { path: "/platform" });
    expect(result).toEqual({
      id: platform.id,
      name: "platform",
      path: "/platform",
      parentId: 0,
      createdAt: platform.createdAt,
      childIds: [orders.id],
    });
    expect(await invoke("broker:index:getWorkspace", { path: "/platform/orders" })).toMatchObject({
      id: orders.id,
      parentId: platform.id,
    });
    expect(await invoke("broker:index:getWorkspace", { id: orders.id })).toMatchObject({
      path: "/platform/orders",
    });
  });

  it("getAccessKey returns the key's permissions, and its value wrapped as a secret", async () => {
    const created = await api.createAccessKeyOnce({
      name: "orders-svc",
      type: "SERVICE",
      permissions: { send: ["orders/created"], receive: ["payments/*"] },
    });
    const result = await invoke("broker:index:getAccessKey", { name: "orders-svc" });
    expect(result.accessKey).toEqual({ [SIG]: SECRET_SIG, value: created.record.key });
    expect(result).toMatchObject({
      id: created.record.id,
      name: "orders-svc",
      type: "SERVICE",
      permissions: { send: ["orders/created"], receive: ["payments/*"], resources: {} },
    });
  });

  it("a look-up of a missing path fails naming the path and the base URL", async () => {
    const message = await invokeError("broker:index:getWorkspace", { path: "/platform/nowhere" });
    expect(message).toContain('"/platform/nowhere"');
    expect(message).toContain(emulator.url);
  });

  it("a duplicate name fails listing both ids, with the hint to look up by id", async () => {
    const first = await api.createAccessKeyOnce({ name: "twin", type: "ACCOUNT", permissions: {} });
    const second = await api.createAccessKeyOnce({ name: "twin", type: "ACCOUNT", permissions: {} });
    const message = await invokeError("broker:index:getAccessKey", { name: "twin" });
    expect(message).toContain(`ids ${first.record.id}, ${second.record.id}`);
    expect(message).toContain("by id");
    expect(message).not.toContain(first.record.key);
  });

  it("a path that is not /a/b fails with the model's message before any request", async () => {
    await emulator.controls!.clearRequests();
    const message = await invokeError("broker:index:getWorkspace", { path: "platform" });
    expect(message).toContain("must start with '/'");
    expect(await emulator.controls!.requests()).toEqual([]);
  });

  it("verifyAccessKey: true for a live key, false for an unknown one, and the key in no message", async () => {
    const created = await api.createAccessKeyOnce({ name: "svc", type: "SERVICE", permissions: {} });
    expect(await invoke("broker:index:verifyAccessKey", { accessKey: secret(created.record.key) })).toEqual({
      valid: true,
    });
    expect(await invoke("broker:index:verifyAccessKey", { accessKey: secret("bks_not_a_real_key") })).toEqual(
      {
        valid: false,
      },
    );
    // A server failure is an error, not "invalid"; without retries, to keep the test quick.
    await configure({ baseUrl: emulator.url, apiKey: secret(emulator.adminKey), maxRetries: 0 });
    await emulator.controls!.injectFault({ kind: "503", routes: ["GET /access/verify/{accessKey}"] });
    const message = await invokeError("broker:index:verifyAccessKey", {
      accessKey: secret(created.record.key),
    });
    expect(message).toContain("503");
    expect(message).not.toContain(created.record.key);
  });

  it("getAccessKeys filters by type and event-path prefix, without key values", async () => {
    await api.createAccessKeyOnce({ name: "a", type: "SERVICE", permissions: { send: ["orders/created"] } });
    await api.createAccessKeyOnce({ name: "b", type: "SERVICE", permissions: { receive: ["audit/*"] } });
    const result = await invoke("broker:index:getAccessKeys", {
      type: "SERVICE",
      eventPathPrefix: "orders/",
    });
    expect(result).toMatchObject({ accessKeys: [{ name: "a" }] });
    expect(JSON.stringify(result)).not.toContain('"key"');
    expect(JSON.stringify(result)).not.toContain('accessKey":{');
  });

  it("reads through the provider instance it is sent to: another Configure reads another emulator", async () => {
    await new BrokerClient({ baseUrl: other.url, apiKey: other.adminKey }).createWorkspaceAndFind({
      name: "elsewhere",
    });
    const missing = await invokeError("broker:index:getWorkspace", { path: "/elsewhere" });
    expect(missing).toContain(emulator.url);
    await configure({ baseUrl: other.url, apiKey: secret(other.adminKey) });
    expect(await invoke("broker:index:getWorkspace", { path: "/elsewhere" })).toMatchObject({
      name: "elsewhere",
    });
  });

  it("without credentials, the error names the function that needed them", async () => {
    await configure({});
    const message = await invokeError("broker:index:getWorkspaces", {});
    expect(message).toContain(
      "broker:index:getWorkspaces reads the broker API, also during `pulumi preview`",
    );
    expect(message).toContain("broker:apiKey");
  });

  it("a function the package does not have fails naming the ones it has", async () => {
    const message = await invokeError("broker:index:getKeys", {});
    expect(message).toContain('no function "broker:index:getKeys"');
    expect(message).toContain("broker:index:getAccessKeys");
  });
});
