import { describe, expect, it } from "vitest";
import type { RateLimitWaitEvent } from "../../src/client";
import { LONG_WAIT_MS, NOTE_EVERY_MS, rateLimitNotifier } from "../../src/core/rate-limit-notice";

describe("rateLimitNotifier", () => {
  const wait = (waitMs: number, pace?: number): RateLimitWaitEvent => ({
    method: "POST",
    pathTemplate: "/access-key",
    waitMs,
    reason: "retry-after",
    ...(pace === undefined ? {} : { pace }),
  });

  function notifier() {
    const notes: string[] = [];
    let clock = 1_000_000;
    const notify = rateLimitNotifier(
      (message) => notes.push(message),
      () => clock,
    );
    return { notes, notify, advance: (ms: number) => (clock += ms) };
  }

  it("stays silent for short waits", () => {
    const { notes, notify } = notifier();
    notify(wait(LONG_WAIT_MS - 1));
    expect(notes).toEqual([]);
  });

  it("tells about a long wait in whole seconds, with the pace and the setting that avoids it", () => {
    const { notes, notify } = notifier();
    notify(wait(7_200, 9.2345));
    expect(notes).toEqual([
      "waiting on the broker's rate limit for 8 s (pacing at 9.23 requests/s); to avoid this, set broker:maxRequestsPerSecond to the broker's limit",
    ]);
  });

  it("says it at most once per interval, however many requests wait", () => {
    const { notes, notify, advance } = notifier();
    const event = wait(LONG_WAIT_MS);
    notify(event);
    advance(NOTE_EVERY_MS - 1);
    notify(event);
    expect(notes).toHaveLength(1);
    advance(1);
    notify(event);
    expect(notes).toHaveLength(2);
  });
});
