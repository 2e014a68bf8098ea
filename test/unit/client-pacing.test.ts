import { describe, expect, it } from "vitest";

import type { CallNotices, RateLimitWaitEvent } from "../../src/client/notices";
import { paced, type Pacing } from "../../src/client/pacing";
import { KNOWN_QUOTA_SHARE, RatePacer } from "../../src/client/rate-limit";
import type { RequestTiming } from "../../src/client/retry";
import type { Send, Sent } from "../../src/client/transport";

const T0 = Date.parse("2025-01-01T00:00:00Z");

/** Timing whose clock moves by the sleeps only; `during` runs inside the next sleep. */
function fakeTiming(): RequestTiming & { sleeps: number[]; during: (() => void) | undefined } {
  const state = {
    t: T0,
    sleeps: [] as number[],
    during: undefined as (() => void) | undefined,
    now: () => state.t,
    random: () => 0.5,
    sleep: (ms: number) => {
      state.sleeps.push(ms);
      state.t += ms;
      const during = state.during;
      state.during = undefined;
      during?.();
      return Promise.resolve();
    },
  };
  return state;
}

const ok: Sent = { ok: true, status: 200, headers: {}, text: "{}" };
const unavailable: Sent = { ok: true, status: 503, headers: {}, text: "" };
const tooMany = (retryAfter: string): Sent => ({
  ok: true,
  status: 429,
  headers: { "retry-after": retryAfter },
  text: "",
});

/** A transport that answers with `replies` in turn, and counts what it sent. */
function scripted(...replies: Sent[]): Send & { sent: number } {
  const send = Object.assign(
    () => {
      const reply = replies[send.sent++];
      if (reply === undefined) throw new Error("sent more than the script has");
      return Promise.resolve(reply);
    },
    { sent: 0 },
  );
  return send;
}

/** Notices recorded as plain tuples, with the pace as the layer reads it. */
function recorder(): CallNotices & { log: unknown[] } {
  const state = {
    log: [] as unknown[],
    retry: (delayMs: number, reason: string) => state.log.push(["retry", delayMs, reason]),
    rateLimitWait: (
      waitMs: number,
      reason: RateLimitWaitEvent["reason"],
      pace: () => number | undefined,
    ): void => {
      state.log.push(["wait", waitMs, reason, pace()]);
    },
  };
  return state;
}

function pacing(pacer: RatePacer, extra: Partial<Pacing> = {}): Pacing {
  return { pacer, timeoutMs: 300_000, ...extra };
}

describe("the pacing layer", () => {
  it("hands a response that is not a 429 straight up, without waiting", async () => {
    const timing = fakeTiming();
    const notices = recorder();
    const send = scripted(unavailable);
    const result = await paced(pacing(new RatePacer(timing)), timing, notices)(send)();
    expect(result).toEqual(unavailable);
    expect(send.sent).toBe(1);
    expect(timing.sleeps).toEqual([]);
    expect(notices.log).toEqual([]);
  });

  it("hands a network failure straight up", async () => {
    const timing = fakeTiming();
    const failure: Sent = { ok: false, error: Object.assign(new Error("reset"), { code: "ECONNRESET" }) };
    const result = await paced(pacing(new RatePacer(timing)), timing, recorder())(scripted(failure))();
    expect(result).toEqual(failure);
  });

  it("waits a 429 out for its Retry-After and sends again, reporting a retry and the wait", async () => {
    const timing = fakeTiming();
    const notices = recorder();
    const send = scripted(tooMany("3"), ok);
    const result = await paced(pacing(new RatePacer(timing)), timing, notices)(send)();
    expect(result).toEqual(ok);
    expect(send.sent).toBe(2);
    expect(timing.sleeps).toEqual([3000]);
    // The refused request admitted nothing: the pace drops to its floor of 1 request/s.
    expect(notices.log).toEqual([
      ["retry", 3000, "429"],
      ["wait", 3000, "retry-after", 1],
    ]);
  });

  it("keeps one rate-limit budget over all the attempts of a call, and a new one per call", async () => {
    const timing = fakeTiming();
    const pacer = new RatePacer(timing);
    const budget = pacing(pacer, { timeoutMs: 5000 });
    const send = scripted(tooMany("3"), unavailable, tooMany("3"));
    const attempt = paced(budget, timing, recorder())(send);
    // The first attempt waits 3 s of the 5 s on a 429, then ends with a 503 that the retry layer handles.
    expect(await attempt()).toEqual(unavailable);
    // The retry waits a second for its slot at the new pace (1 request/s), and its 429 would need
    // 3 s more: 7 s in all is past the budget, so that 429 is final.
    expect(await attempt()).toEqual({ ...tooMany("3"), outOfTime: 3000 });
    expect(timing.sleeps).toEqual([3000, 1000]);
    // Another call has the whole budget again: it waits the block out (3 s and jitter) and goes.
    timing.sleeps.length = 0;
    expect(await paced(budget, timing, recorder())(scripted(ok))()).toEqual(ok);
    expect(timing.sleeps).toHaveLength(1);
    expect(timing.sleeps[0]).toBeGreaterThan(3000);
  });

  it("fails at once, without sending, when another request's block outlasts the budget", async () => {
    const timing = fakeTiming();
    const pacer = new RatePacer(timing);
    pacer.reserve();
    pacer.rateLimited(timing.now(), 3_600_000);
    const send = scripted(ok);
    const result = await paced(pacing(pacer), timing, recorder())(send)();
    expect(send.sent).toBe(0);
    expect(timing.sleeps).toEqual([]);
    expect(result).toMatchObject({ ok: true, status: 429 });
    expect(result.outOfTime).toBeGreaterThanOrEqual(3_600_000);
  });

  it("takes a new slot when another request is refused while this one sleeps towards its slot", async () => {
    const timing = fakeTiming();
    const pacer = new RatePacer(timing);
    const notices = recorder();
    const send = scripted(ok, ok);
    const attempt = paced(pacing(pacer, { maxRequestsPerSecond: 1 }), timing, notices)(send);
    await attempt();
    // The next slot is a second away; while this request sleeps, another one is refused for 10 s.
    timing.during = () => pacer.rateLimited(timing.now(), 10_000, 1);
    await paced(pacing(pacer, { maxRequestsPerSecond: 1 }), timing, notices)(send)();
    expect(send.sent).toBe(2);
    expect(timing.sleeps).toHaveLength(2);
    // 1 per second at KNOWN_QUOTA_SHARE of it: 1052.6 ms.
    expect(timing.sleeps[0]).toBe(Math.ceil(1000 / KNOWN_QUOTA_SHARE));
    // It went after the new block (with the jitter of those queued behind it), not at its old slot.
    expect(timing.sleeps[1]).toBeGreaterThanOrEqual(10_000);
  });

  it("paces at a known quota, reporting each wait with the pace it keeps", async () => {
    const timing = fakeTiming();
    const pacer = new RatePacer(timing);
    const notices = recorder();
    const quota = pacing(pacer, { maxRequestsPerSecond: 2 });
    for (let i = 0; i < 3; i++) await paced(quota, timing, notices)(scripted(ok))();
    // 2 per second at KNOWN_QUOTA_SHARE of it: slots 526.3 ms apart, each wait rounded up.
    expect(timing.sleeps).toEqual([527, 526]);
    // The layer reports every wait; whether one is long enough to tell is the notices' decision.
    const pace = 2 * KNOWN_QUOTA_SHARE;
    expect(notices.log).toEqual([
      ["wait", 527, "pace", pace],
      ["wait", 526, "pace", pace],
    ]);
  });
});
