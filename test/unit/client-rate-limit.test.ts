import { describe, expect, it } from "vitest";

import {
  CUT_RATIO,
  DEFAULT_RATE_LIMIT_WAIT_MS,
  KNOWN_QUOTA_SHARE,
  MIN_PACE,
  PACE_GROWTH_PER_SECOND,
  PACE_HOLD_MS,
  RATE_LIMIT_MAX_JITTER_MS,
  UNCORROBORATED_GROWTH_PER_SECOND,
  RatePacer,
  sharedPacer,
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
    // A request sent after the cut, refused again: the pace was still too fast; the admitted rate of
    // its own second counts now (4 sent at the pace, the 5th refused).
    clock.advance(970);
    paced(pacer, clock, 5);
    expect(pacer.rateLimited(clock.now(), 1_000)).toBe(1_000);
    expect(pacer.pace()).toBeCloseTo(CUT_RATIO * 4);
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

  it("stays just under a limit it met for a while, then speeds up again by a share per second, then stops pacing", () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    const sentAt = clock.now();
    // 12 at once, two refused: the limit is met.
    burst(pacer, 12);
    clock.advance(1);
    pacer.rateLimited(sentAt, 1_000);
    pacer.rateLimited(sentAt, 1_000);
    const cut = CUT_RATIO * 10;
    expect(pacer.pace()).toBeCloseTo(cut);
    // Waiting out the block is no evidence that the limit lifted, nor is the hold after it.
    clock.advance(1_000);
    expect(pacer.pace()).toBeCloseTo(cut);
    clock.advance(PACE_HOLD_MS);
    expect(pacer.pace()).toBeCloseTo(cut);
    clock.advance(1_000);
    expect(pacer.pace()).toBeCloseTo(cut * (1 + PACE_GROWTH_PER_SECOND));
    clock.advance(1_000);
    expect(pacer.pace()).toBeCloseTo(cut * (1 + PACE_GROWTH_PER_SECOND) ** 2);
    const toUnpaced = Math.log(UNPACED_ABOVE / cut) / Math.log(1 + PACE_GROWTH_PER_SECOND);
    clock.advance(Math.ceil(toUnpaced) * 1_000);
    expect(pacer.pace()).toBeUndefined();
    burst(pacer, 20);
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
  pacer.rateLimited(clock.now(), 1_000);
  const cut = CUT_RATIO * 4;
  clock.advance(1_000 + PACE_HOLD_MS);
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
    clock.advance(PACE_HOLD_MS + 60_000);
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
