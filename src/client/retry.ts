/**
 * Retry policy of the broker client: which failures are retried, how long to wait, and when a failed
 * request may nevertheless have been applied, and the one loop ({@link retrying}) that applies them.
 *
 * The client backs off with full jitter on 502/503/504, resets and timeouts (honouring a
 * `Retry-After` the server sends with them), and repeats only requests that are safe to repeat. A
 * create is repeated only when the server surely did not process it. 429s are not this policy's:
 * the pacing layer (`pacing.ts`) waits every one out, or ends the call when the rate-limit budget
 * is spent, before the retry loop sees it.
 */
import { setTimeout as sleep } from "node:timers/promises";

import { RETRY_BASE_DELAY_MS, RETRY_MAX_DELAY_MS } from "./constants";
import { networkErrorTraits } from "./network-errors";
import type { Layer, RetryStop, Sent } from "./transport";

/** How one attempt failed, as far as retrying is concerned. */
export type AttemptFailure =
  | {
      readonly kind: "status";
      readonly status: number;
      /** The delay asked for by a `Retry-After` header, when it parsed. */
      readonly retryAfterMs?: number | undefined;
    }
  | {
      readonly kind: "network";
      /** A Node or undici error code, such as `ECONNREFUSED` or `UND_ERR_SOCKET` (see `network-errors.ts`). */
      readonly code: string;
    }
  | {
      /**
       * An earlier attempt's outcome was unknown, and the server's state shows it was not applied
       * (see `create-once.ts`): sending it again is safe.
       */
      readonly kind: "not-applied";
    };

/** Gateway statuses: the request may or may not have reached the application behind the gateway. */
const GATEWAY_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/**
 * Whether the server surely did not see the request (so even a create may be sent again): a
 * network failure before sending, or an attempt shown not to be applied. A status means it did.
 */
export function surelyNotProcessed(failure: AttemptFailure): boolean {
  if (failure.kind === "status") return false;
  if (failure.kind === "network") return !networkErrorTraits(failure.code).maybeSent;
  return true;
}

/** Whether the failure is transient, i.e. worth another attempt if repeating is safe. */
function isTransient(failure: AttemptFailure): boolean {
  if (failure.kind === "status") return GATEWAY_STATUSES.has(failure.status);
  if (failure.kind === "network") return networkErrorTraits(failure.code).transient;
  return true;
}

/**
 * Whether a request that failed this way may have been applied. Only requests that are not safe to
 * repeat care: a repeatable one is simply retried or reported as failed.
 */
export function isOutcomeUnknown(failure: AttemptFailure, repeatable: boolean): boolean {
  if (repeatable) return false;
  if (failure.kind === "status") return GATEWAY_STATUSES.has(failure.status);
  return !surelyNotProcessed(failure);
}

/** A short, secret-free reason for logs: the status (`"503"`) or the error code (`"ECONNRESET"`). */
export function failureReason(failure: AttemptFailure): string {
  if (failure.kind === "status") return String(failure.status);
  return failure.kind === "network" ? failure.code : "not applied";
}

/**
 * The backoff before retry number `retry` (1 for the first retry): exponential backoff with full
 * jitter, `random() * min(maxDelayMs, baseDelayMs * 2^(retry-1))`. Full jitter spreads the retries of
 * many resources that failed together (one provider host serves them all) instead of synchronising them.
 */
export function backoffDelay(
  retry: number,
  random: () => number,
  baseDelayMs: number = RETRY_BASE_DELAY_MS,
  maxDelayMs: number = RETRY_MAX_DELAY_MS,
): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * ceiling);
}

/**
 * Parses a `Retry-After` header: delay-seconds (`"120"`) or an HTTP date, relative to `nowMs`.
 * Returns the delay in milliseconds (0 for a date in the past), or `undefined` when the header is
 * missing or unparseable, in which case the caller backs off as usual.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // Date.parse accepts almost anything; only trust it for text shaped like an HTTP date (which is
  // always in GMT: RFC 9110 §5.6.7).
  if (/^[A-Za-z]{3},? .*\d{2}:\d{2}:\d{2} GMT$/.test(text)) {
    const at = Date.parse(text);
    if (Number.isFinite(at)) return Math.max(0, at - nowMs);
  }
  return undefined;
}

/** Limits and timing of retries for one call. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly maxRetries: number;
  /** Time budget for the whole call, retries included, in milliseconds. */
  readonly maxRetryTimeMs: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly random: () => number;
}

/** What to do after a failed attempt. */
export type RetryDecision = { readonly retry: true; readonly delayMs: number } | RetryStop;

/**
 * Decides whether to retry after attempt number `attempts` (1-based) failed with `failure`,
 * `elapsedMs` after the call started. A 429 never gets here (see the module's comment).
 */
export function decideRetry(
  failure: AttemptFailure,
  repeatable: boolean,
  attempts: number,
  elapsedMs: number,
  policy: RetryPolicy,
): RetryDecision {
  if (!isTransient(failure)) return { retry: false, why: "final" };
  if (!repeatable && !surelyNotProcessed(failure)) return { retry: false, why: "final" };
  if (attempts > policy.maxRetries) return { retry: false, why: "attempts" };
  const remaining = policy.maxRetryTimeMs - elapsedMs;
  const retryAfterMs = failure.kind === "status" ? failure.retryAfterMs : undefined;
  if (retryAfterMs !== undefined) {
    // The server said when to come back: asking earlier would only be refused again.
    return retryAfterMs > remaining
      ? { retry: false, why: "retry-after" }
      : { retry: true, delayMs: retryAfterMs };
  }
  const delayMs = backoffDelay(attempts, policy.random, policy.baseDelayMs, policy.maxDelayMs);
  return delayMs > remaining ? { retry: false, why: "budget" } : { retry: true, delayMs };
}

/** The clock, sleep and randomness used for retries; replaced by unit tests so they need not wait. */
export interface RequestTiming {
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
  readonly random: () => number;
}

/** Real timing. */
export const REAL_TIMING: RequestTiming = {
  sleep: (ms) => sleep(ms),
  now: () => Date.now(),
  random: () => Math.random(),
};

/** The outcome of one attempt, as {@link retrying} sees it. */
export type AttemptOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | {
      readonly ok: false;
      readonly failure: AttemptFailure;
      /**
       * What the operation ends with when this failure is the last (a value, or an error thrown);
       * `stop` says why retrying stopped.
       */
      readonly end: (stop: RetryStop) => T;
      /** Set when the attempt already knows it must not be retried, and why. */
      readonly stop?: RetryStop;
    };

/** How {@link retrying} runs: the limits, the clock, and whether the operation is safe to repeat. */
export interface RetryLoop {
  readonly policy: Omit<RetryPolicy, "random">;
  readonly timing: RequestTiming;
  /** Whether repeating the operation is safe whatever the failure (see {@link decideRetry}). */
  readonly repeatable: boolean;
  /**
   * Called before each wait; `attempt` is the number of the attempt that just failed. Must not
   * throw: `request()` passes its call's notices (`notices.ts`), which keep listeners from failing
   * the call.
   */
  readonly onRetry?: ((attempt: number, delayMs: number, failure: AttemptFailure) => void) | undefined;
}

/**
 * The one retry loop of the client: runs `attempt` (numbered from 1) until it succeeds or
 * {@link decideRetry} says stop, waiting the decided delay in between, and then ends as the last
 * attempt says. The retry layer of `request()` ({@link retried}) runs each HTTP call through it,
 * and the create-once operations their creates, so both follow the same policy and budget.
 */
export async function retrying<T>(
  loop: RetryLoop,
  attempt: (attempt: number) => Promise<AttemptOutcome<T>>,
): Promise<T> {
  const policy: RetryPolicy = { ...loop.policy, random: loop.timing.random };
  const started = loop.timing.now();
  for (let attempts = 1; ; attempts++) {
    const outcome = await attempt(attempts);
    if (outcome.ok) return outcome.value;
    if (outcome.stop !== undefined) return outcome.end(outcome.stop);
    const decision = decideRetry(
      outcome.failure,
      loop.repeatable,
      attempts,
      loop.timing.now() - started,
      policy,
    );
    if (!decision.retry) return outcome.end(decision);
    loop.onRetry?.(attempts, decision.delayMs, outcome.failure);
    await loop.timing.sleep(decision.delayMs);
  }
}

/** A 429 the pacing layer did not wait out (`outOfTime`): final, whatever `maxRetries` says. */
const RATE_LIMIT_STOP: RetryStop = { retry: false, why: "rate-limit" };

/**
 * The retry layer of one call: sends again what {@link decideRetry} allows, and gives back the
 * first success or the failure the call ends with, marked with why it stopped (`stop`).
 * `failureOf` says how an attempt failed, or `undefined` when it answered the call.
 */
export function retried(loop: RetryLoop, failureOf: (sent: Sent) => AttemptFailure | undefined): Layer {
  return (next) => () =>
    retrying(loop, async (): Promise<AttemptOutcome<Sent>> => {
      const sent = await next();
      const failure = failureOf(sent);
      if (failure === undefined) return { ok: true, value: sent };
      const end = (stop: RetryStop): Sent => ({ ...sent, stop });
      return sent.outOfTime === undefined
        ? { ok: false, failure, end }
        : { ok: false, failure, end, stop: RATE_LIMIT_STOP };
    });
}
