/**
 * Helpers for in-process tests of the `broker` provider plugin: the stand-in engine, a provider
 * client with promise-returning calls, and Struct builders.
 */
import { credentials, Server, ServerCredentials, type ServiceError } from "@grpc/grpc-js";
import type { PluginAttach, PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import type {
  CheckRequest,
  ConstructRequest,
  ConstructResponse,
  CheckResponse,
  ConfigureRequest,
  ConfigureResponse,
  CreateRequest,
  CreateResponse,
  DeleteRequest,
  DiffRequest,
  DiffResponse,
  GetSchemaRequest,
  GetSchemaResponse,
  InvokeRequest,
  InvokeResponse,
  ProviderHandshakeRequest,
  ProviderHandshakeResponse,
  ReadRequest,
  ReadResponse,
  UpdateRequest,
  UpdateResponse,
} from "@pulumi/pulumi/proto/provider_pb";
import type { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { expect } from "vitest";
import { startProviderServer, type RunningServer, type ServerOptions } from "../../src/native/server";

export const SIG = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** A secret in the wire format. */
export function secret(value: unknown): Record<string, unknown> {
  return { [SIG]: SECRET_SIG, value };
}

/** A Struct from plain wire-format values. */
export function struct(value: Record<string, unknown>): Struct {
  return Struct.fromJavaScript(value as Parameters<typeof Struct.fromJavaScript>[0]);
}

/** Binds `server` to a free port of 127.0.0.1 (insecure, as the engine's servers are) and resolves the port. */
export function listenOnLoopback(server: Server): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, bound) => {
      if (error === null) resolve(bound);
      else reject(error);
    });
  });
}

/**
 * The stand-in engine every harness gives its provider processes (harness/engine-stand-in.mts): it
 * answers the health check and records `Log` messages.
 */
export { startEngineStandIn as startFakeEngine } from "../../harness/engine-stand-in.mts";
export type { EngineLogMessage as LoggedMessage } from "../../harness/engine-stand-in.mts";

type Callback<Res> = (error: ServiceError | null, response: Res) => void;

/** Calls one unary method, resolving its response or rejecting with the gRPC ServiceError. */
export function rpc<Res>(start: (callback: Callback<Res>) => unknown): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    start((error, response) => {
      if (error !== null) reject(error);
      else resolve(response);
    });
  });
}

/** The ServiceError of a call that must fail. */
export async function failure(call: Promise<unknown>): Promise<ServiceError> {
  try {
    await call;
  } catch (error) {
    return error as ServiceError;
  }
  throw new Error("the call succeeded");
}

function unary<Req, Res>(
  method: (request: Req, callback: Callback<Res>) => unknown,
): (request: Req) => Promise<Res> {
  return (request) => rpc<Res>((callback) => method(request, callback));
}

/** A client of the provider server on `port`, with one promise-returning function per RPC the tests use. */
export function providerClient(port: number) {
  const client = new ResourceProviderClient(`127.0.0.1:${port}`, credentials.createInsecure());
  return {
    getPluginInfo: unary<Empty, PluginInfo>((r, cb) => client.getPluginInfo(r, cb)),
    getSchema: unary<GetSchemaRequest, GetSchemaResponse>((r, cb) => client.getSchema(r, cb)),
    checkConfig: unary<CheckRequest, CheckResponse>((r, cb) => client.checkConfig(r, cb)),
    diffConfig: unary<DiffRequest, DiffResponse>((r, cb) => client.diffConfig(r, cb)),
    configure: unary<ConfigureRequest, ConfigureResponse>((r, cb) => client.configure(r, cb)),
    construct: unary<ConstructRequest, ConstructResponse>((r, cb) => client.construct(r, cb)),
    attach: unary<PluginAttach, Empty>((r, cb) => client.attach(r, cb)),
    cancel: unary<Empty, Empty>((r, cb) => client.cancel(r, cb)),
    handshake: unary<ProviderHandshakeRequest, ProviderHandshakeResponse>((r, cb) => client.handshake(r, cb)),
    invoke: unary<InvokeRequest, InvokeResponse>((r, cb) => client.invoke(r, cb)),
    check: unary<CheckRequest, CheckResponse>((r, cb) => client.check(r, cb)),
    diff: unary<DiffRequest, DiffResponse>((r, cb) => client.diff(r, cb)),
    create: unary<CreateRequest, CreateResponse>((r, cb) => client.create(r, cb)),
    read: unary<ReadRequest, ReadResponse>((r, cb) => client.read(r, cb)),
    update: unary<UpdateRequest, UpdateResponse>((r, cb) => client.update(r, cb)),
    delete: unary<DeleteRequest, Empty>((r, cb) => client.delete(r, cb)),
    close: () => {
      client.close();
    },
  };
}

/**
 * Runs `body` against a provider server of its own started with `options` (beside the suite's
 * shared one), then closes the client and the server whatever `body` did.
 */
export async function withProviderServer(
  options: ServerOptions,
  body: (client: ReturnType<typeof providerClient>, server: RunningServer) => Promise<void>,
): Promise<void> {
  const server = await startProviderServer(options);
  const client = providerClient(server.port);
  try {
    await body(client, server);
  } finally {
    client.close();
    await server.close();
  }
}

/**
 * Checks that `schemaJson` (a `GetSchema` answer, or `pulumi package get-schema` output) is the
 * `broker` package's schema at `version`, declaring exactly its three resources.
 */
export function expectBrokerSchema(schemaJson: string, version: string): void {
  const schema = JSON.parse(schemaJson) as { name: string; version: string; resources: object };
  expect(schema.name).toBe("broker");
  expect(schema.version).toBe(version);
  expect(Object.keys(schema.resources).sort()).toEqual([
    "broker:index:AccessKey",
    "broker:index:Environment",
    "broker:index:ServiceKeyPair",
    "broker:index:Workspace",
  ]);
}

/**
 * What Check makes of a SERVICE key `name` declared to send to `b/x`, `a/x` and `a/x` for the broker
 * at `baseUrl`: the permissions sorted and deduplicated, and every default filled in (`onDelete` has none).
 */
export function checkedServiceKeyInputs(name: string, baseUrl: string): Record<string, unknown> {
  return {
    name,
    type: "SERVICE",
    permissions: { send: ["a/x", "b/x"], receive: [], resources: {} },
    adopt: false,
    rotationTriggers: {},
    allowEndpointChange: false,
    baseUrl,
  };
}
