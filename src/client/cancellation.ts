/**
 * Cancellation of a client's calls, when the Pulumi run they serve is cancelled (Ctrl-C, a CI job's
 * SIGTERM): the engine then asks its providers to stop and waits for the operations in flight.
 *
 * The rule: once the client's `signal` aborts, no request starts and no wait goes on (pace, 429
 * block, back-off), so every call that has not reached the broker fails at once with
 * `BROKER_CANCELLED` and nothing more is changed; a request already on the wire is never abandoned,
 * so its outcome is known and the engine records what exists. The reads that learn what a create
 * just made (a workspace's id, found by listing its name) are part of that create: they run in
 * {@link finishingWrite} and go on after cancellation, since dropping them would leave an object
 * nobody records. See docs/decisions.md, "Cancelled runs stop sending, and finish what was sent".
 */
import { AsyncLocalStorage } from "node:async_hooks";

import { BrokerCancelledError } from "./errors";
import type { RequestTiming } from "./retry";

/** Set while the follow-up reads of a write that reached the broker run. */
const finishing = new AsyncLocalStorage<true>();

/**
 * Runs `follow` (the reads that learn what a write that reached the broker made) so that a
 * cancellation does not stop it: its requests start and its waits run to their end.
 */
export function finishingWrite<T>(follow: () => Promise<T>): Promise<T> {
  return finishing.run(true, follow);
}

/** Whether the current call must stop now: the signal aborted and it is not finishing a write. */
function mustStop(signal: AbortSignal | undefined): signal is AbortSignal {
  return signal?.aborted === true && finishing.getStore() !== true;
}

/**
 * Throws {@link BrokerCancelledError} when `signal` has aborted, naming the request that was not
 * sent; called as each request is about to leave for the wire.
 */
export function throwIfCancelled(
  signal: AbortSignal | undefined,
  method: string,
  pathTemplate: string,
): void {
  if (mustStop(signal)) throw cancelledError(method, pathTemplate);
}

/** The error of a call stopped by cancellation before its request `method pathTemplate` was sent. */
function cancelledError(method: string, pathTemplate: string): BrokerCancelledError {
  return new BrokerCancelledError(
    `${method} ${pathTemplate} was not sent: the Pulumi run was cancelled. Nothing of it reached the broker; run \`pulumi up\` again to finish`,
  );
}

/**
 * `timing` with a `sleep` that ends at once, rejecting with {@link BrokerCancelledError}, when
 * `signal` aborts before or during it (except while a write is finished, see {@link finishingWrite}).
 * The clock and randomness are `timing`'s own.
 */
export function cancellableTiming(timing: RequestTiming, signal: AbortSignal | undefined): RequestTiming {
  if (signal === undefined) return timing;
  const stopped = (): BrokerCancelledError =>
    new BrokerCancelledError(
      "a wait on the broker's rate limit or before a retry was cut short: the Pulumi run was cancelled. The request it was waiting to send was not sent; run `pulumi up` again to finish",
    );
  return {
    now: timing.now,
    random: timing.random,
    sleep: async (ms) => {
      if (finishing.getStore() === true) return timing.sleep(ms);
      if (signal.aborted) throw stopped();
      let onAbort: (() => void) | undefined;
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => {
          reject(stopped());
        };
        signal.addEventListener("abort", onAbort, { once: true });
      });
      try {
        await Promise.race([timing.sleep(ms), aborted]);
      } finally {
        if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
      }
    },
  };
}
