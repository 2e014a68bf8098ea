import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { RETRY_BASE_DELAY_MS, RETRY_MAX_DELAY_MS } from "../../src/client/constants";
import {
  backoffDelay,
  decideRetry,
  isOutcomeUnknown,
  parseRetryAfter,
  retrying,
  surelyNotProcessed,
  type AttemptFailure,
  type AttemptOutcome,
  type RequestTiming,
  type RetryDecision,
} from "../../src/client/retry";
import { TEST_RETRY_POLICY } from "../support/client";

const NOW = Date.parse("2025-01-01T00:00:00Z");

describe("parseRetryAfter", () => {
  it.each([
    ["delay-seconds", "1", 1000],
    ["zero seconds", "0", 0],
    ["seconds with surrounding spaces", " 120 ", 120_000],
    ["fractional seconds", "1.5", 1500],
    ["an HTTP date 30 s ahead", "Wed, 01 Jan 2025 00:00:30 GMT", 30_000],
    ["an HTTP date in the past", "Tue, 31 Dec 2024 23:59:00 GMT", 0],
  ])("reads %s", (_, header, expected) => {
    expect(parseRetryAfter(header, NOW)).toBe(expected);
  });

  it.each([
    ["a missing header", undefined],
    ["an empty header", ""],
    ["words", "soon"],
    ["a negative number", "-5"],
    ["a date without GMT", "2025-01-01T00:00:30Z"],
    ["a number with a unit", "10s"],
    ["an impossible date", "Wed, 99 Foo 2025 99:99:99 GMT"],
  ])("ignores %s, so the caller backs off instead", (_, header) => {
    expect(parseRetryAfter(header, NOW)).toBeUndefined();
  });
});

describe("backoffDelay", () => {
  it("is full jitter over an exponential ceiling: random() * min(cap, base * 2^(n-1))", () => {
    expect(backoffDelay(1, () => 0.5)).toBe(RETRY_BASE_DELAY_MS / 2);
    expect(backoffDelay(3, () => 0.999999)).toBe(4 * RETRY_BASE_DELAY_MS - 1);
    expect(backoffDelay(30, () => 0.5)).toBe(RETRY_MAX_DELAY_MS / 2);
    expect(backoffDelay(4, () => 0)).toBe(0);
  });

  it("never exceeds the cap nor goes negative, whatever the retry number", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.double({ min: 0, max: 0.9999999, noNaN: true }),
        (n, r) => {
          const delay = backoffDelay(n, () => r);
          return delay >= 0 && delay <= RETRY_MAX_DELAY_MS && Number.isInteger(delay);
        },
      ),
    );
  });

  it("uses the given base and cap", () => {
    expect(backoffDelay(2, () => 0.5, 10, 1000)).toBe(10);
    expect(backoffDelay(20, () => 0.5, 10, 1000)).toBe(500);
  });
});

const policy = TEST_RETRY_POLICY;

const status = (s: number, retryAfterMs?: number): AttemptFailure => ({
  kind: "status",
  status: s,
  retryAfterMs,
});
const network = (code: string): AttemptFailure => ({ kind: "network", code });

describe("which failures are retried", () => {
  // [failure, retried when repeatable, retried when not repeatable, outcome unknown when not repeatable]
  const table: [string, AttemptFailure, boolean, boolean, boolean][] = [
    // Pacing (pacing.ts) waits every 429 out or ends the call: one that reached the policy is final.
    ["429", status(429), false, false, false],
    ["502", status(502), true, false, true],
    ["503", status(503), true, false, true],
    ["504", status(504), true, false, true],
    ["500", status(500), false, false, false],
    ["501", status(501), false, false, false],
    ["400", status(400), false, false, false],
    ["401", status(401), false, false, false],
    ["403", status(403), false, false, false],
    ["404", status(404), false, false, false],
    ["409", status(409), false, false, false],
    ["ECONNREFUSED", network("ECONNREFUSED"), true, true, false],
    ["EAI_AGAIN", network("EAI_AGAIN"), true, true, false],
    ["UND_ERR_CONNECT_TIMEOUT", network("UND_ERR_CONNECT_TIMEOUT"), true, true, false],
    ["ENOTFOUND (a typo in the host will not fix itself)", network("ENOTFOUND"), false, false, false],
    ["UND_ERR_INVALID_ARG", network("UND_ERR_INVALID_ARG"), false, false, false],
    ["ECONNRESET", network("ECONNRESET"), true, false, true],
    ["EPIPE", network("EPIPE"), true, false, true],
    ["UND_ERR_SOCKET", network("UND_ERR_SOCKET"), true, false, true],
    ["UND_ERR_HEADERS_TIMEOUT", network("UND_ERR_HEADERS_TIMEOUT"), true, false, true],
    ["UND_ERR_BODY_TIMEOUT", network("UND_ERR_BODY_TIMEOUT"), true, false, true],
    ["an unknown network code", network("UNKNOWN"), false, false, true],
  ];

  it.each(table)("%s", (_, failure, repeatable, notRepeatable, unknown) => {
    expect(decideRetry(failure, true, 1, 0, policy).retry).toBe(repeatable);
    expect(decideRetry(failure, false, 1, 0, policy).retry).toBe(notRepeatable);
    expect(isOutcomeUnknown(failure, false)).toBe(unknown);
    expect(isOutcomeUnknown(failure, true)).toBe(false);
  });

  it("treats only failures before sending as surely not processed", () => {
    expect(surelyNotProcessed(status(429))).toBe(false);
    expect(surelyNotProcessed(status(503))).toBe(false);
    expect(surelyNotProcessed(network("ECONNREFUSED"))).toBe(true);
    expect(surelyNotProcessed(network("ECONNRESET"))).toBe(false);
  });
});

describe("decideRetry limits", () => {
  it("allows maxRetries retries, i.e. maxRetries + 1 attempts", () => {
    expect(decideRetry(status(503), true, 4, 0, policy)).toEqual({ retry: true, delayMs: 800 });
    expect(decideRetry(status(503), true, 5, 0, policy)).toEqual({ retry: false, why: "attempts" });
    expect(decideRetry(status(503), true, 1, 0, { ...policy, maxRetries: 0 })).toEqual({
      retry: false,
      why: "attempts",
    });
  });

  it("waits exactly what Retry-After asks, not the backoff", () => {
    expect(decideRetry(status(503, 1000), true, 1, 0, policy)).toEqual({ retry: true, delayMs: 1000 });
    expect(decideRetry(status(503, 2000), true, 1, 0, policy)).toEqual({ retry: true, delayMs: 2000 });
  });

  it("fails at once when Retry-After exceeds what is left of the time budget", () => {
    expect(decideRetry(status(503, 120_000), true, 1, 0, policy)).toEqual({
      retry: false,
      why: "retry-after",
    });
    expect(decideRetry(status(503, 10_000), true, 1, 55_000, policy)).toEqual({
      retry: false,
      why: "retry-after",
    });
  });

  it("stops when the next backoff would not fit in the time budget", () => {
    expect(decideRetry(status(503), true, 1, 59_950, policy)).toEqual({ retry: false, why: "budget" });
    expect(decideRetry(status(503), true, 1, 59_900, policy)).toEqual({ retry: true, delayMs: 100 });
  });

  it("does not retry a create after a 503 even with attempts and budget left", () => {
    expect(decideRetry(status(503), false, 1, 0, policy)).toEqual({ retry: false, why: "final" });
  });
});

describe("the retry loop", () => {
  /** Timing whose clock moves by the sleeps only. */
  function fakeTiming(): RequestTiming & { sleeps: number[] } {
    const state = {
      t: NOW,
      sleeps: [] as number[],
      now: () => state.t,
      random: () => 0.5,
      sleep: (ms: number) => {
        state.sleeps.push(ms);
        state.t += ms;
        return Promise.resolve();
      },
    };
    return state;
  }

  const limits = { maxRetries: 2, maxRetryTimeMs: 60_000, baseDelayMs: 100, maxDelayMs: 1000 };

  /** An attempt that fails with `failure`; its error says why the loop stopped. */
  function failing(failure: AttemptFailure): AttemptOutcome<string> {
    return {
      ok: false,
      failure,
      end: (stop: RetryDecision) => {
        throw new Error(`stopped: ${stop.retry ? "" : stop.why}`);
      },
    };
  }

  it("runs attempts until one succeeds, backing off in between and telling each retry", async () => {
    const timing = fakeTiming();
    const retries: unknown[] = [];
    const outcomes = [
      failing({ kind: "status", status: 503 }),
      failing({ kind: "network", code: "ECONNRESET" }),
    ];
    const value = await retrying(
      { policy: limits, timing, repeatable: true, onRetry: (...args) => retries.push(args) },
      (attempt) => Promise.resolve(outcomes[attempt - 1] ?? { ok: true, value: `after ${attempt}` }),
    );
    expect(value).toBe("after 3");
    // Full jitter at random() = 0.5: half of 100, then half of 200.
    expect(timing.sleeps).toEqual([50, 100]);
    expect(retries).toEqual([
      [1, 50, { kind: "status", status: 503 }],
      [2, 100, { kind: "network", code: "ECONNRESET" }],
    ]);
  });

  it("waits what Retry-After asks instead of the backoff", async () => {
    const timing = fakeTiming();
    const outcomes = [failing({ kind: "status", status: 503, retryAfterMs: 7000 })];
    await retrying({ policy: limits, timing, repeatable: true }, (attempt) =>
      Promise.resolve(outcomes[attempt - 1] ?? { ok: true, value: "ok" }),
    );
    expect(timing.sleeps).toEqual([7000]);
  });

  it("throws the last attempt's error once the attempts are used up", async () => {
    const timing = fakeTiming();
    let attempts = 0;
    const run = retrying({ policy: limits, timing, repeatable: true }, () => {
      attempts++;
      return Promise.resolve(failing({ kind: "status", status: 503 }));
    });
    await expect(run).rejects.toThrow("stopped: attempts");
    expect(attempts).toBe(limits.maxRetries + 1);
  });

  it("stops at once when the attempt says so, without telling a retry", async () => {
    const timing = fakeTiming();
    const retries: unknown[] = [];
    const stop = { retry: false, why: "rate-limit" } as const;
    const run = retrying(
      { policy: limits, timing, repeatable: true, onRetry: (...args) => retries.push(args) },
      () => Promise.resolve({ ...failing({ kind: "status", status: 429 }), stop }),
    );
    await expect(run).rejects.toThrow("stopped: rate-limit");
    expect(retries).toEqual([]);
    expect(timing.sleeps).toEqual([]);
  });

  it("does not repeat a create after a failure that may have reached the server", async () => {
    const timing = fakeTiming();
    let attempts = 0;
    const run = retrying({ policy: limits, timing, repeatable: false }, () => {
      attempts++;
      return Promise.resolve(failing({ kind: "network", code: "ECONNRESET" }));
    });
    await expect(run).rejects.toThrow("stopped: final");
    expect(attempts).toBe(1);
  });
});
