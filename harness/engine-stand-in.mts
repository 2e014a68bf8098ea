/**
 * A stand-in for the Pulumi engine's gRPC server, for every harness that starts a provider process
 * (the dynamic provider host, the `broker` plugin) without the CLI.
 *
 * A real engine hands each provider process its address and answers there for as long as the run
 * lasts. Both of our provider processes rely on that: they watch the address with the standard gRPC
 * health check and, once it stops answering, cancel every call and exit (src/engine/engine-watch.ts),
 * and the dynamic host sends its warnings to the engine's `Log` RPC. A harness that passed an address
 * where nothing listens would therefore race the watch: any call arriving a few seconds after the
 * start would be cancelled. This server answers what the engine answers (the health check, `Log`)
 * and records the log messages, so tests can read the warnings users would see.
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import { REPO_ROOT } from "./repo.mts";

/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-explicit-any -- the SDK's generated gRPC modules are untyped */

const fromRepo = createRequire(path.join(REPO_ROOT, "package.json"));
const grpc = fromRepo("@grpc/grpc-js");
const engineServices = fromRepo("@pulumi/pulumi/proto/engine_grpc_pb");
const engineMessages = fromRepo("@pulumi/pulumi/proto/engine_pb");
const { Empty } = fromRepo("google-protobuf/google/protobuf/empty_pb");

/** A message a provider sent to the engine's `Log` RPC. */
export interface EngineLogMessage {
  readonly severity: "debug" | "info" | "warning" | "error";
  readonly message: string;
  readonly urn: string;
}

/** A running stand-in engine. */
export interface EngineStandIn {
  /** `127.0.0.1:<port>`: the argument a provider process is started with. */
  readonly address: string;
  /** Every `Log` message received, in order. */
  readonly messages: EngineLogMessage[];
  /** Stops answering, as an engine that exited does. */
  close(): Promise<void>;
}

/**
 * The gRPC health service's `Check` (`grpc.health.v1.Health/Check`), with raw bytes for messages:
 * the request is read as it comes (an empty service name asks for the whole server).
 */
export const HEALTH_SERVICE = {
  check: {
    path: "/grpc.health.v1.Health/Check",
    requestStream: false,
    responseStream: false,
    requestSerialize: (value: Buffer) => value,
    requestDeserialize: (bytes: Buffer) => bytes,
    responseSerialize: (value: Buffer) => value,
    responseDeserialize: (bytes: Buffer) => bytes,
  },
};
/** `HealthCheckResponse{status: SERVING}` (field 1, varint 1): the engine's Go server's answer. */
export const SERVING = Buffer.from([0x08, 0x01]);

const SEVERITY_NAMES: Record<number, EngineLogMessage["severity"]> = {
  [engineMessages.LogSeverity.DEBUG]: "debug",
  [engineMessages.LogSeverity.INFO]: "info",
  [engineMessages.LogSeverity.WARNING]: "warning",
  [engineMessages.LogSeverity.ERROR]: "error",
};

/** Starts a stand-in engine on a free loopback port. */
export async function startEngineStandIn(): Promise<EngineStandIn> {
  const messages: EngineLogMessage[] = [];
  const server = new grpc.Server();
  server.addService(HEALTH_SERVICE, {
    check: (_call: unknown, callback: (error: null, response: Buffer) => void) => {
      callback(null, SERVING);
    },
  });
  server.addService(engineServices.EngineService, {
    log: (call: { request: any }, callback: (error: null, response: unknown) => void) => {
      messages.push({
        severity: SEVERITY_NAMES[call.request.getSeverity() as number] ?? "info",
        message: call.request.getMessage() as string,
        urn: call.request.getUrn() as string,
      });
      callback(null, new Empty());
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(
      "127.0.0.1:0",
      grpc.ServerCredentials.createInsecure(),
      (error: Error | null, bound: number) => {
        if (error === null) resolve(bound);
        else reject(error);
      },
    );
  });
  return {
    address: `127.0.0.1:${port}`,
    messages,
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => {
          resolve();
        });
      }),
  };
}
