/**
 * Cancellation of the dynamic resources' calls when the Pulumi run is cancelled or its engine dies.
 *
 * The engine cancels a run (first Ctrl-C, a CI job's SIGTERM) by sending the `Cancel` RPC to every
 * provider, then waits for the operations in flight. The dynamic provider host answers that RPC and
 * does nothing else, so our calls would go on pacing and retrying for minutes. We learn of it from
 * Node's `http2.server.stream.start` diagnostics channel, which names the path of every gRPC call
 * the host's server receives: a call of `/pulumirpc.ResourceProvider/Cancel` aborts the signal every
 * client of the process carries (see the client's `signal` option). Node versions without that
 * channel (it is in Node 24) never publish it, and then only the engine watch below cancels.
 *
 * The host also outlives a `kill -9` of the CLI: the engine starts it in a process group of its own.
 * Like the native plugin, it watches the engine at the address it was started with, and when the
 * engine no longer answers it cancels and exits, instead of running on with the stack's API key.
 */
import { subscribe } from "node:diagnostics_channel";

import { ENGINE_GONE_EXIT_GRACE_MS, watchEngine } from "../../engine/engine-watch";
import { hostEngineAddress } from "./host-engine";

/** The gRPC path of the engine's cancellation, as the host's HTTP/2 server receives it. */
const CANCEL_PATH = "/pulumirpc.ResourceProvider/Cancel";

const cancellation = new AbortController();
let observing = false;

/** What the diagnostics channel publishes for each stream a server starts. */
interface StreamStart {
  readonly headers?: Readonly<Record<string, unknown>>;
}

/**
 * The signal that aborts when the run is cancelled: pass it to every client the dynamic resources
 * use. The first call, inside the dynamic provider host, starts listening for the engine's `Cancel`
 * and watching the engine; outside the host (tests, scripts) the signal never aborts on its own.
 */
export function runCancellation(argv: readonly string[] = process.argv): AbortSignal {
  if (observing) return cancellation.signal;
  observing = true;
  const engineAddress = hostEngineAddress(argv);
  if (engineAddress === undefined) return cancellation.signal;
  subscribe("http2.server.stream.start", (message) => {
    if ((message as StreamStart).headers?.[":path"] === CANCEL_PATH) cancellation.abort();
  });
  watchEngine({
    address: engineAddress,
    onGone: (reason) => {
      process.stderr.write(`pulumi-broker-config dynamic provider: ${reason}; exiting\n`);
      cancellation.abort();
      // Requests already sent get a moment to finish, though nobody is left to record them.
      setTimeout(() => process.exit(0), ENGINE_GONE_EXIT_GRACE_MS);
    },
  });
  return cancellation.signal;
}
