/**
 * Turns a failed call into a {@link BrokerApiError} whose message says what failed and what to do,
 * ky-style: `POST /access-key failed: 401 Unauthorized: <server message> — <what to do>`.
 *
 * Everything that comes from the request or the server passes through `redactSecrets` first.
 */
import { STATUS_CODES } from "node:http";

import { BrokerApiError, type BrokerApiErrorInit, type BrokerErrorCode } from "./errors";
import { isTimeoutCode, networkErrorTraits } from "./network-errors";
import { redactSecrets } from "./redact";
import type { RetryDecision } from "./retry";
import type { SettingNames } from "./setting-names";

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
  return isTimeoutCode(code) ? "BROKER_TIMEOUT" : "BROKER_CONNECTION_FAILED";
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
  /** The rate-limit time budget of a call, for rate-limit messages. */
  rateLimitTimeoutMs: number;
  /** The wait on the rate limit that no longer fit in that budget, when that stopped the call. */
  rateLimitWaitMs?: number | undefined;
  /** How the caller names the settings the hints point at. */
  names: SettingNames;
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
  if (facts.stop.why === "rate-limit") {
    const budget = `the rate-limit budget (${facts.names.rateLimitTimeoutSeconds}: ${Math.round(facts.rateLimitTimeoutMs / 1000)} s)`;
    const asked = facts.retryAfterMs;
    // The wait may round up by a millisecond, or add pacing to what the server asked.
    return asked !== undefined && asked + 1000 >= (facts.rateLimitWaitMs ?? 0)
      ? `; the server asked to wait ${Math.ceil(asked / 1000)} s, more than is left of ${budget}`
      : `; waiting ${Math.ceil((facts.rateLimitWaitMs ?? 0) / 1000)} s more would exceed ${budget}`;
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
      return `check that ${facts.names.apiKey} holds an ACCOUNT access key`;
    case "BROKER_FORBIDDEN":
      return `the API key was refused for this operation: is ${facts.names.apiKey} a SERVICE key? use an ACCOUNT key`;
    case "BROKER_NOT_FOUND":
      return details.field === undefined
        ? "the object does not exist on the broker (was it deleted outside Pulumi?)"
        : `the object that ${details.field} names does not exist on the broker; correct that input`;
    case "BROKER_CONFLICT":
      return details.field === undefined
        ? "the request conflicts with the current state on the broker; refresh and try again"
        : `the request conflicts with the current state of the object that ${details.field} names; correct that input`;
    case "BROKER_RATE_LIMITED":
      // Fewer requests in flight would not help: the client already paces every request of the
      // process. More time, or pacing at the known limit from the start, does.
      return `the broker API rate limited the request${facts.attempts > 0 ? ` after ${facts.attempts} attempt${facts.attempts > 1 ? "s" : ""}` : " before it was sent"}${stopNote(facts)}; raise ${facts.names.rateLimitTimeoutSeconds}, or set ${facts.names.maxRequestsPerSecond} to the broker's limit so that requests are paced from the start`;
    case "BROKER_SERVER_ERROR":
      return `the broker API failed; retry later${stopNote(facts)}`;
    case "BROKER_INVALID_REQUEST":
      return details.field === undefined
        ? "the broker API rejected the request as invalid; correct the input"
        : `the broker API rejected ${details.field}; correct that input`;
    default:
      return `unexpected response status: check that ${facts.names.baseUrl} points at the broker configuration API`;
  }
}

/**
 * Every API error of a call: `failure` (what went wrong, after the method and path template) and
 * `hint` (what to do) make the message, redacted of the call's secrets; the call's facts fill in the rest.
 */
function callError(
  facts: CallFacts,
  failure: string,
  hint: string,
  init: Omit<BrokerApiErrorInit, "message" | "method" | "pathTemplate" | "attempts">,
): BrokerApiError {
  const message = `${facts.method} ${facts.pathTemplate} failed: ${failure} — ${hint}`;
  return new BrokerApiError({
    ...init,
    message: redactSecrets(message, facts.secrets),
    method: facts.method,
    pathTemplate: facts.pathTemplate,
    attempts: facts.attempts,
  });
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
  return callError(facts, `${status} ${statusText}${server}${attemptsNote(facts.attempts)}`, hint, {
    code: codeForStatus(status),
    status,
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

function describeNetworkFailure(code: string, facts: CallFacts): string {
  switch (networkErrorTraits(code).kind) {
    case "connect-timeout":
      return `could not connect to ${facts.baseUrl} within ${facts.timeoutMs} ms (${code})`;
    case "response-timeout":
      return `no response from ${facts.baseUrl} within ${facts.timeoutMs} ms (${code})`;
    case "connect":
      return `could not connect to ${facts.baseUrl} (${code})`;
    default:
      return `the connection to ${facts.baseUrl} failed (${code})`;
  }
}

function networkHint(
  brokerCode: BrokerErrorCode,
  code: string,
  outcomeUnknown: boolean,
  facts: CallFacts,
): string {
  if (outcomeUnknown) return OUTCOME_UNKNOWN_HINT;
  if (brokerCode === "BROKER_TIMEOUT")
    return `check ${facts.names.baseUrl}, or raise ${facts.names.timeoutMs}${stopNote(facts)}`;
  // A connection that was made and then dropped says the address is right; the network or the
  // server is the problem, so pointing at the setting would mislead.
  if (networkErrorTraits(code).kind === "dropped")
    return `the connection was interrupted; retry later, or raise ${facts.names.maxRetries}${stopNote(facts)}`;
  return `check ${facts.names.baseUrl}${stopNote(facts)}`;
}

/** The error for a failure without a response: connection refused or reset, DNS, timeout. */
export function networkError(
  error: unknown,
  code: string,
  outcomeUnknown: boolean,
  facts: CallFacts,
): BrokerApiError {
  const brokerCode = codeForNetworkError(code);
  const failure = `${describeNetworkFailure(code, facts)}${attemptsNote(facts.attempts)}`;
  return callError(facts, failure, networkHint(brokerCode, code, outcomeUnknown, facts), {
    code: brokerCode,
    status: 0,
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
    ? `${OUTCOME_UNKNOWN_HINT}; also check that ${facts.names.baseUrl} points at the broker configuration API`
    : `check that ${facts.names.baseUrl} points at the broker configuration API (ending in /v1)`;
  const failure = `${status} ${STATUS_CODES[status] ?? ""} but the response is not the expected JSON (${detail})`;
  return callError(facts, failure, hint, {
    code: "BROKER_BAD_RESPONSE",
    status,
    outcomeUnknown,
    requestId,
  });
}
