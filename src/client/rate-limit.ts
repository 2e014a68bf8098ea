/**
 * Pacing of requests against the broker's rate limit, shared by every request of a process to one
 * API (see {@link sharedPacer}): the provider host serves every resource of a stack in one process,
 * so one 429 says something about all of them.
 *
 * - A 429 blocks new and retried requests until its `Retry-After` (seconds or an HTTP date; 1 s when
 *   absent) has passed. The refused request comes back exactly then; requests that queued behind
 *   the block wake up with jitter, and all of them take slots at the new pace, so they do not all
 *   arrive at once.
 * - It also halves the pace (requests per second) the client allows itself: multiplicative decrease,
 *   from the rate actually sent in the last second. Requests sent before that cut were sent at the
 *   old pace, so their 429s do not cut again.
 * - The pace doubles every {@link PACE_DOUBLING_MS} without a 429 and is dropped altogether once it is
 *   above {@link UNPACED_ABOVE}: when the limit lifts, the client speeds up again.
 * - A known quota (`maxRequestsPerSecond`) paces from the start, so a team that knows its limit
 *   never sees a 429.
 *
 * The pacer only plans: it returns how long to wait, and `request()` sleeps. Its clock is injected,
 * so tests run on a fake one.
 */

/** The pace never drops below this many requests per second. */
export const MIN_PACE = 1;

/** Without a 429 for this long, the learned pace doubles. */
export const PACE_DOUBLING_MS = 1_000;

/** A learned pace above this many requests per second is dropped: the client no longer paces. */
export const UNPACED_ABOVE = 1000;

/** How long a 429 without a usable `Retry-After` blocks requests. */
export const DEFAULT_RATE_LIMIT_WAIT_MS = 1000;

/** Requests waiting on a block wake up to this share of the block later (jitter)… */
export const RATE_LIMIT_JITTER_RATIO = 0.2;

/** …but at most this much later. */
export const RATE_LIMIT_MAX_JITTER_MS = 2000;

/** The clock and randomness of a pacer (the client's `RequestTiming`). */
export interface PacerClock {
  readonly now: () => number;
  readonly random: () => number;
}

/** A slot: when a request may be sent. */
export interface PacerSlot {
  /** Milliseconds from now until the request may be sent (0: at once). */
  readonly waitMs: number;
  /** Why it waits: a 429's block, or the pace. */
  readonly reason: "retry-after" | "pace";
  /**
   * Changes whenever a 429 arrives. If it changed while a request slept towards its slot, the
   * request takes a new slot instead of going.
   */
  readonly generation: number;
}

/** The pacing state of one API, shared by every client of the process that talks to it. */
export class RatePacer {
  readonly #clock: PacerClock;
  /** Nothing is sent before this time (the latest `Retry-After`). */
  #blockedUntil = Number.NEGATIVE_INFINITY;
  /** The learned pace in requests per second at `#paceSince`, or `undefined`: not paced. */
  #pace: number | undefined;
  #paceSince = 0;
  /** When the pace was last cut: 429s of requests sent before it do not cut it again. */
  #lastCutAt = Number.NEGATIVE_INFINITY;
  /** When the latest slot was handed out. */
  #lastSlot = Number.NEGATIVE_INFINITY;
  /** Slots of the last second, to measure the rate actually sent. */
  #recent: number[] = [];
  #generation = 0;

  constructor(clock: PacerClock) {
    this.#clock = clock;
  }

  /**
   * The pace now, in requests per second: the learned one (grown since the last cut) capped by the
   * known quota, or `undefined` when neither applies.
   */
  pace(knownQuota?: number, at = this.#clock.now()): number | undefined {
    let learned: number | undefined;
    if (this.#pace !== undefined) {
      const grown = this.#pace * 2 ** (Math.max(0, at - this.#paceSince) / PACE_DOUBLING_MS);
      if (grown > UNPACED_ABOVE) this.#pace = undefined;
      else learned = grown;
    }
    if (knownQuota === undefined) return learned;
    return learned === undefined ? knownQuota : Math.min(learned, knownQuota);
  }

  /**
   * Hands out the next slot for a request: after any block (with jitter, so that the requests
   * queued behind it spread out), and one pace interval after the previous slot.
   */
  reserve(knownQuota?: number): PacerSlot {
    const now = this.#clock.now();
    let earliest = now;
    let reason: PacerSlot["reason"] = "pace";
    if (this.#blockedUntil > now) {
      reason = "retry-after";
      const block = this.#blockedUntil - now;
      const jitter =
        this.#clock.random() * Math.min(RATE_LIMIT_MAX_JITTER_MS, block * RATE_LIMIT_JITTER_RATIO);
      earliest = this.#blockedUntil + jitter;
    }
    const pace = this.pace(knownQuota, earliest);
    const slot = pace === undefined ? earliest : Math.max(earliest, this.#lastSlot + 1000 / pace);
    if (slot > earliest) reason = "pace";
    this.#lastSlot = Math.max(this.#lastSlot, slot);
    this.#remember(slot);
    return { waitMs: Math.max(0, Math.ceil(slot - now)), reason, generation: this.#generation };
  }

  /**
   * Keeps the slots of the last second. Slots come nearly in order, so expired ones are dropped
   * from the front: constant time per request, even at thousands of requests per second.
   */
  #remember(slot: number): void {
    this.#recent.push(slot);
    let expired = 0;
    while ((this.#recent[expired] ?? Number.POSITIVE_INFINITY) <= slot - 1000) expired++;
    if (expired > 0) this.#recent.splice(0, expired);
  }

  /** The current generation (see {@link PacerSlot.generation}). */
  get generation(): number {
    return this.#generation;
  }

  /**
   * Learns from a 429 to a request sent at `sentAt`: blocks everyone for `retryAfterMs` (or
   * {@link DEFAULT_RATE_LIMIT_WAIT_MS}) and halves the pace, unless the request was sent before the
   * last cut (it was sent at the old pace). Returns how long the refused request waits: exactly
   * until the block ends, when it takes a slot at the pace with {@link reserve} like any other.
   */
  rateLimited(sentAt: number, retryAfterMs: number | undefined, knownQuota?: number): number {
    const now = this.#clock.now();
    this.#blockedUntil = Math.max(this.#blockedUntil, now + (retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS));
    this.#generation++;
    if (sentAt > this.#lastCutAt) {
      const sentLastSecond = this.#recent.filter((t) => t > now - 1000 && t <= now).length;
      const current = this.pace(knownQuota, now) ?? sentLastSecond;
      this.#pace = Math.max(MIN_PACE, current / 2);
      // Growth starts once the block is over: waiting is not evidence that the limit lifted.
      this.#paceSince = this.#blockedUntil;
      this.#lastCutAt = now;
    }
    return Math.max(0, Math.ceil(this.#blockedUntil - now));
  }
}

const pacers = new Map<string, RatePacer>();

/**
 * The pacer every client of this process shares for the API at `baseUrl` (with the real clock).
 * The limit is assumed to be the server's, whatever key calls it: sharing errs on the slow side.
 */
export function sharedPacer(baseUrl: string, clock: PacerClock): RatePacer {
  let pacer = pacers.get(baseUrl);
  if (pacer === undefined) {
    pacer = new RatePacer(clock);
    pacers.set(baseUrl, pacer);
  }
  return pacer;
}
