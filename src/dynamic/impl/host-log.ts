import * as path from "node:path";

import { hostEngineAddress } from "./host-engine";

/**
 * Warnings from inside a dynamic provider.
 *
 * The dynamic provider host does not connect `pulumi.log` to the engine (it only receives the
 * engine's address as its first argument), so a warning written with `pulumi.log.warn` or to stderr
 * never reaches the user's terminal. Destroy has to tell users that a key still exists on the
 * broker, so we speak to the engine's `Log` RPC ourselves, through the gRPC modules that ship with
 * `@pulumi/pulumi` (resolved from it, so the versions always match).
 */

interface EngineClient {
  log(request: unknown, callback: (error: Error | null) => void): void;
  close(): void;
}

let engine: EngineClient | null | undefined;

function connect(): EngineClient | null {
  const address = hostEngineAddress();
  // Outside the provider host (unit tests, scripts) there is no engine to talk to.
  if (address === undefined) return null;
  try {
    const sdkRoot = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
    const grpc = require(require.resolve("@grpc/grpc-js", { paths: [sdkRoot] })) as {
      credentials: { createInsecure(): unknown };
    };
    const { EngineClient } = require("@pulumi/pulumi/proto/engine_grpc_pb") as {
      EngineClient: new (address: string, credentials: unknown) => EngineClient;
    };
    return new EngineClient(address, grpc.credentials.createInsecure());
  } catch {
    return null;
  }
}

/**
 * Shows `message` as a warning in the output of `pulumi up`/`destroy`. Falls back to stderr when no
 * engine is reachable. Never throws: a warning must not fail an operation that succeeded.
 */
export async function warn(message: string): Promise<void> {
  if (engine === undefined) engine = connect();
  if (engine === null) {
    process.stderr.write(`warning: ${message}\n`);
    return;
  }
  const client = engine;
  try {
    const { LogRequest, LogSeverity } = require("@pulumi/pulumi/proto/engine_pb") as {
      LogRequest: new () => {
        setSeverity(s: number): void;
        setMessage(m: string): void;
        setUrn(u: string): void;
      };
      LogSeverity: { WARNING: number };
    };
    const request = new LogRequest();
    request.setSeverity(LogSeverity.WARNING);
    request.setMessage(message);
    request.setUrn("");
    await new Promise<void>((resolve) => {
      client.log(request, (error) => {
        if (error !== null) process.stderr.write(`warning: ${message}\n`);
        resolve();
      });
    });
  } catch {
    process.stderr.write(`warning: ${message}\n`);
  }
}
