import { inspect } from "node:util";

import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { networkError, scrubbedCause, type CallFacts } from "../../src/client/error-mapping";
import { REDACTED, redactSecrets } from "../../src/client/redact";
import { STACK_SETTING_NAMES } from "../../src/settings/connection";

describe("redactSecrets", () => {
  it("replaces every occurrence of every secret", () => {
    expect(redactSecrets("a bka_1 b bka_1 c bks_2", ["bka_1", "bks_2"])).toBe(
      `a ${REDACTED} b ${REDACTED} c ${REDACTED}`,
    );
  });

  it("replaces the percent-encoded forms a secret takes in a path or query", () => {
    const secret = "k/+ =&";
    const text = `/access-key/${encodeURIComponent(secret)}/permissions?accessKey=${new URLSearchParams({ a: secret }).toString().slice(2)}`;
    expect(redactSecrets(text, [secret])).toBe(`/access-key/${REDACTED}/permissions?accessKey=${REDACTED}`);
  });

  it("removes a secret whole when it contains another one", () => {
    expect(redactSecrets("x abcdef y", ["abc", "abcdef"])).toBe(`x ${REDACTED} y`);
  });

  it("ignores empty secrets instead of shredding the text", () => {
    expect(redactSecrets("hello", ["", "zzz"])).toBe("hello");
  });

  it("leaves no secret behind, whatever the text around it", () => {
    const secret = fc.string({ minLength: 4, maxLength: 20 });
    fc.assert(
      fc.property(fc.array(fc.string()), secret, (parts, key) => {
        const text = parts.join(key);
        return !redactSecrets(text, [key]).includes(key);
      }),
    );
  });
});

describe("scrubbed causes", () => {
  const KEY = "bka_secret_in_path";
  const API_KEY = "bka_admin";
  /** Shaped like an undici error that knows the request: the path with the key is in its message and properties. */
  function undiciLike(): Error {
    const error = new Error(`request to /v1/access/verify/${KEY} failed (x-api-key: ${API_KEY})`);
    error.name = "SocketError";
    Object.assign(error, {
      code: "UND_ERR_SOCKET",
      request: { path: `/v1/access/verify/${KEY}` },
      socket: { key: KEY },
    });
    return error;
  }

  it("keeps only name, code and the redacted message and stack", () => {
    const cause = scrubbedCause(undiciLike(), "UND_ERR_SOCKET", [API_KEY, KEY]);
    expect(cause.name).toBe("SocketError");
    expect((cause as Error & { code?: string }).code).toBe("UND_ERR_SOCKET");
    expect(cause.message).toBe("request to /v1/access/verify/[REDACTED] failed (x-api-key: [REDACTED])");
    expect(Object.keys(cause).sort()).toEqual(["code", "name"]);
    for (const text of [
      cause.stack ?? "",
      inspect(cause, { showHidden: true, depth: 5 }),
      JSON.stringify(cause),
    ]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(API_KEY);
    }
  });

  it("builds network errors whose whole inspect output is free of secrets", () => {
    const facts: CallFacts = {
      method: "GET",
      pathTemplate: "/access/verify/{accessKey}",
      attempts: 2,
      baseUrl: "http://127.0.0.1:1/v1",
      secrets: [API_KEY, KEY],
      repeatable: true,
      timeoutMs: 1000,
      maxRetryTimeMs: 1000,
      rateLimitTimeoutMs: 300_000,
      names: STACK_SETTING_NAMES,
    };
    const error = networkError(undiciLike(), "UND_ERR_SOCKET", false, facts);
    const text = [
      error.message,
      error.stack ?? "",
      inspect(error, { showHidden: true, depth: 10 }),
      JSON.stringify(error),
    ].join("\n");
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(API_KEY);
    expect(error.message).toBe(
      "GET /access/verify/{accessKey} failed: the connection to http://127.0.0.1:1/v1 failed (UND_ERR_SOCKET) (after 2 attempts) — the connection was interrupted; retry later, or raise broker:maxRetries",
    );
  });
});
