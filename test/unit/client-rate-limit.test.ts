import { describe, expect, it } from "vitest";

import {
  DEFAULT_RATE_LIMIT_WAIT_MS,
  MIN_PACE,
  PACE_DOUBLING_MS,
  RATE_LIMIT_MAX_JITTER_MS,
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

  it("holds back every other request too, and a later, shorter Retry-After does not shorten the block", () => {
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
  // 100 requests in the last second, then a 429: the pace becomes 50 per second (one per 20 ms).
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

  it("halves the rate sent in the last second, and spaces requests by it once the block is over", () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    burst(pacer, 8);
    pacer.rateLimited(clock.now(), 2_000);
    expect(pacer.pace()).toBe(4);
    clock.advance(2_000);
    const waits = [pacer.reserve(), pacer.reserve(), pacer.reserve()].map((s) => s.waitMs);
    expect(waits).toEqual([0, 250, 500]);
  });

  it("cuts once for a burst: 429s of requests sent before the cut do not cut again", () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    const sentAt = clock.now();
    burst(pacer, 8);
    clock.advance(10);
    for (let i = 0; i < 8; i++) pacer.rateLimited(sentAt, 1_000);
    expect(pacer.pace()).toBe(4);
    // A request sent after the cut, refused again: the pace was still too fast.
    clock.advance(1_000);
    pacer.rateLimited(clock.now(), 1_000);
    expect(pacer.pace()).toBe(2);
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

  it("speeds up again when the limit lifts: doubles every second without a 429, then stops pacing", () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    burst(pacer, 8);
    pacer.rateLimited(clock.now(), 1_000);
    expect(pacer.pace()).toBe(4);
    // Waiting out the block is no evidence that the limit lifted.
    clock.advance(1_000);
    expect(pacer.pace()).toBe(4);
    clock.advance(PACE_DOUBLING_MS);
    expect(pacer.pace()).toBe(8);
    clock.advance(PACE_DOUBLING_MS);
    expect(pacer.pace()).toBe(16);
    clock.advance(PACE_DOUBLING_MS * Math.ceil(Math.log2(UNPACED_ABOVE / 16)));
    expect(pacer.pace()).toBeUndefined();
    burst(pacer, 20);
  });
});

describe("a known quota", () => {
  it("paces from the first request, so no 429 is needed to learn it", () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    const waits = [0, 1, 2, 3].map(() => pacer.reserve(5).waitMs);
    expect(waits).toEqual([0, 200, 400, 600]);
  });

  it("is a ceiling the learned pace never exceeds, even after the limit lifts", () => {
    const clock = fakeClock();
    const pacer = new RatePacer(clock);
    burst(pacer, 1);
    pacer.rateLimited(clock.now(), 0, 2);
    expect(pacer.pace(2)).toBe(1);
    clock.advance(PACE_DOUBLING_MS * 20);
    expect(pacer.pace(2)).toBe(2);
  });
});

describe("sharedPacer", () => {
  it("gives every client of the process the same pacer for one API, and another for another API", () => {
    const a = sharedPacer("https://shared.example/v1", REAL_TIMING);
    expect(sharedPacer("https://shared.example/v1", REAL_TIMING)).toBe(a);
    expect(sharedPacer("https://other.example/v1", REAL_TIMING)).not.toBe(a);
  });
});
