/**
 * The one function through which every API call goes: URL building, headers (`X-API-KEY`,
 * `User-Agent`, JSON), encoding and decoding, retries, error mapping and redaction. Endpoint
 * functions only declare what differs.
 */
import { setTimeout as sleep } from "node:timers/promises";

import type { Dispatcher } from "undici";

import { badResponseError, networkError, statusError, type CallFacts } from "./error-mapping";
import { ShapeError, type Decoder } from "./decode";
import {
  decideRetry,
  failureReason,
  isOutcomeUnknown,
  parseRetryAfter,
  type AttemptFailure,
  type RetryPolicy,
} from "./retry";
import type { BrokerApiError } from "./errors";

/** One endpoint of the API, declared once. */
export interface Endpoint {
  readonly method: "GET" | "POST" | "PUT";
  /** The path template relative to the base URL, such as `/access-key/{accessKey}/permissions`. */
  readonly path: string;
  /**
   * Whether sending the request twice has the same effect as sending it once. Only repeatable
   * requests are retried after a failure that may have happened after the server processed them.
   */
  readonly repeatable: boolean;
}

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

/** The clock, sleep and randomness used for retries; replaced by unit tests so they need not wait. */
export interface RequestTiming {
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
  readonly random: () => number;
}

/** Real timing. */
export const REAL_TIMING: RequestTiming = {
  sleep: (ms) => sleep(ms),
  now: () => Date.now(),
  random: () => Math.random(),
};

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
}

/** One call. */
export interface RequestOptions<T> {
  readonly endpoint: Endpoint;
  /** Values of the path template's parameters. They are secrets (access key values) and redacted. */
  readonly params?: Readonly<Record<string, string>>;
  /** Query parameters; `undefined` values are left out. */
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  /** The JSON body. */
  readonly body?: unknown;
  /** Further secrets in the query or body, redacted from every error. The API key always is. */
  readonly secrets?: readonly string[];
  /** Validates and normalises a 2xx body. */
  readonly decode: Decoder<T>;
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
 * Sends one call, retrying as the retry policy allows, and returns the decoded 2xx body.
 *
 * @throws BrokerApiError for every failure, with secrets redacted.
 */
export async function request<T>(ctx: RequestContext, options: RequestOptions<T>): Promise<T> {
  const { method, path: pathTemplate, repeatable } = options.endpoint;
  const secrets = [ctx.apiKey, ...Object.values(options.params ?? {}), ...(options.secrets ?? [])];
  const path = ctx.basePath + expandPath(pathTemplate, options.params) + queryString(options.query);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = {
    accept: "application/json",
    "user-agent": ctx.userAgent,
    "x-api-key": ctx.apiKey,
    ...(payload === undefined ? {} : { "content-type": "application/json" }),
  };
  const policy: RetryPolicy = { ...ctx.retry, random: ctx.timing.random };
  const started = ctx.timing.now();

  for (let attempts = 1; ; attempts++) {
    const facts: CallFacts = {
      method,
      pathTemplate,
      attempts,
      baseUrl: ctx.baseUrl,
      secrets,
      repeatable,
      timeoutMs: ctx.timeoutMs,
      maxRetryTimeMs: ctx.retry.maxRetryTimeMs,
    };
    const outcome = await send(ctx, method, path, headers, payload);
    if (outcome.ok && outcome.status >= 200 && outcome.status < 300)
      return decodeBody(outcome, options.decode, facts);
    const { failure, fail } = outcome.ok
      ? statusFailure(outcome, repeatable, ctx.timing.now())
      : networkFailure(outcome.error, repeatable);
    const decision = decideRetry(failure, repeatable, attempts, ctx.timing.now() - started, policy);
    if (!decision.retry) throw fail({ ...facts, stop: decision });
    notify(ctx, {
      method,
      pathTemplate,
      attempt: attempts,
      delayMs: decision.delayMs,
      reason: failureReason(failure),
    });
    await ctx.timing.sleep(decision.delayMs);
  }
}

/** One attempt: the response, or why none arrived. */
async function send(
  ctx: RequestContext,
  method: Endpoint["method"],
  path: string,
  headers: Record<string, string>,
  payload: string | undefined,
): Promise<({ ok: true } & Received) | { ok: false; error: unknown }> {
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

/** Reports a retry; a failing listener must not fail the call it only observes. */
function notify(ctx: RequestContext, event: RetryEvent): void {
  try {
    ctx.onRetry?.(event);
  } catch {
    // Deliberately ignored: logging is best effort.
  }
}
