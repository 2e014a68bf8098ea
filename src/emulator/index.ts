/**
 * The broker configuration API emulator: a real local HTTP server implementing the API (and, on
 * request, test controls), for tests and local development. It imports nothing of the product.
 *
 * @example
 * import { startEmulator } from "pulumi-broker-config/emulator";
 * const emulator = await startEmulator({ controls: true });
 * // point broker:baseUrl at emulator.url and broker:apiKey at emulator.adminKey
 * await emulator.close();
 */
import type { AddressInfo } from "node:net";
import { API_PREFIX } from "./api";
import { Broker } from "./broker";
import { CONTROLS_PREFIX } from "./control-types";
import { EmulatorControls } from "./controls-client";
import { FaultRegistry } from "./faults";
import { MemoryStore } from "./memory-store";
import { parseRateLimitSpec, RateLimiter } from "./rate-limit";
import type { EmulatorOptions } from "./options";
import { RequestLog } from "./request-log";
import { createEmulatorServer } from "./server";
import { SqliteStore } from "./sqlite-store";
import type { Store } from "./store";
import { Timers } from "./timers";

export type {
  ActiveFault,
  EmulatorSettings,
  EmulatorStats,
  FaultKind,
  FaultPhase,
  FaultSpec,
  RateLimitScope,
  RateLimitSpec,
  RateLimitStatus,
  RequestLogEntry,
  WorkspacePatch,
} from "./control-types";
export { EmulatorControlError, EmulatorControls } from "./controls-client";
export type { ErrorBody, ErrorCode } from "./errors";
export type { EmulatorExchange, EmulatorOptions } from "./options";
export type { AccessKeyType, Permissions, PermissionsInput, PermissionsMode } from "./types";

/** Default interface of {@link startEmulator}: loopback only. */
export const DEFAULT_HOST = "127.0.0.1";

/** A running emulator. */
export interface EmulatorHandle {
  /** The API base URL, e.g. `http://127.0.0.1:4010/v1` (use it as `broker:baseUrl`). */
  readonly url: string;
  /** Scheme, host and port, e.g. `http://127.0.0.1:4010`. */
  readonly origin: string;
  /** The listening port. */
  readonly port: number;
  /** The bootstrap ACCOUNT key (use it as `broker:apiKey`). */
  readonly adminKey: string;
  /** `origin + "/_emulator"` when the controls are on. */
  readonly controlUrl?: string;
  /** A client for the controls, when they are on. */
  readonly controls?: EmulatorControls;
  /** Stops listening, drops open connections (keep-alive included) and closes the store. Idempotent. */
  close(): Promise<void>;
}

function openStore(options: EmulatorOptions): Store {
  if (options.dbFile === undefined) return new MemoryStore();
  return new SqliteStore(
    options.dbFile,
    options.warn ?? ((message) => process.stderr.write(`broker-config-emulator: warning: ${message}\n`)),
  );
}

function reportError(error: unknown): void {
  console.error("broker-config-emulator: unexpected error:", error);
}

/**
 * Starts an emulator and resolves once it listens.
 *
 * @throws when the port is taken, the database cannot be opened, or `adminKey` or `rateLimit` is unusable.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  // Validated before anything opens, so a bad limit leaves nothing behind.
  const rateLimiter = new RateLimiter(
    options.rateLimit === undefined ? undefined : parseRateLimitSpec(options.rateLimit, "options.rateLimit"),
    options.clock,
  );
  const store = openStore(options);
  const timers = new Timers();
  let broker: Broker;
  try {
    broker = new Broker(store, options.permissionsMode ?? "replace", options.adminKey);
  } catch (error) {
    store.close();
    throw error;
  }
  const controlsOn = options.controls ?? false;
  const server = createEmulatorServer({
    broker,
    faults: new FaultRegistry(),
    rateLimiter,
    log: new RequestLog(),
    timers,
    inspect: options.inspect,
    reportError,
    controls: controlsOn,
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, options.host ?? DEFAULT_HOST, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    store.close();
    throw error;
  }

  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const origin = `http://${host}:${address.port}`;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      timers.cancelAll();
      server.close(() => {
        store.close();
        resolve();
      });
      // Without this, close() would wait for idle keep-alive connections to time out.
      server.closeAllConnections();
    });
    return closing;
  };

  const base = {
    url: `${origin}${API_PREFIX}`,
    origin,
    port: address.port,
    adminKey: broker.adminKey,
    close,
  };
  if (!controlsOn) return base;
  const controlUrl = `${origin}${CONTROLS_PREFIX}`;
  return { ...base, controlUrl, controls: new EmulatorControls(controlUrl) };
}
