/**
 * Pacing of requests against the broker's rate limit, shared by every request of a process to one
 * API (see {@link sharedPacer}): the provider host serves every resource of a stack in one process,
 * so one 429 says something about all of them. The rules and the measurements behind each number
 * are in docs/decisions.md ("Retries and creates that never duplicate", "Many stacks, one quota"):
 *
 * - The first 429 of an episode blocks every request until its `Retry-After` (queued requests wake
 *   with jitter) and cuts the pace to {@link CUT_RATIO} of the rate the server admitted over the
 *   second before the refused request, never below {@link CONTENTION_CUT} of the pace it was sent
 *   at. The other 429s of the same burst only correct that count.
 * - After a corroborated 429 (the pace was holding requests back, or the burst had another refusal)
 *   the pace holds, then grows by a fixed step per second (additive growth after a proportional cut:
 *   processes sharing one limit converge to even shares); after a lone 429 it doubles every second.
 *   Above {@link UNPACED_ABOVE} it is dropped.
 * - A known quota (`maxRequestsPerSecond`) paces from the start, at {@link KNOWN_QUOTA_SHARE} of it.
 *
 * The pacer only plans: it returns how long to wait, and the pacing layer (`pacing.ts`) sleeps. Its
 * clock is injected, so tests run on a fake one.
 */

/**
 * A known quota paces at this share of it. Slots are planned ahead at even intervals; a request sent
 * a few milliseconds late (a busy event loop) brings the next ones closer to it, and at exactly the
 * quota eleven requests then fall into one second of a limit of ten (the bench's `up --parallel 100`
 * drew one 429 in 103 requests that way, and the 429 cut the pace for 30 s).
 */
export const KNOWN_QUOTA_SHARE = 0.95;

/** The pace never drops below this many requests per second. */
export const MIN_PACE = 1;

/** After a 429, the pace is this share of the rate the server admitted over the last second. */
export const CUT_RATIO = 0.92;

/** A 429 never cuts the pace below this share of the pace its request was sent at. */
export const CONTENTION_CUT = 0.7;

/** After a 429's block, the pace holds this long before it grows… */
export const MIN_PACE_HOLD_MS = 3_000;

/** …and at most this long, once the pace has grown into the limit at the same level again and again. */
export const MAX_PACE_HOLD_MS = 30_000;

/** After a 429 drawn without having grown since the last cut (others took more), it holds this long. */
export const CONTENDED_PACE_HOLD_MS = 1_000;

/** Two cuts within this share of each other are at the same level: the limit was found where it was. */
export const SAME_LEVEL = 0.2;

/**
 * After its hold, the pace grows each second by this share of the highest rate the server has
 * admitted this process over a second (at least {@link MIN_PACE}).
 */
export const PACE_STEP_SHARE = 0.1;

/** After a lone 429 (nothing corroborates that the limit was met), the pace grows this fast: doubling. */
export const UNCORROBORATED_GROWTH_PER_SECOND = 1;

/** A learned pace above this many requests per second is dropped: the client no longer paces. */
export const UNPACED_ABOVE = 1000;

/** How long a 429 without a usable `Retry-After` blocks requests. */
export const DEFAULT_RATE_LIMIT_WAIT_MS = 1000;

/** Requests waiting on a block wake up to this share of the block later (jitter)… */
export const RATE_LIMIT_JITTER_RATIO = 0.2;

/** …but at most this much later. */
export const RATE_LIMIT_MAX_JITTER_MS = 2000;

/** The window over which the admitted rate is measured, as the server's limit counts it: a second. */
const WINDOW_MS = 1000;

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
  /** Nothing is sent before this time (the current episode's `Retry-After`). */
  #blockedUntil = Number.NEGATIVE_INFINITY;
  /** The learned pace in requests per second at `#paceSince`, or `undefined`: not paced. */
  #pace: number | undefined;
  /** When the hold of the learned pace began (the end of the block that set it). */
  #paceSince = 0;
  /** The hold of the learned pace, and whether it then grows by steps or doubles (see the module's comment). */
  #hold = MIN_PACE_HOLD_MS;
  #doubling = false;
  /** The hold a corroborated 429 sets: doubled each time the limit is found at the same level again. */
  #metHold = MIN_PACE_HOLD_MS;
  /** The highest rate the server admitted this process over the second before a 429, in past episodes. */
  #pastCeiling = 0;
  /** When the pace last held a request back (it was binding). */
  #heldBackAt = Number.NEGATIVE_INFINITY;
  /** When the current episode began: 429s of requests sent before it belong to it. */
  #lastCutAt = Number.NEGATIVE_INFINITY;
  /**
   * The window the current episode measured the admitted rate over, what it counted in it, and the
   * least the episode cuts the pace to ({@link CONTENTION_CUT} of the pace its request was sent at).
   */
  #episode = { from: 0, to: 0, admitted: 0, floor: 0 };
  /** When the latest slot was handed out. */
  #lastSlot = Number.NEGATIVE_INFINITY;
  /**
   * Slots from `#recentStart` on: those of the last two seconds (and those ahead), to measure the
   * rate actually sent. Expired ones before `#recentStart` are dropped in bulk.
   */
  #recent: number[] = [];
  #recentStart = 0;
  /** When refused requests were sent, over the same span: they were not admitted. */
  #refused: number[] = [];
  #generation = 0;

  constructor(clock: PacerClock) {
    this.#clock = clock;
  }

  /**
   * The pace now, in requests per second: the learned one (grown since its hold ended) capped by
   * the known quota, or `undefined` when neither applies.
   */
  pace(knownQuota?: number, at = this.#clock.now()): number | undefined {
    let learned: number | undefined;
    if (this.#pace !== undefined) {
      const seconds = Math.max(0, at - this.#paceSince - this.#hold) / 1000;
      const grown = this.#doubling
        ? this.#pace * (1 + UNCORROBORATED_GROWTH_PER_SECOND) ** seconds
        : this.#grownBySteps(this.#pace, seconds);
      if (grown > UNPACED_ABOVE) this.#pace = undefined;
      else learned = grown;
    }
    if (knownQuota === undefined) return learned;
    const ceiling = KNOWN_QUOTA_SHARE * knownQuota;
    return learned === undefined ? ceiling : Math.min(learned, ceiling);
  }

  /**
   * The pace `seconds` into its growth after a corroborated 429: by a fixed step per second (see the
   * module's comment) up to the rate that step is {@link PACE_STEP_SHARE} of, and past it by that
   * share of itself per second, compounded, so that a lifted limit is found in tens of seconds, not
   * in hundreds.
   */
  #grownBySteps(pace: number, seconds: number): number {
    const step = Math.max(MIN_PACE, PACE_STEP_SHARE * this.#ceiling());
    const knee = step / PACE_STEP_SHARE;
    const toKnee = Math.max(0, (knee - pace) / step);
    if (seconds <= toKnee) return pace + step * seconds;
    return Math.max(pace, knee) * (1 + PACE_STEP_SHARE) ** (seconds - toKnee);
  }

  /**
   * How long a request that reserved a slot now would wait, without reserving one (and without the
   * jitter of a block): the read coalescer waits this long before it decides what to send, so the
   * reads that arrive meanwhile are decided together.
   */
  nextSlotInMs(knownQuota?: number): number {
    const now = this.#clock.now();
    const slot = this.#pacedFrom(Math.max(now, this.#blockedUntil), knownQuota);
    return Math.max(0, Math.ceil(slot - now));
  }

  /** The first moment from `earliest` on that is one pace interval after the latest slot. */
  #pacedFrom(earliest: number, knownQuota: number | undefined): number {
    // Without a pace (no 429 yet, no quota) the slot is `earliest`: nothing to compute.
    const pace =
      this.#pace === undefined && knownQuota === undefined ? undefined : this.pace(knownQuota, earliest);
    return pace === undefined ? earliest : Math.max(earliest, this.#lastSlot + 1000 / pace);
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
    const slot = this.#pacedFrom(earliest, knownQuota);
    if (slot > earliest) {
      reason = "pace";
      this.#heldBackAt = now;
    }
    if (slot > this.#lastSlot) this.#lastSlot = slot;
    this.#remember(slot, now);
    return { waitMs: Math.max(0, Math.ceil(slot - now)), reason, generation: this.#generation };
  }

  /**
   * Keeps the slots of the last two seconds (a refused request's window may start a moment before
   * the latest slot's). Slots come nearly in order, so expired ones are skipped from the front and
   * dropped once they are half the array: constant time per request, even at thousands of requests
   * per second (dropping one at a time would move the whole array on every request).
   */
  #remember(slot: number, now: number): void {
    const recent = this.#recent;
    recent.push(slot);
    const horizon = now - 2 * WINDOW_MS;
    let start = this.#recentStart;
    while ((recent[start] ?? Number.POSITIVE_INFINITY) <= horizon) start++;
    if (start > recent.length / 2) {
      recent.splice(0, start);
      start = 0;
    }
    this.#recentStart = start;
  }

  /** Holds the pace just under the limit when it was met, or lets it recover fast after a lone 429. */
  #corroborate(met: boolean): void {
    this.#hold = met ? this.#metHold : 0;
    this.#doubling = !met;
  }

  /**
   * The highest rate the server has admitted this process over the second before a 429 (the current
   * episode's count, corrected by the later 429s of its burst, included).
   */
  #ceiling(): number {
    return Math.max(this.#pastCeiling, this.#episode.admitted);
  }

  /**
   * The hold a corroborated 429 sets, from the last episode's cut, the pace the refused request was
   * sent at, and the new cut (see the module's comment).
   */
  #holdAfter(lastCut: number | undefined, sentAtPace: number | undefined, cut: number): number {
    if (lastCut === undefined || sentAtPace === undefined) return MIN_PACE_HOLD_MS;
    // Refused without having grown since the last cut: others took more of the limit, and may give
    // it back as soon; hold only briefly.
    if (sentAtPace <= lastCut) return CONTENDED_PACE_HOLD_MS;
    // Grown back into the limit where it was found last time: the server's own limit; hold longer.
    if (Math.abs(cut / lastCut - 1) <= SAME_LEVEL) return Math.min(MAX_PACE_HOLD_MS, 2 * this.#metHold);
    return MIN_PACE_HOLD_MS;
  }

  /** The current generation (see {@link PacerSlot.generation}). */
  get generation(): number {
    return this.#generation;
  }

  /**
   * Learns from a 429 to a request sent at `sentAt`. The first 429 of an episode blocks everyone for
   * `retryAfterMs` (or {@link DEFAULT_RATE_LIMIT_WAIT_MS}) and sets the pace to {@link CUT_RATIO} of
   * the rate admitted over the second before `sentAt`, never below {@link CONTENTION_CUT} of the pace
   * at `sentAt`, to hold for a while. A 429 of a request sent before the episode
   * began only corrects that count (it was not admitted). Returns how long the refused request
   * waits: exactly until the block ends, when it takes a slot at the pace with {@link reserve} like
   * any other.
   */
  rateLimited(sentAt: number, retryAfterMs: number | undefined, knownQuota?: number): number {
    const now = this.#clock.now();
    this.#generation++;
    // Slots handed out ahead of now are void: their requests take new ones (the generation changed).
    const recent = this.#recent;
    while (recent.length > this.#recentStart && (recent.at(-1) ?? now) > now) recent.pop();
    this.#lastSlot = Math.min(this.#lastSlot, now);
    this.#refused.push(sentAt);
    const horizon = now - 2 * WINDOW_MS;
    this.#refused = this.#refused.filter((t) => t > horizon);
    const episode = this.#episode;
    if (sentAt > this.#lastCutAt) {
      this.#pastCeiling = this.#ceiling();
      // The last episode's cut, and the pace (grown since) this request was sent at.
      const lastCut = this.#pace;
      const sentAtPace = this.pace(undefined, sentAt);
      this.#blockedUntil = Math.max(this.#blockedUntil, now + (retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS));
      episode.from = sentAt - WINDOW_MS;
      episode.to = sentAt;
      const inWindow = (t: number): boolean => t > episode.from && t <= episode.to;
      let sent = 0;
      for (let i = this.#recentStart; i < recent.length; i++) if (inWindow(recent[i] ?? 0)) sent++;
      episode.admitted = sent - this.#refused.filter(inWindow).length;
      episode.floor = sentAtPace === undefined ? 0 : CONTENTION_CUT * sentAtPace;
      this.#metHold = this.#holdAfter(lastCut, sentAtPace, Math.max(MIN_PACE, CUT_RATIO * episode.admitted));
      // Growth starts once the block is over: waiting is not evidence that the limit lifted.
      this.#paceSince = this.#blockedUntil;
      this.#lastCutAt = now;
      this.#corroborate(now - this.#heldBackAt <= WINDOW_MS);
    } else {
      // Another request of the burst was refused too: the limit is real; and if it was sent in the
      // measured second, it was counted as admitted, wrongly.
      this.#corroborate(true);
      if (sentAt > episode.from && sentAt <= episode.to) episode.admitted--;
    }
    const quota = knownQuota ?? Number.POSITIVE_INFINITY;
    this.#pace = Math.max(MIN_PACE, Math.min(quota, Math.max(CUT_RATIO * episode.admitted, episode.floor)));
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
