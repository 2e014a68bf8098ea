/**
 * The emulator's rate limiter: at most N admitted requests in any one-second window, per API key or
 * over all requests, answering the rest with 429 `rate_limited` and a `Retry-After`.
 */
import type { RateLimitScope, RateLimitSpec, RateLimitStatus } from "./control-types";
import type { Reply } from "./http";
import { expectEnum, expectInteger, expectObject } from "./validation";

const SCOPES: readonly RateLimitScope[] = ["key", "overall"];

/** The window the limit counts in: one second. */
export const WINDOW_MS = 1000;

/** Highest accepted limit: more would only cost memory (each window keeps the times it admitted). */
export const MAX_REQUESTS_PER_SECOND = 10_000;

/**
 * Most per-key windows kept. Past it, windows that admitted nothing within the last second are
 * dropped first (they hold no state that matters), then the oldest: a client sending many different
 * keys cannot grow the emulator without bound.
 */
export const MAX_KEY_WINDOWS = 10_000;

/** Milliseconds of a monotonic clock; tests pass their own to control time. */
export type Clock = () => number;

/** What the limiter decided for one request. */
export type Admission =
  | { admitted: true }
  | {
      admitted: false;
      /** Whole seconds until the window has a free slot (at least 1). */
      retryAfterSeconds: number;
      /** The limit that refused it. */
      limit: RateLimitSpec;
    };

/** Validates a rate limit spec, such as the body of `PUT /_emulator/rate-limit`. */
export function parseRateLimitSpec(body: unknown, field = "body"): RateLimitSpec {
  const object = expectObject(body, field, ["requestsPerSecond", "scope"]);
  const spec: RateLimitSpec = {
    requestsPerSecond: expectInteger(
      object.requestsPerSecond,
      `${field}.requestsPerSecond`,
      1,
      MAX_REQUESTS_PER_SECOND,
    ),
  };
  if (object.scope !== undefined) spec.scope = expectEnum(object.scope, `${field}.scope`, SCOPES);
  return spec;
}

/** The admission times of one window, oldest first, in a ring of `capacity` slots. */
class SlidingWindow {
  private readonly times: Float64Array;
  private start = 0;
  private size = 0;

  constructor(private readonly capacity: number) {
    this.times = new Float64Array(capacity);
  }

  /** Forgets admissions that left the window at `now`; true when none remains. */
  expire(now: number): boolean {
    while (this.size > 0 && (this.times[this.start] ?? 0) <= now - WINDOW_MS) {
      this.start = (this.start + 1) % this.capacity;
      this.size--;
    }
    return this.size === 0;
  }

  /** Admits at `now` and returns 0, or returns how many milliseconds until a slot is free. */
  admit(now: number): number {
    this.expire(now);
    if (this.size < this.capacity) {
      this.times[(this.start + this.size) % this.capacity] = now;
      this.size++;
      return 0;
    }
    // The oldest admission leaves the window first; a request after that finds a free slot.
    return (this.times[this.start] ?? now) + WINDOW_MS - now;
  }
}

/**
 * Admits at most `requestsPerSecond` requests in any window of one second (a sliding window: bursts
 * across a second's boundary cannot double the rate). Refused requests do not count against the
 * window. Without a limit it admits everything.
 */
export class RateLimiter {
  private spec: RateLimitSpec | undefined;
  private overall: SlidingWindow | undefined;
  private readonly perKey = new Map<string, SlidingWindow>();
  private refused = 0;

  constructor(
    private readonly initial: RateLimitSpec | undefined,
    private readonly clock: Clock = () => performance.now(),
  ) {
    this.set(initial);
  }

  /** Replaces the limit (`undefined`: none); every window starts empty, the refusal count stays. */
  set(spec: RateLimitSpec | undefined): void {
    this.spec = spec === undefined ? undefined : { ...spec };
    this.overall = undefined;
    this.perKey.clear();
  }

  /** Back to the limit the emulator started with, with empty windows and a zero refusal count. */
  reset(): void {
    this.set(this.initial);
    this.refused = 0;
  }

  /** The limit in force and how many requests it refused. */
  status(): RateLimitStatus {
    return { limit: this.spec === undefined ? null : { ...this.spec }, rateLimitedResponses: this.refused };
  }

  /**
   * Decides for a request carrying `apiKey` (the X-API-KEY value, `undefined` without one; requests
   * without a key share one window). The key only names a window; it is never exposed.
   */
  admit(apiKey: string | undefined): Admission {
    if (this.spec === undefined) return { admitted: true };
    const waitMs = this.windowFor(apiKey ?? "", this.spec).admit(this.clock());
    if (waitMs === 0) return { admitted: true };
    this.refused++;
    // Retry-After carries whole seconds: rounding up, a client waiting it out finds a free slot.
    return {
      admitted: false,
      retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
      limit: { ...this.spec },
    };
  }

  private windowFor(apiKey: string, spec: RateLimitSpec): SlidingWindow {
    if ((spec.scope ?? "key") === "overall") {
      this.overall ??= new SlidingWindow(spec.requestsPerSecond);
      return this.overall;
    }
    let window = this.perKey.get(apiKey);
    if (window === undefined) {
      if (this.perKey.size >= MAX_KEY_WINDOWS) this.prune();
      window = new SlidingWindow(spec.requestsPerSecond);
      this.perKey.set(apiKey, window);
    }
    return window;
  }

  private prune(): void {
    const now = this.clock();
    for (const [key, window] of this.perKey) if (window.expire(now)) this.perKey.delete(key);
    // Every window is busy: drop the oldest, which forgets at most one second of its admissions.
    const oldest = this.perKey.keys().next();
    if (this.perKey.size >= MAX_KEY_WINDOWS && oldest.done !== true) this.perKey.delete(oldest.value);
  }
}

/** The 429 answer of a refused request. */
export function rateLimitedReply(refused: Extract<Admission, { admitted: false }>): Reply {
  const { requestsPerSecond, scope } = refused.limit;
  const per = (scope ?? "key") === "key" ? "per API key" : "over all keys";
  return {
    status: 429,
    body: {
      code: "rate_limited",
      message: `Too many requests: the limit of ${requestsPerSecond} requests per second ${per} is reached; retry after the Retry-After delay`,
    },
    headers: { "retry-after": String(refused.retryAfterSeconds) },
  };
}
