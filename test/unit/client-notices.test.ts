import { describe, expect, it } from "vitest";

import {
  callNotices,
  noticePath,
  RATE_LIMIT_NOTICE_MS,
  type ClientNotice,
  type RateLimitWaitEvent,
  type RetryEvent,
} from "../../src/client/notices";

const call = { method: "POST", pathTemplate: "/access-key" };

describe("the notice path", () => {
  it("hands each notice to the listener of its kind only", () => {
    const retries: RetryEvent[] = [];
    const waits: RateLimitWaitEvent[] = [];
    const notify = noticePath({ onRetry: (e) => retries.push(e), onRateLimitWait: (e) => waits.push(e) });
    const retry = { ...call, attempt: 1, delayMs: 250, reason: "503" };
    const wait = { ...call, waitMs: 2000, reason: "pace" as const, pace: 3 };
    notify({ kind: "retry", event: retry });
    notify({ kind: "rate-limit-wait", event: wait });
    expect(retries).toEqual([retry]);
    expect(waits).toEqual([wait]);
  });

  it("keeps a throwing listener from failing the call, and from silencing the next notice", () => {
    const seen: string[] = [];
    const notify = noticePath({
      onRetry: (e) => {
        seen.push(e.reason);
        throw new Error("listener bug");
      },
    });
    const retry = (reason: string): ClientNotice => ({
      kind: "retry",
      event: { ...call, attempt: 1, delayMs: 0, reason },
    });
    expect(() => {
      notify(retry("503"));
    }).not.toThrow();
    expect(() => {
      notify(retry("ECONNRESET"));
    }).not.toThrow();
    expect(seen).toEqual(["503", "ECONNRESET"]);
  });

  it("is silent without listeners", () => {
    const notify = noticePath({});
    expect(() => {
      notify({ kind: "retry", event: { ...call, attempt: 1, delayMs: 0, reason: "429" } });
    }).not.toThrow();
  });
});

describe("a call's notices", () => {
  function record(): { notices: ClientNotice[]; push: (n: ClientNotice) => void } {
    const notices: ClientNotice[] = [];
    return { notices, push: (n) => notices.push(n) };
  }

  it("numbers a retry by the requests sent when it is reported", () => {
    const { notices, push } = record();
    let sent = 1;
    const of = callNotices(push, call, () => sent);
    of.retry(100, "503");
    sent = 3;
    of.retry(200, "429");
    expect(notices).toEqual([
      { kind: "retry", event: { ...call, attempt: 1, delayMs: 100, reason: "503" } },
      { kind: "retry", event: { ...call, attempt: 3, delayMs: 200, reason: "429" } },
    ]);
  });

  it("reports waits of a second or more, with the pace when there is one", () => {
    const { notices, push } = record();
    const of = callNotices(push, call, () => 1);
    of.rateLimitWait(RATE_LIMIT_NOTICE_MS, "pace", () => 2.5);
    of.rateLimitWait(5000, "retry-after", () => undefined);
    expect(notices).toEqual([
      {
        kind: "rate-limit-wait",
        event: { ...call, waitMs: RATE_LIMIT_NOTICE_MS, reason: "pace", pace: 2.5 },
      },
      // No pace: the event has no `pace` at all, not an undefined one.
      { kind: "rate-limit-wait", event: { ...call, waitMs: 5000, reason: "retry-after" } },
    ]);
    expect(Object.keys(notices[1]?.event ?? {})).not.toContain("pace");
  });

  it("passes shorter waits over without reading the pace", () => {
    const { notices, push } = record();
    let paceReads = 0;
    const of = callNotices(push, call, () => 1);
    of.rateLimitWait(RATE_LIMIT_NOTICE_MS - 1, "pace", () => {
      paceReads++;
      return 1;
    });
    expect(notices).toEqual([]);
    expect(paceReads).toBe(0);
  });
});
