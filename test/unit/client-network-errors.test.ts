import { describe, expect, it } from "vitest";

import { codeForNetworkError, networkError, type CallFacts } from "../../src/client/error-mapping";
import {
  NETWORK_ERRORS,
  UNKNOWN_NETWORK_ERROR,
  networkErrorTraits,
  type NetworkFailureKind,
} from "../../src/client/network-errors";
import { decideRetry, isOutcomeUnknown, surelyNotProcessed, type RetryPolicy } from "../../src/client/retry";
import { DEFAULT_SETTING_NAMES } from "../../src/client/setting-names";

const policy: RetryPolicy = {
  maxRetries: 4,
  maxRetryTimeMs: 60_000,
  baseDelayMs: 200,
  maxDelayMs: 5000,
  random: () => 0.5,
};

const facts: CallFacts = {
  method: "GET",
  pathTemplate: "/workspace",
  attempts: 1,
  baseUrl: "http://broker.test/v1",
  secrets: [],
  repeatable: true,
  timeoutMs: 100,
  maxRetryTimeMs: 60_000,
  rateLimitTimeoutMs: 300_000,
  names: { ...DEFAULT_SETTING_NAMES, baseUrl: "BASE", timeoutMs: "TIMEOUT", maxRetries: "RETRIES" },
};

// [code, may have been sent, transient, kind, error code, what the message says, what it advises]
const table: [string, boolean, boolean, NetworkFailureKind, string, string, string][] = [
  ["ECONNREFUSED", false, true, "connect", "BROKER_CONNECTION_FAILED", "could not connect to", "check BASE"],
  ["ENOTFOUND", false, false, "connect", "BROKER_CONNECTION_FAILED", "could not connect to", "check BASE"],
  ["EAI_AGAIN", false, true, "connect", "BROKER_CONNECTION_FAILED", "could not connect to", "check BASE"],
  ["EHOSTUNREACH", false, false, "connect", "BROKER_CONNECTION_FAILED", "could not connect to", "check BASE"],
  ["ENETUNREACH", false, false, "connect", "BROKER_CONNECTION_FAILED", "could not connect to", "check BASE"],
  [
    "EADDRNOTAVAIL",
    false,
    false,
    "connect",
    "BROKER_CONNECTION_FAILED",
    "could not connect to",
    "check BASE",
  ],
  [
    "UND_ERR_CONNECT_TIMEOUT",
    false,
    true,
    "connect-timeout",
    "BROKER_TIMEOUT",
    "could not connect to http://broker.test/v1 within 100 ms",
    "check BASE, or raise TIMEOUT",
  ],
  [
    "UND_ERR_INVALID_ARG",
    false,
    false,
    "other",
    "BROKER_CONNECTION_FAILED",
    "the connection to",
    "check BASE",
  ],
  ["ECONNRESET", true, true, "dropped", "BROKER_CONNECTION_FAILED", "the connection to", "raise RETRIES"],
  ["EPIPE", true, true, "dropped", "BROKER_CONNECTION_FAILED", "the connection to", "raise RETRIES"],
  ["UND_ERR_SOCKET", true, true, "dropped", "BROKER_CONNECTION_FAILED", "the connection to", "raise RETRIES"],
  [
    "UND_ERR_CLOSED",
    true,
    false,
    "dropped",
    "BROKER_CONNECTION_FAILED",
    "the connection to",
    "raise RETRIES",
  ],
  [
    "ETIMEDOUT",
    true,
    true,
    "response-timeout",
    "BROKER_TIMEOUT",
    "no response from http://broker.test/v1 within 100 ms",
    "raise TIMEOUT",
  ],
  [
    "UND_ERR_HEADERS_TIMEOUT",
    true,
    true,
    "response-timeout",
    "BROKER_TIMEOUT",
    "no response from",
    "raise TIMEOUT",
  ],
  [
    "UND_ERR_BODY_TIMEOUT",
    true,
    true,
    "response-timeout",
    "BROKER_TIMEOUT",
    "no response from",
    "raise TIMEOUT",
  ],
  [
    "UND_ERR_RES_CONTENT_LENGTH_MISMATCH",
    true,
    true,
    "other",
    "BROKER_CONNECTION_FAILED",
    "the connection to",
    "check BASE",
  ],
  ["SOMETHING_NEW", true, false, "other", "BROKER_CONNECTION_FAILED", "the connection to", "check BASE"],
];

describe("the network error table", () => {
  it("lists every code the table test covers, and nothing else", () => {
    const known = table.map(([code]) => code).filter((code) => code !== "SOMETHING_NEW");
    expect(Object.keys(NETWORK_ERRORS).sort()).toEqual(known.sort());
    expect(networkErrorTraits("SOMETHING_NEW")).toBe(UNKNOWN_NETWORK_ERROR);
    // Not fooled by names on Object.prototype.
    expect(networkErrorTraits("toString")).toBe(UNKNOWN_NETWORK_ERROR);
  });

  it.each(table)(
    "%s: sent %s, transient %s, %s",
    (code, maybeSent, transient, kind, brokerCode, what, advice) => {
      expect(networkErrorTraits(code)).toEqual({ maybeSent, transient, kind });
      const failure = { kind: "network", code } as const;

      // The retry policy reads the table: a repeatable request is retried when transient; a create
      // only when it surely never left this process; otherwise its outcome is unknown.
      expect(surelyNotProcessed(failure)).toBe(!maybeSent);
      expect(decideRetry(failure, true, 1, 0, policy).retry).toBe(transient);
      expect(decideRetry(failure, false, 1, 0, policy).retry).toBe(transient && !maybeSent);
      expect(isOutcomeUnknown(failure, false)).toBe(maybeSent);
      expect(isOutcomeUnknown(failure, true)).toBe(false);

      // And so do the messages.
      expect(codeForNetworkError(code)).toBe(brokerCode);
      const error = networkError(new Error("boom"), code, false, facts);
      expect(error.code).toBe(brokerCode);
      expect(error.message).toContain(`failed: ${what}`);
      expect(error.message).toContain(`(${code})`);
      expect(error.message.split(" — ")[1]).toContain(advice);
    },
  );

  it("advises checking the state, not a setting, when a create's outcome is unknown", () => {
    const error = networkError(new Error("boom"), "ECONNRESET", true, { ...facts, repeatable: false });
    expect(error.outcomeUnknown).toBe(true);
    expect(error.message).toContain("check the current state before trying again");
    expect(error.message).not.toContain("RETRIES");
  });
});
