/**
 * The one notice path of the client: what a call tells its observers while it runs (a retry, a wait
 * on the rate limit), and the single function every layer of `request()` reports through. The layers
 * only say what happened; this module builds the events, keeps listeners from failing the call, and
 * decides which waits are worth telling.
 */

/** Reported before each retry. Contains no secrets: the path is the template. */
export interface RetryEvent {
  /** The HTTP method, such as `GET`. */
  method: string;
  /** The path template, such as `/access/verify/{accessKey}`. */
  pathTemplate: string;
  /** The number of the attempt that just failed (1 for the first); the next one is `attempt + 1`. */
  attempt: number;
  /** How long the client waits before the next attempt, in milliseconds. */
  delayMs: number;
  /** The status (`"429"`, `"503"`) or network error code (`"ECONNRESET"`, `"UND_ERR_SOCKET"`) that failed. */
  reason: string;
}

/**
 * Reported before a request waits a second or more on the broker's rate limit, e.g. to tell the
 * user why nothing seems to happen. Contains no secrets: the path is the template.
 */
export interface RateLimitWaitEvent {
  /** The HTTP method, such as `POST`. */
  method: string;
  /** The path template, such as `/access-key`. */
  pathTemplate: string;
  /** How long the request waits, in milliseconds. */
  waitMs: number;
  /** `retry-after`: the server refused requests for a while (429); `pace`: the client's own pacing. */
  reason: "retry-after" | "pace";
  /** The pace the client keeps now, in requests per second, when it paces at all. */
  pace?: number;
}

/** Waits on the rate limit this long or longer are reported; shorter ones are not worth a word. */
export const RATE_LIMIT_NOTICE_MS = 1000;

/** One thing a call reports, whichever layer noticed it. */
export type ClientNotice =
  | { readonly kind: "retry"; readonly event: RetryEvent }
  | { readonly kind: "rate-limit-wait"; readonly event: RateLimitWaitEvent };

/** Where notices go. Never throws: see {@link noticePath}. */
export type Notify = (notice: ClientNotice) => void;

/** The listeners of a client's options, one per kind of notice. */
export interface NoticeListeners {
  /** Hears every retry: of a failed attempt, and of a 429 waited out. */
  readonly onRetry?: ((event: RetryEvent) => void) | undefined;
  /** Hears every wait on the rate limit long enough to tell ({@link RATE_LIMIT_NOTICE_MS}). */
  readonly onRateLimitWait?: ((event: RateLimitWaitEvent) => void) | undefined;
}

/**
 * The notice path of a client: hands each notice to the listener of its kind. A listener only
 * observes the call, so its exceptions are swallowed here, once, rather than at every place that
 * reports something.
 */
export function noticePath(listeners: NoticeListeners): Notify {
  return (notice) => {
    try {
      if (notice.kind === "retry") listeners.onRetry?.(notice.event);
      else listeners.onRateLimitWait?.(notice.event);
    } catch {
      // Deliberately ignored: a listener must not fail the call it observes (logging is best effort).
    }
  };
}

/** The call a notice is about: no secrets, the path is the template. */
export interface NoticeCall {
  readonly method: string;
  readonly pathTemplate: string;
}

/** The notices of one call, as its layers report them. */
export interface CallNotices {
  /** The call waits `delayMs` before sending again, after a failure with this `reason`. */
  retry(delayMs: number, reason: string): void;
  /**
   * The call waits `waitMs` on the rate limit. `pace` is asked only when the wait is long enough to
   * be reported, since reading the pace is not free (it may retire a pace that has grown unneeded).
   */
  rateLimitWait(waitMs: number, reason: RateLimitWaitEvent["reason"], pace: () => number | undefined): void;
}

/**
 * The notices of `call`, sent to `notify`. `attempts` counts the requests the call has sent so far
 * (429s included), which numbers the attempt each retry follows.
 */
export function callNotices(notify: Notify, call: NoticeCall, attempts: () => number): CallNotices {
  const { method, pathTemplate } = call;
  return {
    retry(delayMs, reason) {
      notify({ kind: "retry", event: { method, pathTemplate, attempt: attempts(), delayMs, reason } });
    },
    rateLimitWait(waitMs, reason, pace) {
      if (waitMs < RATE_LIMIT_NOTICE_MS) return;
      const now = pace();
      const event = { method, pathTemplate, waitMs, reason, ...(now === undefined ? {} : { pace: now }) };
      notify({ kind: "rate-limit-wait", event });
    },
  };
}
