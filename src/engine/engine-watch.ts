/**
 * Notices that the engine which started the plugin is gone, so the plugin can exit instead of
 * running on alone, holding the stack's API key and an open port.
 *
 * The engine starts each plugin in a process group of its own, so a `kill -9` of the CLI (a cancelled
 * CI job, a closed laptop) does not reach the plugin. The plugin learns of it from the engine's gRPC
 * server, whose address is its command-line argument: that server answers the standard gRPC health
 * service (`grpc.health.v1.Health/Check`), as every server of the Pulumi engine does. A check that
 * fails for a reason other than `UNIMPLEMENTED` means the engine no longer listens. This is the
 * signal Pulumi's own Go provider SDK watches (`provider.Main` checks every five minutes); we check
 * every two seconds because the process holds credentials. The parent process id is not used: the
 * plugin may run under a shell shim or a debugger, and an attached plugin is nobody's child.
 * See docs/decisions.md, "A plugin whose engine died exits".
 */
import { Client, credentials, status, type ServiceError } from "@grpc/grpc-js";

/** The health service's one method. Its request message, with no service named, is empty. */
const HEALTH_CHECK = "/grpc.health.v1.Health/Check";

/**
 * How long requests already sent may take to finish once the engine is gone, before a provider
 * process (the plugin, the dynamic provider host) exits.
 */
export const ENGINE_GONE_EXIT_GRACE_MS = 3000;

/** Options of {@link watchEngine}. */
export interface EngineWatchOptions {
  /** The engine's `host:port`: the plugin's command-line argument. */
  readonly address: string;
  /** Called once, when the engine has failed {@link EngineWatchOptions.failuresBeforeGone} checks in a row. */
  readonly onGone: (reason: string) => void;
  /** Time between two checks, and the deadline of each. @default 2000 */
  readonly intervalMs?: number;
  /**
   * Failed checks in a row that mean the engine is gone: one failure may be a moment's hiccup of
   * a busy machine. @default 2
   */
  readonly failuresBeforeGone?: number;
  /** Told the outcome of every check (for tests and debug logs). */
  readonly onCheck?: (alive: boolean) => void;
}

/** A running watch. */
export interface EngineWatch {
  /** Stops checking and closes the connection to the engine. */
  stop(): void;
}

/**
 * Checks the engine at `options.address` every `intervalMs` and calls `onGone` once it stops
 * answering. An engine that answers, even `UNIMPLEMENTED`, is alive however long it stays idle.
 */
export function watchEngine(options: EngineWatchOptions): EngineWatch {
  const intervalMs = options.intervalMs ?? 2000;
  const failuresBeforeGone = options.failuresBeforeGone ?? 2;
  const client = new Client(options.address, credentials.createInsecure());
  let failures = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const stop = (): void => {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
    client.close();
  };

  const check = (): void => {
    client.makeUnaryRequest<Buffer, Buffer>(
      HEALTH_CHECK,
      () => Buffer.alloc(0),
      (bytes) => bytes,
      Buffer.alloc(0),
      { deadline: Date.now() + intervalMs },
      (error: ServiceError | null) => {
        if (stopped) return;
        const alive = error === null || error.code === status.UNIMPLEMENTED;
        options.onCheck?.(alive);
        failures = alive ? 0 : failures + 1;
        if (failures >= failuresBeforeGone) {
          stop();
          options.onGone(
            `the engine at ${options.address} stopped answering (${error?.details ?? "no answer"})`,
          );
          return;
        }
        schedule();
      },
    );
  };

  const schedule = (): void => {
    timer = setTimeout(check, intervalMs);
    // The watch alone must not keep the process running.
    timer.unref();
  };

  schedule();
  return { stop };
}
