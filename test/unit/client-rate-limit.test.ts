import { describe, expect, it } from "vitest";

import {
  CONTENDED_PACE_HOLD_MS,
  CONTENTION_CUT,
  CUT_RATIO,
  DEFAULT_RATE_LIMIT_WAIT_MS,
  KNOWN_QUOTA_SHARE,
  MAX_PACE_HOLD_MS,
  MIN_PACE,
  MIN_PACE_HOLD_MS,
  PACE_STEP_SHARE,
  RATE_LIMIT_MAX_JITTER_MS,
  UNCORROBORATED_GROWTH_PER_SECOND,
  RatePacer,
  sharedPacer,
  type PacerSlot,
  UNPACED_ABOVE,
} from "../../src/client/rate-limit";
import { parseRetryAfter, REAL_TIMING } from "../../src/client/retry";

const T0 = Date.parse("2025-01-01T00:00:00Z");

/** A clock that only moves when told, and a random() the test sets. */
function fakeClock(): { now: () => number; random: () => number; advance: (ms: number) => void; r: number } {
  const state = {
    t: T0,
    r: 0.5,
    now: () => state.t,
    random: () => state.r,
    advance: (ms: number) => {
      state.t += ms;
    },
  };
  return state;
}

/** Sends `n` requests at once (all slots now): the rate the pacer measures. */
function burst(pacer: RatePacer, n: number): void {
  for (let i = 0; i < n; i++) expect(pacer.reserve().waitMs).toBe(0);
}

/**
 * The server admits `admitted` requests at once, then refuses the next one, in the same second,
 * with a 429 that blocks for `blockMs`.
 */
function refusedAfter(
  pacer: RatePacer,
  clock: { now: () => number; advance: (ms: number) => void },
  admitted: number,
  blockMs: number,
): void {
  burst(pacer, admitted);
  clock.advance(1);
  burst(pacer, 1);
  pacer.rateLimited(clock.now(), blockMs);
}

/**
 * Sends `sent` requests at once, of which the server refuses the last `refused` (more than one: the
 * limit is met, not a fluke), with a 429 that blocks for a second.
 */
function metLimit(
  pacer: RatePacer,
  clock: { now: () => number; advance: (ms: number) => void },
  sent: number,
  refused: number,
): void {
  const sentAt = clock.now();
  burst(pacer, sent);
  clock.advance(1);
  for (let i = 0; i < refused; i++) pacer.rateLimited(sentAt, 1_000);
}

/** Sends `n` requests at the pace, each when its slot comes (the clock follows). */
function paced(pacer: RatePacer, clock: { advance: (ms: number) => void }, n: number): void {
  for (let i = 0; i < n; i++) clock.advance(pacer.reserve().waitMs);
}

describe("Retry-After", () => {
  it("blocks for the seconds the server asks, and the refused request comes back exactly then", () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    burst(pacer, 1);
    expect(pacer.rateLimited(clock.now(), parseRetryAfter("3", clock.now()))).toBe(3000);
  });

  it("blocks until an HTTP date", () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    burst(pacer, 1);
    const retryAfter = parseRetryAfter("Wed, 01 Jan 2025 00:00:30 GMT", clock.now());
    expect(pacer.rateLimited(clock.now(), retryAfter)).toBe(30_000);
  });

  it("blocks for a second when the 429 says nothing", () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    burst(pacer, 1);
    expect(pacer.rateLimited(clock.now(), undefined)).toBe(DEFAULT_RATE_LIMIT_WAIT_MS);
  });

  it("holds back every other request too, and another 429 of the same burst does not shorten the block", () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    const sentAt = clock.now();
    burst(pacer, 100);
    clock.advance(1);
    expect(pacer.rateLimited(sentAt, 10_000)).toBe(10_000);
    expect(pacer.rateLimited(sentAt, 1_000)).toBe(10_000);
    clock.r = 0;
    expect(pacer.reserve()).toMatchObject({ waitMs: 10_000, reason: "retry-after" });
  });
});

describe("jitter of requests queued behind a block", () => {
  // 100 requests in the last second, then a 429: the pace becomes about 90 per second (one per 11 ms).
  it.each([
    ["none at random() = 0", 5_000, 0, 5_000],
    ["a fifth of the block at most", 5_000, 0.999_999, 6_000],
    ["half of that at random() = 0.5", 5_000, 0.5, 5_500],
    [`never more than ${RATE_LIMIT_MAX_JITTER_MS} ms`, 60_000, 0.999_999, 60_000 + RATE_LIMIT_MAX_JITTER_MS],
  ])("%s", (_, blockMs, random, expected) => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    burst(pacer, 100);
    expect(pacer.rateLimited(clock.now(), blockMs)).toBe(blockMs);
    clock.r = random;
    const slot = pacer.reserve();
    expect(slot.waitMs).toBeGreaterThanOrEqual(blockMs);
    expect(slot.waitMs).toBeLessThanOrEqual(blockMs + Math.min(RATE_LIMIT_MAX_JITTER_MS, blockMs * 0.2));
    expect(slot.waitMs).toBe(expected);
  });

  it("spreads the waiters out instead of sending them all when the block ends", () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    burst(pacer, 100);
    pacer.rateLimited(clock.now(), 5_000);
    const waits = [0.9, 0.1, 0.5].map((r) => {
      clock.r = r;
      return pacer.reserve().waitMs;
    });
    expect(new Set(waits).size).toBe(3);
    for (const wait of waits) expect(wait).toBeGreaterThan(5_000);
  });
});

describe("the pace learned from 429s", () => {
  it("does not pace before any 429", () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    burst(pacer, 50);
    expect(pacer.pace()).toBeUndefined();
  });

  it("sets the pace just under the rate the server admitted in the last second, once the block is over", () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    // The 11th request in the second is refused: the server admitted 10.
    refusedAfter(pacer, clock, 10, 2_000);
    expect(pacer.pace()).toBeCloseTo(CUT_RATIO * 10);
    clock.advance(2_000);
    const waits = [pacer.reserve(), pacer.reserve(), pacer.reserve()].map((s) => s.waitMs);
    const interval = 1000 / (CUT_RATIO * 10);
    expect(waits).toEqual([0, Math.ceil(interval), Math.ceil(2 * interval)]);
  });

  it("cuts once for a burst and honours its Retry-After once: the burst's other 429s only correct the count", () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    const sentAt = clock.now();
    // 12 requests at once, of which the server admits 10.
    burst(pacer, 12);
    clock.advance(50);
    expect(pacer.rateLimited(sentAt, 1_000)).toBe(1_000);
    expect(pacer.pace()).toBeCloseTo(CUT_RATIO * 11);
    clock.advance(30);
    // The burst's other refusal: not admitted either, and its own Retry-After does not push the block.
    expect(pacer.rateLimited(sentAt, 1_000)).toBe(970);
    expect(pacer.pace()).toBeCloseTo(CUT_RATIO * 10);
    // A request sent after the cut, refused again: the pace was still too fast (others share the
    // limit). Its own second counts 4 admitted, but it was held back by its pace for most of it, so
    // the count says little: the pace backs off by a share of itself instead.
    clock.advance(970);
    paced(pacer, clock, 5);
    expect(pacer.rateLimited(clock.now(), 1_000)).toBe(1_000);
    expect(CUT_RATIO * 4).toBeLessThan(CONTENTION_CUT * CUT_RATIO * 10);
    expect(pacer.pace()).toBeCloseTo(CONTENTION_CUT * CUT_RATIO * 10);
  });

  it("measures the last second only, however long the client has been sending", () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    // Five seconds at 100 requests per second, then a refusal: 99 of the last second's were admitted.
    for (let i = 0; i < 500; i++) {
      clock.advance(10);
      burst(pacer, 1);
    }
    pacer.rateLimited(clock.now(), 1_000);
    expect(pacer.pace()).toBeCloseTo(CUT_RATIO * 99);
  });

  it(`never drops below ${MIN_PACE} request per second`, () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    for (let i = 0; i < 5; i++) {
      clock.advance(1);
      pacer.reserve();
      pacer.rateLimited(clock.now(), 0);
    }
    expect(pacer.pace()).toBe(MIN_PACE);
  });

  it("stays just under a limit it met for a while, then speeds up again by a step per second, then stops pacing", () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    // 12 at once, two refused: the limit is met, 10 admitted.
    metLimit(pacer, clock, 12, 2);
    const cut = CUT_RATIO * 10;
    expect(pacer.pace()).toBeCloseTo(cut);
    // Waiting out the block is no evidence that the limit lifted, nor is the hold after it.
    clock.advance(1_000);
    expect(pacer.pace()).toBeCloseTo(cut);
    clock.advance(MIN_PACE_HOLD_MS);
    expect(pacer.pace()).toBeCloseTo(cut);
    // A step a second: a tenth of the 10 the server admitted, up to that rate…
    const step = PACE_STEP_SHARE * 10;
    clock.advance(500);
    expect(pacer.pace()).toBeCloseTo(cut + step / 2);
    const toTen = (10 - cut) / step;
    clock.advance(toTen * 1_000 - 500);
    expect(pacer.pace()).toBeCloseTo(10);
    // …then a tenth of itself a second, compounded, until it no longer paces at all.
    clock.advance(1_000);
    expect(pacer.pace()).toBeCloseTo(10 * (1 + PACE_STEP_SHARE));
    const toUnpaced = Math.log(UNPACED_ABOVE / 10) / Math.log(1 + PACE_STEP_SHARE);
    clock.advance(Math.ceil(toUnpaced) * 1_000);
    expect(pacer.pace()).toBeUndefined();
    burst(pacer, 20);
  });

  it("holds twice as long each time it grows back into the limit at the same level, and only briefly when a 429 comes without growing", () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    metLimit(pacer, clock, 12, 2);
    const cut = pacer.pace() ?? 0;
    // The first hold is the shortest; then the pace grows past the cut and meets the limit again.
    clock.advance(1_000 + MIN_PACE_HOLD_MS + 1_000);
    expect(pacer.pace()).toBeGreaterThan(cut);
    paced(pacer, clock, 10);
    pacer.rateLimited(clock.now(), 1_000);
    const again = pacer.pace() ?? 0;
    expect(Math.abs(again / cut - 1)).toBeLessThan(0.2);
    // Found at the same level: the hold doubled (3 s into it, the pace has not grown).
    clock.advance(1_000 + MIN_PACE_HOLD_MS + 1_000);
    expect(pacer.pace()).toBeCloseTo(again);
    // A 429 during that hold (the pace had not grown: others took more) holds only briefly.
    paced(pacer, clock, 5);
    expect(pacer.pace()).toBeCloseTo(again);
    pacer.rateLimited(clock.now(), 1_000);
    const third = pacer.pace() ?? 0;
    clock.advance(1_000 + CONTENDED_PACE_HOLD_MS - 100);
    expect(pacer.pace()).toBeCloseTo(third);
    clock.advance(600);
    expect(pacer.pace()).toBeGreaterThan(third);
  });

  it(`holds at most ${MAX_PACE_HOLD_MS / 1_000} s however often the limit is found again`, () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    metLimit(pacer, clock, 12, 2);
    // Each round: wait for the pace to grow a little past the hold, then meet the limit there again.
    for (let round = 0; round < 8; round++) {
      const held = Math.min(MAX_PACE_HOLD_MS, MIN_PACE_HOLD_MS * 2 ** round);
      clock.advance(1_000 + held + 300);
      paced(pacer, clock, 10);
      pacer.rateLimited(clock.now(), 1_000);
    }
    const cut = pacer.pace() ?? 0;
    clock.advance(1_000 + MAX_PACE_HOLD_MS - 100);
    expect(pacer.pace()).toBeCloseTo(cut);
    clock.advance(1_100);
    expect(pacer.pace()).toBeGreaterThan(cut);
  });

  it("grows by at least MIN_PACE a second when the server admitted it little, up to ten such steps", () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    // Admitted 2 of a burst of 4 (others took the rest of the limit).
    metLimit(pacer, clock, 4, 2);
    expect(pacer.pace()).toBeCloseTo(CUT_RATIO * 2);
    clock.advance(1_000 + MIN_PACE_HOLD_MS + 3_000);
    expect(pacer.pace()).toBeCloseTo(CUT_RATIO * 2 + 3 * MIN_PACE);
  });
});

/** One process of {@link shareOneLimit}. */
interface SharingProcess {
  readonly pacer: RatePacer;
  /** When it next acts, and when it stops. */
  at: number;
  readonly until: number;
  /** The slot it waits for, if any. */
  slot?: PacerSlot | undefined;
  /** When its requests were admitted. */
  readonly got: number[];
}

/**
 * Processes that share one limit of `limit` requests/s, each always with requests to send: each
 * sends when its pacer's slot comes (taking a new slot if a 429 came meanwhile), the server admits at
 * most `limit` in any second and answers the rest 429 with the whole seconds until it has room
 * again. Process i runs from `runs[i].from` to `runs[i].to` ms (to the end when absent). Returns, per
 * process, when its requests were admitted (ms from the start).
 */
function shareOneLimit(limit: number, runs: { from: number; to?: number }[], untilMs: number): number[][] {
  const clock = fakeClock();
  const t0 = clock.now();
  const admitted: number[] = [];
  const processes = runs.map((run, i) => {
    // Each its own deterministic jitter.
    const pacer = new RatePacer({ now: clock.now, random: () => ((i * 7 + admitted.length) % 10) / 10 });
    const sharing: SharingProcess = { pacer, at: t0 + run.from, until: t0 + (run.to ?? untilMs), got: [] };
    return sharing;
  });
  for (;;) {
    const running = processes.filter((p) => p.at <= p.until);
    if (running.length === 0) break;
    const next = running.reduce((a, b) => (b.at < a.at ? b : a));
    clock.advance(next.at - clock.now());
    const { pacer } = next;
    if (next.slot === undefined || pacer.generation !== next.slot.generation) {
      // Takes a slot (again, when a 429 came while it waited) and sends when it comes.
      next.slot = pacer.reserve();
      if (next.slot.waitMs > 0) {
        next.at = clock.now() + next.slot.waitMs;
        continue;
      }
    }
    next.slot = undefined;
    const now = clock.now();
    while (admitted.length > 0 && (admitted[0] ?? 0) <= now - 1_000) admitted.shift();
    if (admitted.length < limit) {
      admitted.push(now);
      next.got.push(now - t0);
      next.at = now + 1;
    } else {
      const retryAfterMs = Math.ceil(((admitted[0] ?? now) + 1_000 - now) / 1_000) * 1_000;
      next.at = now + pacer.rateLimited(now, retryAfterMs);
    }
  }
  return processes.map((p) => p.got);
}

describe("processes sharing one limit", () => {
  it("converge to even shares and use most of the limit, whoever started first", () => {
    const limit = 10;
    const got = shareOneLimit(limit, [{ from: 0 }, { from: 3_000 }, { from: 6_000 }], 60_000);
    // Over the last 30 s: each process near a third of the limit, all together most of it.
    const late = got.map((times) => times.filter((t) => t > 30_000).length / 30);
    for (const rate of late) {
      expect(rate).toBeGreaterThan(0.15 * limit);
      expect(rate).toBeLessThan(0.5 * limit);
    }
    expect(late.reduce((a, b) => a + b, 0)).toBeGreaterThan(0.7 * limit);
  });

  it("take up what a process leaves when it stops, within seconds", () => {
    const limit = 10;
    // Two share the limit for 20 s, then one stops.
    const [stays = []] = shareOneLimit(limit, [{ from: 0 }, { from: 0, to: 20_000 }], 40_000);
    // From 10 s after, the one left is admitted most of the limit (the pacer before issue #38's
    // convergence work: 6 of 10, its pace held 30 s where it was cut while sharing).
    expect(stays.filter((t) => t > 30_000).length / 10).toBeGreaterThan(0.7 * limit);
  });
});

it("after a lone 429 while the pace held nothing back, recovers at once: doubling every second", () => {
  const clock = fakeClock();
  const pacer = new RatePacer(clock);
  refusedAfter(pacer, clock, 10, 1_000);
  const cut = CUT_RATIO * 10;
  clock.advance(1_000);
  expect(pacer.pace()).toBeCloseTo(cut);
  clock.advance(1_000);
  expect(pacer.pace()).toBeCloseTo(cut * (1 + UNCORROBORATED_GROWTH_PER_SECOND));
});

it("holds after a lone 429 when the pace was holding requests back: the limit was met", () => {
  const clock = fakeClock();
  const pacer = new RatePacer(clock);
  refusedAfter(pacer, clock, 10, 1_000);
  clock.advance(1_000);
  paced(pacer, clock, 5);
  // Sent at the pace, grown since the lone 429: the cut takes at most 30% off it.
  const sentAtPace = pacer.pace() ?? 0;
  pacer.rateLimited(clock.now(), 1_000);
  const cut = Math.max(CUT_RATIO * 4, CONTENTION_CUT * sentAtPace);
  clock.advance(1_000 + MIN_PACE_HOLD_MS);
  expect(pacer.pace()).toBeCloseTo(cut);
});

describe("a known quota", () => {
  it("paces from the first request, so no 429 is needed to learn it", () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    const waits = [0, 1, 2, 3].map(() => pacer.reserve(5).waitMs);
    // 5 per second, at KNOWN_QUOTA_SHARE of it: a slot every 210.5 ms (rounded up to the ms).
    const interval = 1000 / (5 * KNOWN_QUOTA_SHARE);
    expect(waits).toEqual([0, 1, 2, 3].map((i) => Math.ceil(i * interval)));
    expect(waits[3]).toBe(632);
  });

  it("is a ceiling the learned pace never exceeds, even after the limit lifts", () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    burst(pacer, 1);
    pacer.rateLimited(clock.now(), 0, 2);
    expect(pacer.pace(2)).toBe(1);
    clock.advance(MAX_PACE_HOLD_MS + 60_000);
    expect(pacer.pace(2)).toBe(2 * KNOWN_QUOTA_SHARE);
  });
});

describe("sharedPacer", () => {
  it("gives every client of the process the same pacer for one API, and another for another API", () => {
    const a = sharedPacer("https://shared.example/v1", REAL_TIMING);
    expect(sharedPacer("https://shared.example/v1", REAL_TIMING)).toBe(a);
    expect(sharedPacer("https://other.example/v1", REAL_TIMING)).not.toBe(a);
  });
});
