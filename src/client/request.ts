/**
 * The one function through which every API call goes. The endpoints (`endpoints.ts`) only declare
 * what differs; `request()` builds the request (URL, headers `X-API-KEY`, `User-Agent`, JSON) and
 * sends it through a pipeline of layers, each a module with one job and one shape
 * (`Layer = (next: Send) => Send`, `transport.ts`), composed here alone, in one list:
 *
 * ```
 * retried (retry.ts)              decide, back off, honour Retry-After; stop within the budgets
 *   └ refusing (cancellation.ts)  a cancelled call takes no slot of the pace
 *     └ paced (pacing.ts)         the shared pace and the call's rate-limit budget; 429s waited out
 *       └ refusing                the last moment before the wire: a cancelled call sends nothing
 *         └ counted (here)        every request sent is an attempt, in messages and events
 *           └ transport           one attempt on the wire (transport.ts, over undici)
 * ```
 *
 * What comes out of the pipeline is the call's last response; `answer()` turns it into the decoded
 * value or the error to throw. Every layer reports through the call's notices (`notices.ts`), the
 * client's one notice path.
 */
import type { Dispatcher } from "undici";

import { ShapeError, type Decoder } from "./decode";
import type { Cancellation } from "./cancellation";
import type { Endpoint } from "./endpoints";
import type { BrokerApiError } from "./errors";
import { badResponseError, networkError, statusError, type CallFacts } from "./error-mapping";
import { callNotices, type Notify } from "./notices";
import { paced, type Pacing } from "./pacing";
import {
  failureReason,
  isOutcomeUnknown,
  parseRetryAfter,
  retried,
  type AttemptFailure,
  type RequestTiming,
  type RetryLoop,
  type RetryPolicy,
} from "./retry";
import type { SettingNames } from "./setting-names";
import {
  compose,
  header,
  networkCode,
  transport,
  type Layer,
  type Received,
  type Sent,
  type WireRequest,
} from "./transport";

/** Everything `request()` needs from the client that sends it. */
export interface RequestContext {
  /** The undici dispatcher (a `Pool` for the base URL's origin). */
  readonly dispatcher: Dispatcher;
  /** The base URL for display, such as `https://broker.example.com/v1`. */
  readonly baseUrl: string;
  /** The base URL's path, such as `/v1`, prefixed to every endpoint path. */
  readonly basePath: string;
  readonly apiKey: string;
  readonly userAgent: string;
  readonly timeoutMs: number;
  readonly retry: Omit<RetryPolicy, "random">;
  readonly timing: RequestTiming;
  /** The client's notice path: where retries and waits on the rate limit are reported. */
  readonly notify: Notify;
  /** How the caller names each setting, for the hints of error messages. */
  readonly settingNames: SettingNames;
  /** Pacing and the handling of 429s. */
  readonly rateLimit: Pacing;
  /** When the run is cancelled, no request is sent and no wait goes on (see `cancellation.ts`). */
  readonly cancellation: Cancellation;
}

/** What a caller of `request()` may learn of the call as it goes. */
export interface CallHooks {
  /**
   * Called as each attempt leaves for the wire (after any wait on the rate limit). The read
   * coalescer uses the last call to know which reads a response may answer: only those that began
   * before the request was sent.
   */
  readonly onAttempt?: () => void;
}

/** Fills a path template; the values are percent-encoded. */
export function expandPath(template: string, params: Readonly<Record<string, string>> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    // A programming error in an endpoint function, not a user error.
    if (value === undefined) throw new TypeError(`missing path parameter ${name} for ${template}`);
    return encodeURIComponent(value);
  });
}

function queryString(query: Readonly<Record<string, string | number | undefined>> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined) search.append(name, String(value));
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === "") return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * Sends one call of `endpoint` with `input`, retrying as the retry policy allows, and returns the
 * decoded 2xx body (or the endpoint's answer for a status it declares as one).
 *
 * @throws BrokerApiError for every failure, with secrets redacted.
 */
export async function request<I, O>(
  ctx: RequestContext,
  endpoint: Endpoint<I, O>,
  input: I,
  hooks: CallHooks = {},
): Promise<O> {
  const { method, path: pathTemplate, repeatable } = endpoint;
  const parts = endpoint.build(input);
  const secrets = [ctx.apiKey, ...Object.values(parts.params ?? {}), ...(parts.secrets ?? [])];
  const payload = parts.body === undefined ? undefined : JSON.stringify(parts.body);
  const wire: WireRequest = {
    method,
    path: ctx.basePath + expandPath(pathTemplate, parts.params) + queryString(parts.query),
    headers: {
      accept: "application/json",
      "user-agent": ctx.userAgent,
      "x-api-key": ctx.apiKey,
      ...(payload === undefined ? {} : { "content-type": "application/json" }),
    },
    payload,
  };
  // Every request sent counts as an attempt in messages and events; only failures other than 429
  // count against maxRetries (the retry loop's own count).
  let sent = 0;
  const facts = (): CallFacts => ({
    method,
    pathTemplate,
    attempts: sent,
    baseUrl: ctx.baseUrl,
    secrets,
    repeatable,
    timeoutMs: ctx.timeoutMs,
    maxRetryTimeMs: ctx.retry.maxRetryTimeMs,
    rateLimitTimeoutMs: ctx.rateLimit.timeoutMs,
    names: ctx.settingNames,
  });
  const notices = callNotices(ctx.notify, { method, pathTemplate }, () => sent);
  // The call's waits end at once, with the error of its refusing layer, when the run is cancelled.
  const timing = ctx.cancellation.timing(ctx.timing, method, pathTemplate);
  // How the last attempt failed, and the error to throw if the call ends with it.
  let failed: Failed | undefined;
  const failureOf = (attempt: Sent): AttemptFailure | undefined => {
    failed = answers(attempt, endpoint)
      ? undefined
      : attempt.ok
        ? statusFailure(attempt, repeatable, ctx.timing.now())
        : networkFailure(attempt.error, repeatable);
    return failed?.failure;
  };
  const loop: RetryLoop = {
    policy: ctx.retry,
    timing,
    repeatable,
    onRetry: (_attempt, delayMs, failure) => {
      notices.retry(delayMs, failureReason(failure));
    },
  };
  // Every request sent counts as an attempt.
  const counted: Layer = (next) => () => {
    sent++;
    hooks.onAttempt?.();
    return next();
  };

  // The pipeline, outermost first (see the module's comment). Refusing comes twice: before a slot
  // of the pace is taken, and after pacing, which may send a 429's request again without a wait.
  const refusing = ctx.cancellation.refusing(method, pathTemplate);
  const send = compose(
    [retried(loop, failureOf), refusing, paced(ctx.rateLimit, timing, notices), refusing, counted],
    transport(ctx.dispatcher, wire),
  );
  const last = await send();
  if (last.stop === undefined || failed === undefined) return answer(last, endpoint, facts());
  // A 429 that outlasted the rate-limit budget says how long the next wait would have been.
  const waited = last.outOfTime === undefined ? {} : { rateLimitWaitMs: last.outOfTime };
  throw failed.fail({ ...facts(), stop: last.stop, ...waited });
}

/** Whether `attempt` answers the call: a 2xx, or a status the endpoint declares as an answer. */
function answers(attempt: Sent, endpoint: Endpoint<never, unknown>): boolean {
  if (!attempt.ok) return false;
  if (attempt.status >= 200 && attempt.status < 300) return true;
  return endpoint.answers?.statuses.has(attempt.status) === true;
}

/** The value of an attempt that {@link answers} the call: its decoded body, or the declared answer. */
function answer<O>(attempt: Sent, endpoint: Endpoint<never, O>, facts: CallFacts): O {
  if (attempt.ok && attempt.status >= 200 && attempt.status < 300)
    return decodeBody(attempt, endpoint.decode, facts);
  // Any other attempt the retry layer passes up unmarked is a status the endpoint declares.
  return (endpoint.answers as NonNullable<typeof endpoint.answers>).value;
}

/** A failed attempt: what the retry policy needs, and how to build the error if it is the last. */
interface Failed {
  failure: AttemptFailure;
  fail: (facts: CallFacts) => BrokerApiError;
}

function statusFailure(received: Received, repeatable: boolean, nowMs: number): Failed {
  const retryAfterMs = parseRetryAfter(header(received.headers, "retry-after"), nowMs);
  const failure: AttemptFailure = { kind: "status", status: received.status, retryAfterMs };
  const parsed = parseJson(received.text);
  const requestId = header(received.headers, "x-request-id");
  const unknown = isOutcomeUnknown(failure, repeatable);
  return {
    failure,
    fail: (facts) =>
      statusError(received.status, parsed.ok ? parsed.value : undefined, requestId, unknown, {
        ...facts,
        retryAfterMs,
      }),
  };
}

function networkFailure(error: unknown, repeatable: boolean): Failed {
  const code = networkCode(error);
  const failure: AttemptFailure = { kind: "network", code };
  const unknown = isOutcomeUnknown(failure, repeatable);
  return { failure, fail: (facts) => networkError(error, code, unknown, facts) };
}

function decodeBody<T>(received: Received, decode: Decoder<T>, facts: CallFacts): T {
  const requestId = header(received.headers, "x-request-id");
  const parsed = parseJson(received.text);
  if (!parsed.ok) throw badResponseError(received.status, "the body is not JSON", requestId, facts);
  try {
    return decode(parsed.value);
  } catch (error) {
    if (error instanceof ShapeError) throw badResponseError(received.status, error.message, requestId, facts);
    throw error;
  }
}
