/**
 * Turns a failed call into a {@link BrokerApiError} whose message says what failed and what to do,
 * ky-style: `POST /access-key failed: 401 Unauthorized: <server message> — <what to do>`.
 *
 * Everything that comes from the request or the server passes through `redactSecrets` first.
 */
import { STATUS_CODES } from "node:http";

import { BrokerApiError, type BrokerErrorCode } from "./errors";
import { redactSecrets } from "./redact";
import { TIMEOUT_CODES, type RetryDecision } from "./retry";

/** Where the connection settings come from, for hints. */
const API_KEY_SETTING = "broker:apiKey (or BROKER_API_KEY)";
const BASE_URL_SETTING = "broker:baseUrl (or BROKER_BASE_URL)";

/** The stable code for an HTTP error status. */
export function codeForStatus(status: number): BrokerErrorCode {
  if (status === 401) return "BROKER_UNAUTHORIZED";
  if (status === 403) return "BROKER_FORBIDDEN";
  if (status === 404) return "BROKER_NOT_FOUND";
  if (status === 409) return "BROKER_CONFLICT";
  if (status === 429) return "BROKER_RATE_LIMITED";
  if (status >= 500) return "BROKER_SERVER_ERROR";
  if (status >= 400) return "BROKER_INVALID_REQUEST";
  // 1xx/3xx: undici follows no redirects, so a redirect means the base URL points elsewhere.
  return "BROKER_BAD_RESPONSE";
}

/** The stable code for a network failure (no response). */
export function codeForNetworkError(code: string): BrokerErrorCode {
  return TIMEOUT_CODES.has(code) ? "BROKER_TIMEOUT" : "BROKER_CONNECTION_FAILED";
}

/** What the server said in a JSON error body. */
export interface ServerDetails {
  serverMessage?: string;
  serverCode?: string;
  field?: string;
}

/**
 * Reads the server's message (`message`, `error` as a string, or `error.detail`), `code` and `field`
 * from an error body (docs/decisions.md), redacting every secret of the request. Anything else is ignored.
 */
export function readServerDetails(body: unknown, secrets: readonly string[]): ServerDetails {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return {};
  const record = body as Record<string, unknown>;
  const error = record["error"];
  const nested =
    typeof error === "object" && error !== null ? (error as Record<string, unknown>)["detail"] : undefined;
  const candidates = [record["message"], error, nested];
  const message = candidates.find((c): c is string => typeof c === "string" && c.trim() !== "");
  const details: ServerDetails = {};
  if (message !== undefined) details.serverMessage = redactSecrets(message.trim(), secrets);
  if (typeof record["code"] === "string") details.serverCode = redactSecrets(record["code"], secrets);
  if (typeof record["field"] === "string") details.field = redactSecrets(record["field"], secrets);
  return details;
}

/** Facts about the call shared by every error. */
export interface CallFacts {
  method: string;
  pathTemplate: string;
  attempts: number;
  /** The base URL for display (no credentials). */
  baseUrl: string;
  /** Secrets of this request: the API key and every access key value in path, query or body. */
  secrets: readonly string[];
  /** Whether the request is safe to repeat. */
  repeatable: boolean;
  /** Why retrying stopped, when the failure was retryable at all. */
  stop?: RetryDecision | undefined;
  /** The delay the server asked for, when it was beyond the budget. */
  retryAfterMs?: number | undefined;
  /** The per-attempt timeout, for timeout messages. */
  timeoutMs: number;
  /** The retry time budget, for budget messages. */
  maxRetryTimeMs: number;
}

function attemptsNote(attempts: number): string {
  return attempts > 1 ? ` (after ${attempts} attempts)` : "";
}

/** Why retrying stopped early, when that is worth telling (not for failures that are never retried). */
function stopNote(facts: CallFacts): string {
  if (facts.stop === undefined || facts.stop.retry) return "";
  if (facts.stop.why === "retry-after" && facts.retryAfterMs !== undefined) {
    const seconds = Math.ceil(facts.retryAfterMs / 1000);
    return `; the server asked to wait ${seconds} s, more than is left of the retry budget (maxRetryTimeMs ${facts.maxRetryTimeMs} ms)`;
  }
  if (facts.stop.why === "budget")
    return `; the retry budget (maxRetryTimeMs ${facts.maxRetryTimeMs} ms) ran out`;
  return "";
}

const OUTCOME_UNKNOWN_HINT =
  "the request may have been applied even though no successful response arrived; it was not repeated because it is not safe to repeat: check the current state before trying again";

function statusHint(
  status: number,
  details: ServerDetails,
  facts: CallFacts,
  outcomeUnknown: boolean,
): string {
  if (outcomeUnknown) return OUTCOME_UNKNOWN_HINT;
  switch (codeForStatus(status)) {
    case "BROKER_UNAUTHORIZED":
      return `check that ${API_KEY_SETTING} holds an ACCOUNT access key`;
    case "BROKER_FORBIDDEN":
      return `the API key was refused for this operation: is ${API_KEY_SETTING} a SERVICE key? use an ACCOUNT key`;
    case "BROKER_NOT_FOUND":
      return details.field === undefined
        ? "the object does not exist on the broker (was it deleted outside Pulumi?)"
        : `the object that ${details.field} names does not exist on the broker; correct that input`;
    case "BROKER_CONFLICT":
      return details.field === undefined
        ? "the request conflicts with the current state on the broker; refresh and try again"
        : `the request conflicts with the current state of the object that ${details.field} names; correct that input`;
    case "BROKER_RATE_LIMITED":
      return `the broker API rate limited the request after ${facts.attempts} attempt${facts.attempts > 1 ? "s" : ""}${stopNote(facts)}; retry later or lower broker:maxConcurrency`;
    case "BROKER_SERVER_ERROR":
      return `the broker API failed; retry later${stopNote(facts)}`;
    case "BROKER_INVALID_REQUEST":
      return details.field === undefined
        ? "the broker API rejected the request as invalid; correct the input"
        : `the broker API rejected ${details.field}; correct that input`;
    default:
      return `unexpected response status: check that ${BASE_URL_SETTING} points at the broker configuration API`;
  }
}

/** The error for an HTTP error status (or an unexpected 1xx/3xx). */
export function statusError(
  status: number,
  body: unknown,
  requestId: string | undefined,
  outcomeUnknown: boolean,
  facts: CallFacts,
): BrokerApiError {
  const details = readServerDetails(body, facts.secrets);
  const statusText = STATUS_CODES[status] ?? "";
  const server = details.serverMessage === undefined ? "" : `: ${details.serverMessage}`;
  const hint = statusHint(status, details, facts, outcomeUnknown);
  const message = `${facts.method} ${facts.pathTemplate} failed: ${status} ${statusText}${server}${attemptsNote(facts.attempts)} — ${hint}`;
  return new BrokerApiError({
    code: codeForStatus(status),
    message: redactSecrets(message, facts.secrets),
    status,
    method: facts.method,
    pathTemplate: facts.pathTemplate,
    attempts: facts.attempts,
    outcomeUnknown,
    serverMessage: details.serverMessage,
    serverCode: details.serverCode,
    field: details.field,
    requestId,
  });
}

/**
 * A copy of an underlying error that is safe to keep as `cause`: same name, code and (redacted)
 * message and stack, and nothing else. undici errors can carry sockets, the request and, with them,
 * the URL path holding an access key.
 */
export function scrubbedCause(error: unknown, code: string, secrets: readonly string[]): Error {
  const original = error instanceof Error ? error : new Error(String(error));
  const copy = new Error(redactSecrets(original.message, secrets));
  copy.name = original.name;
  Object.defineProperty(copy, "code", { value: code, enumerable: true });
  copy.stack = redactSecrets(original.stack ?? `${original.name}: ${original.message}`, secrets);
  return copy;
}

/** Codes that mean the connection could not be opened at all. */
const CONNECT_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
]);

function describeNetworkFailure(code: string, facts: CallFacts): string {
  if (code === "UND_ERR_CONNECT_TIMEOUT")
    return `could not connect to ${facts.baseUrl} within ${facts.timeoutMs} ms (${code})`;
  if (TIMEOUT_CODES.has(code))
    return `no response from ${facts.baseUrl} within ${facts.timeoutMs} ms (${code})`;
  if (CONNECT_CODES.has(code)) return `could not connect to ${facts.baseUrl} (${code})`;
  return `the connection to ${facts.baseUrl} failed (${code})`;
}

/** Network error codes of a connection that was made and then dropped. */
const DROPPED_CONNECTION_CODES = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);

function networkHint(
  brokerCode: BrokerErrorCode,
  code: string,
  outcomeUnknown: boolean,
  facts: CallFacts,
): string {
  if (outcomeUnknown) return OUTCOME_UNKNOWN_HINT;
  if (brokerCode === "BROKER_TIMEOUT")
    return `check ${BASE_URL_SETTING}, or raise broker:timeoutMs${stopNote(facts)}`;
  // A connection that was made and then dropped says the address is right; the network or the
  // server is the problem, so pointing at the setting would mislead.
  if (DROPPED_CONNECTION_CODES.has(code))
    return `the connection was interrupted; retry later, or raise broker:maxRetries${stopNote(facts)}`;
  return `check ${BASE_URL_SETTING}${stopNote(facts)}`;
}

/** The error for a failure without a response: connection refused or reset, DNS, timeout. */
export function networkError(
  error: unknown,
  code: string,
  outcomeUnknown: boolean,
  facts: CallFacts,
): BrokerApiError {
  const brokerCode = codeForNetworkError(code);
  const message = `${facts.method} ${facts.pathTemplate} failed: ${describeNetworkFailure(code, facts)}${attemptsNote(facts.attempts)} — ${networkHint(brokerCode, code, outcomeUnknown, facts)}`;
  return new BrokerApiError({
    code: brokerCode,
    message: redactSecrets(message, facts.secrets),
    status: 0,
    method: facts.method,
    pathTemplate: facts.pathTemplate,
    attempts: facts.attempts,
    outcomeUnknown,
    cause: scrubbedCause(error, code, facts.secrets),
  });
}

/**
 * The error for a 2xx response whose body is not the JSON the API promises. `detail` describes the
 * problem by position (`results[2].id is not an integer`), never by value.
 */
export function badResponseError(
  status: number,
  detail: string,
  requestId: string | undefined,
  facts: CallFacts,
): BrokerApiError {
  // The server did the work; only the answer is unusable. For a create, the caller must look for
  // what was created, exactly as when the response was lost.
  const outcomeUnknown = !facts.repeatable;
  const hint = outcomeUnknown
    ? `${OUTCOME_UNKNOWN_HINT}; also check that ${BASE_URL_SETTING} points at the broker configuration API`
    : `check that ${BASE_URL_SETTING} points at the broker configuration API (ending in /v1)`;
  const message = `${facts.method} ${facts.pathTemplate} failed: ${status} ${STATUS_CODES[status] ?? ""} but the response is not the expected JSON (${detail}) — ${hint}`;
  return new BrokerApiError({
    code: "BROKER_BAD_RESPONSE",
    message: redactSecrets(message, facts.secrets),
    status,
    method: facts.method,
    pathTemplate: facts.pathTemplate,
    attempts: facts.attempts,
    outcomeUnknown,
    requestId,
  });
}
