import { describe, expect, it } from "vitest";

import { codeForNetworkError, networkError, type CallFacts } from "../../src/client/error-mapping";
import {
  NETWORK_ERRORS,
  UNKNOWN_NETWORK_ERROR,
  networkErrorTraits,
  type NetworkFailureKind,
} from "../../src/client/network-errors";
import { decideRetry, isOutcomeUnknown, surelyNotProcessed } from "../../src/client/retry";
import { DEFAULT_SETTING_NAMES } from "../../src/client/setting-names";
import { TEST_RETRY_POLICY } from "../support/client";

const policy = TEST_RETRY_POLICY;

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
type Row = [string, boolean, boolean, NetworkFailureKind, string, string, string];

/** A connection that was never made: nothing was sent, and the advice is to check the URL. */
function connectFailure(code: string, transient: boolean): Row {
  return [
    code,
    false,
    transient,
    "connect",
    "BROKER_CONNECTION_FAILED",
    "could not connect to",
    "check BASE",
  ];
}

/** A connection lost once the request may have gone out: the advice is more retries. */
function dropped(code: string, transient: boolean): Row {
  return [code, true, transient, "dropped", "BROKER_CONNECTION_FAILED", "the connection to", "raise RETRIES"];
}

/** No answer in time to a request that went out: transient, and the advice is a longer timeout. */
function responseTimeout(code: string, what = "no response from"): Row {
  return [code, true, true, "response-timeout", "BROKER_TIMEOUT", what, "raise TIMEOUT"];
}

/** A failure of no known kind: the advice is to check the URL. */
function otherFailure(code: string, maybeSent: boolean, transient: boolean): Row {
  return [code, maybeSent, transient, "other", "BROKER_CONNECTION_FAILED", "the connection to", "check BASE"];
}

const table: Row[] = [
  connectFailure("ECONNREFUSED", true),
  connectFailure("ENOTFOUND", false),
  connectFailure("EAI_AGAIN", true),
  connectFailure("EHOSTUNREACH", false),
  connectFailure("ENETUNREACH", false),
  connectFailure("EADDRNOTAVAIL", false),
  [
    "UND_ERR_CONNECT_TIMEOUT",
    false,
    true,
    "connect-timeout",
    "BROKER_TIMEOUT",
    "could not connect to http://broker.test/v1 within 100 ms",
    "check BASE, or raise TIMEOUT",
  ],
  otherFailure("UND_ERR_INVALID_ARG", false, false),
  dropped("ECONNRESET", true),
  dropped("EPIPE", true),
  dropped("UND_ERR_SOCKET", true),
  dropped("UND_ERR_CLOSED", false),
  responseTimeout("ETIMEDOUT", "no response from http://broker.test/v1 within 100 ms"),
  responseTimeout("UND_ERR_HEADERS_TIMEOUT"),
  responseTimeout("UND_ERR_BODY_TIMEOUT"),
  otherFailure("UND_ERR_RES_CONTENT_LENGTH_MISMATCH", true, true),
  otherFailure("SOMETHING_NEW", true, false),
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
