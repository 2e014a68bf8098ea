/**
 * Cancellation of a client's calls, when the Pulumi run they serve is cancelled (Ctrl-C, a CI job's
 * SIGTERM). Once the client's `signal` aborts, no request starts and no wait goes on, so every call
 * that has not reached the broker fails at once with `BROKER_CANCELLED`; a request already on the
 * wire is never abandoned, and the reads that learn what a sent create made go through the client's
 * finishing lists, which have no cancellation (docs/decisions.md, "Cancelled runs stop sending, and
 * finish what was sent"; docs/architecture.md, "The request pipeline").
 *
 * One {@link Cancellation} per client applies it: `request()` composes its {@link Cancellation.refusing}
 * layer above and below pacing, and the call's waits are its {@link Cancellation.timing}; waits that
 * are not a call's (the read coalescer's, the create-once loop's) merely end early
 * ({@link Cancellation.waits}): what comes next is a request, which the layer refuses.
 */
import { BrokerCancelledError } from "./errors";
import type { RequestTiming } from "./retry";
import type { Layer } from "./transport";

/** The error of a call stopped by cancellation before its request `method pathTemplate` was sent. */
function cancelledError(method: string, pathTemplate: string): BrokerCancelledError {
  return new BrokerCancelledError(
    `${method} ${pathTemplate} was not sent: the Pulumi run was cancelled. Nothing of it reached the broker; run \`pulumi up\` again to finish`,
  );
}

/** The cancellation of a client's calls, by its `signal` (never, without one). */
export class Cancellation {
  readonly #signal: AbortSignal | undefined;

  constructor(signal: AbortSignal | undefined) {
    this.#signal = signal;
  }

  /** Whether calls must stop now: the run was cancelled. */
  stopped(): boolean {
    return this.#signal?.aborted === true;
  }

  /**
   * The pipeline layer of the call `method pathTemplate`: once {@link stopped}, it sends nothing and
   * throws {@link BrokerCancelledError} naming the request.
   */
  refusing(method: string, pathTemplate: string): Layer {
    return (next) => async () => {
      if (this.stopped()) throw cancelledError(method, pathTemplate);
      return next();
    };
  }

  /**
   * `timing` for the waits of the call `method pathTemplate`: a sleep that ends at once when calls
   * are {@link stopped} before or during it, throwing the error {@link refusing} would. The
   * clock and randomness are `timing`'s own.
   */
  timing(timing: RequestTiming, method: string, pathTemplate: string): RequestTiming {
    const sleep = this.#sleep(timing.sleep, () => cancelledError(method, pathTemplate));
    return { now: timing.now, random: timing.random, sleep };
  }

  /**
   * A sleep that ends early, without an error, when calls are {@link stopped}: for the waits that
   * are not a call's (the read coalescer's, the create-once loop's back-off), whose next step is a
   * call that meets {@link refusing}.
   */
  waits(sleep: RequestTiming["sleep"]): RequestTiming["sleep"] {
    return this.#sleep(sleep, undefined);
  }

  #sleep(sleep: RequestTiming["sleep"], error: (() => Error) | undefined): RequestTiming["sleep"] {
    const signal = this.#signal;
    if (signal === undefined) return sleep;
    return async (ms) => {
      if (!this.stopped()) {
        let onAbort: (() => void) | undefined;
        const aborted = new Promise<void>((resolve) => {
          onAbort = resolve;
          signal.addEventListener("abort", onAbort, { once: true });
        });
        try {
          await Promise.race([sleep(ms), aborted]);
        } finally {
          if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
        }
      }
      if (this.stopped() && error !== undefined) throw error();
    };
  }
}
