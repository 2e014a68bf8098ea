/**
 * The pacing layer of `request()`: every attempt of a call waits for its slot from the pacer shared
 * by the process (see `rate-limit.ts`, which plans the slots; this layer sleeps), and a 429 is waited
 * out here rather than handed up. A 429 is always safe to repeat (the server did not process the
 * request, creates included) and does not count against `maxRetries`: its budget is time, the
 * call's rate-limit budget, which this layer keeps over all the attempts of the call.
 */
import type { CallNotices } from "./notices";
import type { RatePacer } from "./rate-limit";
import { parseRetryAfter, type RequestTiming } from "./retry";
import { header, type Layer, type Sent } from "./transport";

/** How a client paces its calls. */
export interface Pacing {
  /** The pacer shared by every client of the process that talks to this API. */
  readonly pacer: RatePacer;
  /** A known quota: never send faster. */
  readonly maxRequestsPerSecond?: number | undefined;
  /** How long one call may wait on the rate limit in all, in milliseconds. */
  readonly timeoutMs: number;
}

/**
 * The 429 a request held back by another request's 429 fails with, when it is not sent at all: the
 * server refuses everything until then, so this is what it would have answered.
 */
const HELD_BACK: Sent = { ok: true, status: 429, headers: {}, text: "" };

/**
 * The pacing layer of one call: each attempt takes a slot and waits for it; a 429 blocks every
 * request to the API until its `Retry-After`, slows the pace, and is sent again at the end of the
 * block, as long as the call's rate-limit budget lasts. What it gives back is never a 429 unless
 * marked `outOfTime` (the budget would not cover the next wait). Waits are reported to `notices`,
 * and each 429 waited out as a retry.
 */
export function paced(pacing: Pacing, timing: RequestTiming, notices: CallNotices): Layer {
  const { pacer, maxRequestsPerSecond: quota, timeoutMs: budgetMs } = pacing;
  // Time spent waiting on the rate limit, over all attempts of this call.
  let spentMs = 0;
  const pace = (): number | undefined => pacer.pace(quota);
  const wait = async (waitMs: number, reason: "retry-after" | "pace"): Promise<void> => {
    notices.rateLimitWait(waitMs, reason, pace);
    if (waitMs <= 0) return;
    await timing.sleep(waitMs);
    spentMs += waitMs;
  };
  return (send) => async () => {
    let slot = pacer.reserve(quota);
    let last: Sent | undefined;
    for (;;) {
      if (slot.waitMs > 0) {
        // Held back by another request's 429 for longer than this call may wait: fail as that 429
        // would, without sending.
        if (slot.reason === "retry-after" && spentMs + slot.waitMs > budgetMs)
          return { ...(last ?? HELD_BACK), outOfTime: slot.waitMs };
        await wait(slot.waitMs, slot.reason);
        // Another request was refused while this one slept: take a slot after the new block.
        if (pacer.generation !== slot.generation) {
          slot = pacer.reserve(quota);
          continue;
        }
      }
      const sentAt = timing.now();
      last = await send();
      if (!last.ok || last.status !== 429) return last;
      const retryAfterMs = parseRetryAfter(header(last.headers, "retry-after"), timing.now());
      const blockMs = pacer.rateLimited(sentAt, retryAfterMs, quota);
      if (spentMs + blockMs > budgetMs) return { ...last, outOfTime: blockMs };
      notices.retry(blockMs, "429");
      await wait(blockMs, "retry-after");
      // Back at the end of the block: take a slot at the pace, like every other request.
      slot = pacer.reserve(quota);
    }
  };
}
