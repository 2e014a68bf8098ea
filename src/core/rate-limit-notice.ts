import type { RateLimitWaitEvent } from "../client";
import { CONFIG_KEYS } from "../settings/connection";

/** Waits shorter than this pass silently; `pulumi up` looks stuck only after a while. */
export const LONG_WAIT_MS = 5_000;

/** At most one such note per this long: one 429 can hold up every resource of the stack at once. */
export const NOTE_EVERY_MS = 30_000;

/**
 * A listener for the client's `onRateLimitWait` that tells the user, through `warn`, why an
 * operation is not moving: the broker's rate limit (a 429), or the pace kept below it, holds
 * requests back. Short waits pass silently, and one note at most per {@link NOTE_EVERY_MS}. Both
 * doors use it: the dynamic providers warn through the host's engine log, the plugin through the
 * engine's `Log`.
 * @param now the clock (tests pass their own).
 * @param quotaSetting how messages name this provider's setting of the known quota.
 */
export function rateLimitNotifier(
  warn: (message: string) => void,
  now: () => number = Date.now,
  quotaSetting: string = CONFIG_KEYS.maxRequestsPerSecond,
): (event: RateLimitWaitEvent) => void {
  let lastNoteAt = Number.NEGATIVE_INFINITY;
  return (event) => {
    if (event.waitMs < LONG_WAIT_MS) return;
    const at = now();
    if (at - lastNoteAt < NOTE_EVERY_MS) return;
    lastNoteAt = at;
    const pace =
      event.pace === undefined ? "" : ` (pacing at ${Number(event.pace.toPrecision(3))} requests/s)`;
    warn(
      `waiting on the broker's rate limit for ${Math.ceil(event.waitMs / 1000)} s${pace}; to avoid this, set ${quotaSetting} to the broker's limit`,
    );
  };
}
