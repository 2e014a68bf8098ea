/** The emulator's rate limiter on its own, with a clock the tests move by hand. */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/emulator/errors";
import {
  MAX_KEY_WINDOWS,
  parseRateLimitSpec,
  RateLimiter,
  rateLimitedReply,
  type Admission,
} from "../../src/emulator/rate-limit";

function clock(): { now: () => number; at: (ms: number) => void } {
  let time = 0;
  return {
    now: () => time,
    at: (ms) => {
      time = ms;
    },
  };
}

/** A limiter of `requestsPerSecond` (overall) on a clock the test sets. */
function limitedTo(requestsPerSecond: number): { time: ReturnType<typeof clock>; limiter: RateLimiter } {
  const time = clock();
  return { time, limiter: new RateLimiter({ requestsPerSecond }, time.now) };
}

/** Sends `count` requests with `key` at the clock's current time; returns how many were admitted. */
function burst(limiter: RateLimiter, count: number, key?: string): Admission[] {
  return Array.from({ length: count }, () => limiter.admit(key));
}

const admitted = (decisions: Admission[]): number => decisions.filter((d) => d.admitted).length;

describe("RateLimiter", () => {
  it("admits everything without a limit", () => {
    const limiter = new RateLimiter(undefined, () => 0);
    expect(admitted(burst(limiter, 1000, "a"))).toBe(1000);
    expect(limiter.status()).toEqual({ limit: null, rateLimitedResponses: 0 });
  });

  it("admits N per second and refuses the rest with the whole seconds until a slot frees", () => {
    const { time, limiter } = limitedTo(3);
    time.at(100);
    expect(admitted(burst(limiter, 2, "a"))).toBe(2);
    time.at(700);
    const decisions = burst(limiter, 3, "a");
    expect(decisions.map((d) => d.admitted)).toEqual([true, false, false]);
    // The first admission (t=100) leaves the window at t=1100: 400 ms away, rounded up to 1 s.
    expect(decisions[1]).toEqual({
      admitted: false,
      retryAfterSeconds: 1,
      limit: { requestsPerSecond: 3 },
    });
    expect(limiter.status().rateLimitedResponses).toBe(2);
  });

  it("slides: a slot frees exactly when its admission is one second old, not at a second's boundary", () => {
    const { time, limiter } = limitedTo(2);
    time.at(900);
    expect(admitted(burst(limiter, 2, "a"))).toBe(2);
    // A fixed window would reset at t=1000 and admit two more: a burst of 4 within 100 ms.
    time.at(1000);
    expect(admitted(burst(limiter, 1, "a"))).toBe(0);
    time.at(1899);
    expect(admitted(burst(limiter, 1, "a"))).toBe(0);
    time.at(1900);
    expect(admitted(burst(limiter, 3, "a"))).toBe(2);
  });

  it("does not count refused requests against the window", () => {
    const { time, limiter } = limitedTo(1);
    expect(admitted(burst(limiter, 50, "a"))).toBe(1);
    time.at(1000);
    expect(admitted(burst(limiter, 1, "a"))).toBe(1);
    expect(limiter.status().rateLimitedResponses).toBe(49);
  });

  it("keeps a window per API key by default, one shared window with scope overall", () => {
    const time = clock();
    const perKey = new RateLimiter({ requestsPerSecond: 2 }, time.now);
    expect(admitted([...burst(perKey, 3, "a"), ...burst(perKey, 3, "b"), ...burst(perKey, 3)])).toBe(6);
    const overall = new RateLimiter({ requestsPerSecond: 2, scope: "overall" }, time.now);
    expect(admitted([...burst(overall, 3, "a"), ...burst(overall, 3, "b"), ...burst(overall, 3)])).toBe(2);
  });

  it("set replaces the limit with empty windows and keeps the count; reset restores the initial limit", () => {
    const { limiter } = limitedTo(1);
    burst(limiter, 3, "a");
    limiter.set({ requestsPerSecond: 5, scope: "overall" });
    expect(admitted(burst(limiter, 6, "a"))).toBe(5);
    expect(limiter.status()).toEqual({
      limit: { requestsPerSecond: 5, scope: "overall" },
      rateLimitedResponses: 3,
    });
    limiter.set(undefined);
    expect(admitted(burst(limiter, 10, "a"))).toBe(10);
    limiter.reset();
    expect(limiter.status()).toEqual({ limit: { requestsPerSecond: 1 }, rateLimitedResponses: 0 });
    expect(admitted(burst(limiter, 2, "a"))).toBe(1);
  });

  it("bounds the per-key windows by dropping idle ones first, so a busy key keeps its limit", () => {
    const { time, limiter } = limitedTo(1);
    limiter.admit("busy");
    time.at(100);
    for (let i = 0; i < MAX_KEY_WINDOWS - 1; i++) limiter.admit(`idle-${i}`);
    time.at(1900);
    expect(limiter.admit("busy").admitted).toBe(true);
    // The map is full: this new key makes room. "busy" is the oldest entry, but the idle ones go.
    time.at(1950);
    expect(limiter.admit("new").admitted).toBe(true);
    time.at(2000);
    expect(limiter.admit("busy").admitted).toBe(false);
    expect(limiter.admit("idle-0").admitted).toBe(true);
  });
});

describe("rateLimitedReply", () => {
  it("is a 429 rate_limited with Retry-After and names the limit", () => {
    const reply = rateLimitedReply({
      admitted: false,
      retryAfterSeconds: 2,
      limit: { requestsPerSecond: 5, scope: "overall" },
    });
    expect(reply.status).toBe(429);
    expect(reply.headers).toEqual({ "retry-after": "2" });
    expect(reply.body).toEqual({
      code: "rate_limited",
      message: expect.stringContaining("5 requests per second over all keys") as string,
    });
  });
});

describe("parseRateLimitSpec", () => {
  it("accepts a limit and a scope", () => {
    expect(parseRateLimitSpec({ requestsPerSecond: 10 })).toEqual({ requestsPerSecond: 10 });
    expect(parseRateLimitSpec({ requestsPerSecond: 1, scope: "overall" })).toEqual({
      requestsPerSecond: 1,
      scope: "overall",
    });
  });

  it.each([
    [{}, "body.requestsPerSecond"],
    [{ requestsPerSecond: 0 }, "body.requestsPerSecond"],
    [{ requestsPerSecond: 2.5 }, "body.requestsPerSecond"],
    [{ requestsPerSecond: 10_001 }, "body.requestsPerSecond"],
    [{ requestsPerSecond: "5" }, "body.requestsPerSecond"],
    [{ requestsPerSecond: 5, scope: "ip" }, "body.scope"],
    [{ requestsPerSecond: 5, burst: 2 }, "body.burst"],
    [[], "body"],
  ])("refuses %j naming %s", (body, field) => {
    let error: unknown;
    try {
      parseRateLimitSpec(body);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).field).toBe(field);
  });
});
