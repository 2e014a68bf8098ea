/**
 * The one function through which every API call goes. The endpoints (`endpoints.ts`) only declare
 * what differs; `request()` builds the request (URL, headers `X-API-KEY`, `User-Agent`, JSON) and
 * sends it through a pipeline of layers, each a module with one job, composed here alone:
 *
 * ```
 * retrying (retry.ts)        decide, back off, honour Retry-After; stop within the budgets
 *   └ interpret (here)       a response → the decoded value, or a failure and its error
 *     └ paced (pacing.ts)    the shared pace and the call's rate-limit budget; 429s waited out
 *       └ counted (here)     every request sent is an attempt, in messages and events
 *         └ transport        one attempt on the wire (transport.ts, over undici)
 * ```
 *
 * Every layer reports through the call's notices (`notices.ts`), the client's one notice path.
 */
import type { Dispatcher } from "undici";

import { ShapeError, type Decoder } from "./decode";
import { throwIfCancelled } from "./cancellation";
import type { Endpoint } from "./endpoints";
import type { BrokerApiError } from "./errors";
import { badResponseError, networkError, statusError, type CallFacts } from "./error-mapping";
import { callNotices, type Notify } from "./notices";
import { paced, type Paced, type Pacing } from "./pacing";
import {
  failureReason,
  isOutcomeUnknown,
  parseRetryAfter,
  retrying,
  type AttemptFailure,
  type AttemptOutcome,
  type RequestTiming,
  type RetryLoop,
  type RetryPolicy,
} from "./retry";
import type { SettingNames } from "./setting-names";
import { header, networkCode, transport, type Received, type Send, type WireRequest } from "./transport";

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
  /** Aborts when the run is cancelled: no request is sent after it (see `cancellation.ts`). */
  readonly signal?: AbortSignal | undefined;
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

  // The pipeline, composed from the wire up (see the module's comment).
  const onWire = transport(ctx.dispatcher, wire);
  const counted: Send = () => {
    // The last moment before the wire: a cancelled call sends nothing, even after a wait.
    throwIfCancelled(ctx.signal, method, pathTemplate);
    sent++;
    hooks.onAttempt?.();
    return onWire();
  };
  const send = paced(ctx.rateLimit, ctx.timing, notices, counted);
  const loop: RetryLoop = {
    policy: ctx.retry,
    timing: ctx.timing,
    repeatable,
    onRetry: (_attempt, delayMs, failure) => {
      notices.retry(delayMs, failureReason(failure));
    },
  };
  return retrying(loop, async () => interpret(await send(), endpoint, facts, ctx.timing));
}

/**
 * What one paced attempt means for the call: the decoded value, or a failure with the error to
 * throw if it is the last. A 429 that outlasted the rate-limit budget is final.
 */
function interpret<O>(
  paced: Paced,
  endpoint: Endpoint<never, O>,
  facts: () => CallFacts,
  timing: RequestTiming,
): AttemptOutcome<O> {
  const { sent, outOfTime } = paced;
  if (sent.ok && sent.status >= 200 && sent.status < 300)
    return { ok: true, value: decodeBody(sent, endpoint.decode, facts()) };
  if (sent.ok && endpoint.answers?.statuses.has(sent.status) === true)
    return { ok: true, value: endpoint.answers.value };
  const { failure, fail } = sent.ok
    ? statusFailure(sent, endpoint.repeatable, timing.now())
    : networkFailure(sent.error, endpoint.repeatable);
  if (outOfTime !== undefined) {
    // The rate limit outlasted its time budget: final, whatever maxRetries says.
    const stop = { retry: false, why: "rate-limit" } as const;
    return { ok: false, failure, stop, fail: () => fail({ ...facts(), stop, rateLimitWaitMs: outOfTime }) };
  }
  return { ok: false, failure, fail: (stop) => fail({ ...facts(), stop }) };
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
