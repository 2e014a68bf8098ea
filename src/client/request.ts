/**
 * The one function through which every API call goes: URL building, headers (`X-API-KEY`,
 * `User-Agent`, JSON), encoding and decoding, retries, error mapping and redaction. The endpoints
 * (`endpoints.ts`) only declare what differs.
 */
import type { Dispatcher } from "undici";

import { ShapeError, type Decoder } from "./decode";
import type { Endpoint, EndpointInfo } from "./endpoints";
import type { BrokerApiError } from "./errors";
import { badResponseError, networkError, statusError, type CallFacts } from "./error-mapping";
import {
  failureReason,
  isOutcomeUnknown,
  parseRetryAfter,
  retrying,
  type AttemptFailure,
  type AttemptOutcome,
  type RequestTiming,
  type RetryPolicy,
} from "./retry";
import type { RatePacer } from "./rate-limit";
import type { SettingNames } from "./setting-names";

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
  readonly onRetry?: ((event: RetryEvent) => void) | undefined;
  /** How the caller names each setting, for the hints of error messages. */
  readonly settingNames: SettingNames;
  /** Pacing and the handling of 429s. */
  readonly rateLimit: {
    /** The pacer shared by every client of the process that talks to this API. */
    readonly pacer: RatePacer;
    /** A known quota: never send faster. */
    readonly maxRequestsPerSecond?: number | undefined;
    /** How long one call may wait on the rate limit in all, in milliseconds. */
    readonly timeoutMs: number;
    readonly onWait?: ((event: RateLimitWaitEvent) => void) | undefined;
  };
}

/** Waits on the rate limit this long or longer are reported to `onRateLimitWait`. */
export const RATE_LIMIT_NOTICE_MS = 1000;

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

function header(headers: Dispatcher.ResponseData["headers"], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The error code of a network failure. Node reports connection failures as system errors with a
 * `code`; with autoSelectFamily it may be an AggregateError whose members carry it.
 */
export function networkCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code !== "") return code;
  const errors = (error as { errors?: unknown } | null)?.errors;
  if (Array.isArray(errors))
    for (const inner of errors) if (networkCode(inner) !== "UNKNOWN") return networkCode(inner);
  return "UNKNOWN";
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === "") return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

interface Received {
  status: number;
  headers: Dispatcher.ResponseData["headers"];
  text: string;
}

/**
 * Sends one call of `endpoint` with `input`, retrying as the retry policy allows, and returns the
 * decoded 2xx body (or the endpoint's answer for a status it declares as one).
 *
 * @throws BrokerApiError for every failure, with secrets redacted.
 */
export async function request<I, O>(ctx: RequestContext, endpoint: Endpoint<I, O>, input: I): Promise<O> {
  const { method, path: pathTemplate, repeatable } = endpoint;
  const parts = endpoint.build(input);
  const secrets = [ctx.apiKey, ...Object.values(parts.params ?? {}), ...(parts.secrets ?? [])];
  const path = ctx.basePath + expandPath(pathTemplate, parts.params) + queryString(parts.query);
  const payload = parts.body === undefined ? undefined : JSON.stringify(parts.body);
  const headers: Record<string, string> = {
    accept: "application/json",
    "user-agent": ctx.userAgent,
    "x-api-key": ctx.apiKey,
    ...(payload === undefined ? {} : { "content-type": "application/json" }),
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
  const report = (event: RetryEvent): void => {
    try {
      ctx.onRetry?.(event);
    } catch {
      // Deliberately ignored: a listener only observes the call and must not fail it.
    }
  };
  const loop = {
    policy: ctx.retry,
    timing: ctx.timing,
    repeatable,
    onRetry: (_attempt: number, delayMs: number, failure: AttemptFailure) => {
      report({ method, pathTemplate, attempt: sent, delayMs, reason: failureReason(failure) });
    },
  };
  // Time spent waiting on the rate limit, over all attempts of this call.
  const rateLimitBudget = { spentMs: 0 };
  const sendOnce = (): Promise<Sent> => {
    sent++;
    return send(ctx, method, path, headers, payload);
  };
  return retrying(loop, async (): Promise<AttemptOutcome<O>> => {
    const paced = await sendPaced(ctx, { method, pathTemplate }, rateLimitBudget, sendOnce, (delayMs) => {
      report({ method, pathTemplate, attempt: sent, delayMs, reason: "429" });
    });
    const outcome = paced.sent;
    if (outcome.ok && outcome.status >= 200 && outcome.status < 300)
      return { ok: true, value: decodeBody(outcome, endpoint.decode, facts()) };
    if (outcome.ok && endpoint.answers?.statuses.has(outcome.status) === true)
      return { ok: true, value: endpoint.answers.value };
    const { failure, fail } = outcome.ok
      ? statusFailure(outcome, repeatable, ctx.timing.now())
      : networkFailure(outcome.error, repeatable);
    const outOfTime = paced.outOfTime;
    if (outOfTime !== undefined) {
      // The rate limit outlasted its time budget: final, whatever maxRetries says.
      const stop = { retry: false, why: "rate-limit" } as const;
      return { ok: false, failure, stop, fail: () => fail({ ...facts(), stop, rateLimitWaitMs: outOfTime }) };
    }
    return { ok: false, failure, fail: (stop) => fail({ ...facts(), stop }) };
  });
}

/** The response of one request, or why none arrived. */
type Sent = ({ ok: true } & Received) | { ok: false; error: unknown };

/** What {@link sendPaced} ends with. */
interface Paced {
  /** The last response (or network failure). */
  sent: Sent;
  /**
   * Set when `sent` is a 429 that is not waited out because the next wait (this many ms) would
   * exceed the call's rate-limit budget.
   */
  outOfTime?: number;
}

/**
 * Sends a request at the pace of the process-wide pacer, and waits out 429s: each one blocks every
 * request to the API until its `Retry-After` and slows the pace (see `rate-limit.ts`). A 429 is
 * always safe to repeat (the server did not process the request, creates included) and does not
 * count against `maxRetries`: its budget is time, `rateLimit.timeoutMs` per call. Waits of a second
 * or more are reported to `onRateLimitWait`.
 */
async function sendPaced(
  ctx: RequestContext,
  call: { method: string; pathTemplate: string },
  budget: { spentMs: number },
  sendOnce: () => Promise<Sent>,
  onRateLimited: (delayMs: number) => void,
): Promise<Paced> {
  const { pacer, maxRequestsPerSecond: quota } = ctx.rateLimit;
  let slot = pacer.reserve(quota);
  let last: Sent | undefined;
  for (;;) {
    if (slot.waitMs > 0) {
      if (slot.reason === "retry-after" && budget.spentMs + slot.waitMs > ctx.rateLimit.timeoutMs) {
        // Held back by another request's 429 for longer than this call may wait: fail as that
        // 429 would, without sending (the server refuses everything until then).
        return { sent: last ?? { ok: true, status: 429, headers: {}, text: "" }, outOfTime: slot.waitMs };
      }
      if (slot.waitMs >= RATE_LIMIT_NOTICE_MS) {
        const pace = pacer.pace(quota);
        noticeWait(ctx, {
          ...call,
          waitMs: slot.waitMs,
          reason: slot.reason,
          ...(pace === undefined ? {} : { pace }),
        });
      }
      await ctx.timing.sleep(slot.waitMs);
      budget.spentMs += slot.waitMs;
      // Another request was refused while this one slept: take a slot after the new block.
      if (pacer.generation !== slot.generation) {
        slot = pacer.reserve(quota);
        continue;
      }
    }
    const sentAt = ctx.timing.now();
    last = await sendOnce();
    if (!last.ok || last.status !== 429) return { sent: last };
    const retryAfterMs = parseRetryAfter(header(last.headers, "retry-after"), ctx.timing.now());
    const blockMs = pacer.rateLimited(sentAt, retryAfterMs, quota);
    if (budget.spentMs + blockMs > ctx.rateLimit.timeoutMs) return { sent: last, outOfTime: blockMs };
    onRateLimited(blockMs);
    if (blockMs >= RATE_LIMIT_NOTICE_MS) {
      const pace = pacer.pace(quota);
      noticeWait(ctx, {
        ...call,
        waitMs: blockMs,
        reason: "retry-after",
        ...(pace === undefined ? {} : { pace }),
      });
    }
    if (blockMs > 0) {
      await ctx.timing.sleep(blockMs);
      budget.spentMs += blockMs;
    }
    // Back at the end of the block: take a slot at the pace, like every other request.
    slot = pacer.reserve(quota);
  }
}

/** Reports a wait on the rate limit; a failing listener must not fail the call it only observes. */
function noticeWait(ctx: RequestContext, event: RateLimitWaitEvent): void {
  try {
    ctx.rateLimit.onWait?.(event);
  } catch {
    // Deliberately ignored: logging is best effort.
  }
}

/** One attempt: the response, or why none arrived. */
async function send(
  ctx: RequestContext,
  method: EndpointInfo["method"],
  path: string,
  headers: Record<string, string>,
  payload: string | undefined,
): Promise<Sent> {
  try {
    const res = await ctx.dispatcher.request({ method, path, headers, body: payload ?? null });
    // Always read the body: it frees the connection for the next request.
    return { ok: true, status: res.statusCode, headers: res.headers, text: await res.body.text() };
  } catch (error) {
    return { ok: false, error };
  }
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
