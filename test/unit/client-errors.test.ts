import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";

import { RunError } from "@pulumi/pulumi/errors";
import { afterEach, describe, expect, it, vi } from "vitest";

import {
  BrokerApiError,
  BrokerClient,
  BrokerConfigError,
  BrokerError,
  BrokerResultError,
  BrokerSettingsError,
  isBrokerApiError,
  isBrokerConfigError,
  isBrokerError,
  isBrokerResultError,
  isBrokerSettingsError,
} from "../../src/client";
import { BrokerConfigDocumentError } from "../../src/config-as-data";
import { BrokerLookupError } from "../../src/core/lookups";
import { STACK_SETTING_NAMES } from "../../src/settings/connection";

const API_KEY = "bka_unit_admin_secret";

/** A loopback server answering every request with `handler`; closed after each test. */
const servers: http.Server[] = [];
async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

let clock = 0;
/** Retries without waiting: the clock moves by the waits only, as if they were real. */
const timing = {
  sleep: (ms: number) => {
    clock += ms;
    return Promise.resolve();
  },
  now: () => clock,
  random: () => 0.5,
};

function client(baseUrl: string, options: { maxRetries?: number; timeoutMs?: number } = {}): BrokerClient {
  return new BrokerClient(
    // 2 s of rate-limit budget: two 1 s waits on 429s without Retry-After, as many as maxRetries allows.
    {
      baseUrl,
      apiKey: API_KEY,
      maxRetries: 2,
      rateLimitTimeoutSeconds: 2,
      settingNames: STACK_SETTING_NAMES,
      ...options,
    },
    { timing },
  );
}

async function failure(promise: Promise<unknown>): Promise<BrokerApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isBrokerApiError(error)) throw new Error(`expected a BrokerApiError, got ${String(error)}`);
  return error;
}

describe("error mapping", () => {
  // [status, stable code, hint in the message, attempts for a GET with maxRetries 2]
  const table: [number, string, string, number][] = [
    [400, "BROKER_INVALID_REQUEST", "rejected query.limit; correct that input", 1],
    [
      401,
      "BROKER_UNAUTHORIZED",
      "check that broker:apiKey (or BROKER_API_KEY) holds an ACCOUNT access key",
      1,
    ],
    [403, "BROKER_FORBIDDEN", "is broker:apiKey (or BROKER_API_KEY) a SERVICE key? use an ACCOUNT key", 1],
    [404, "BROKER_NOT_FOUND", "does not exist", 1],
    [409, "BROKER_CONFLICT", "conflicts", 1],
    [418, "BROKER_INVALID_REQUEST", "rejected query.limit", 1],
    [422, "BROKER_INVALID_REQUEST", "rejected query.limit", 1],
    [429, "BROKER_RATE_LIMITED", "rate limited the request after 3 attempts", 3],
    [500, "BROKER_SERVER_ERROR", "the broker API failed; retry later", 1],
    [501, "BROKER_SERVER_ERROR", "the broker API failed; retry later", 1],
    [502, "BROKER_SERVER_ERROR", "the broker API failed; retry later", 3],
    [503, "BROKER_SERVER_ERROR", "the broker API failed; retry later", 3],
    [504, "BROKER_SERVER_ERROR", "the broker API failed; retry later", 3],
    [302, "BROKER_BAD_RESPONSE", "points at the broker configuration API", 1],
  ];

  it.each(table)("maps %i to %s with a hint on what to do", async (status, code, hint, attempts) => {
    const url = await serve((_req, res) => {
      res.writeHead(status, { "content-type": "application/json", "x-request-id": "req-42" });
      res.end(JSON.stringify({ code: "some_code", message: "the server says no", field: "query.limit" }));
    });
    const error = await failure(client(url).listWorkspaces({ pageIndex: 0 }));
    expect(error).toMatchObject({
      name: "BrokerApiError",
      code,
      status,
      method: "GET",
      pathTemplate: "/workspace",
      serverMessage: "the server says no",
      serverCode: "some_code",
      field: "query.limit",
      requestId: "req-42",
      attempts,
      outcomeUnknown: false,
    });
    expect(error.message).toMatch(
      new RegExp(`^GET /workspace failed: ${status} [A-Za-z' ]+: the server says no`),
    );
    expect(error.message).toContain(hint);
    expect(error.message.includes(`(after ${attempts} attempts)`)).toBe(attempts > 1);
  });

  it.each([
    ["message", { message: "from message" }, "from message"],
    ["error as a string", { error: "from error" }, "from error"],
    ["error.detail", { error: { detail: "from detail" } }, "from detail"],
    ["nothing usable", { error: { other: 1 } }, undefined],
  ])("reads the server message from %s", async (_, body, expected) => {
    const url = await serve((_req, res) => {
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
    const error = await failure(client(url).listWorkspaces({ pageIndex: 0 }));
    expect(error.serverMessage).toBe(expected);
  });

  it("says a 401 on a create was an authentication problem, without pretending the outcome is unknown", async () => {
    const url = await serve((_req, res) => {
      res
        .writeHead(401, { "content-type": "application/json" })
        .end('{"code":"unauthorized","message":"Unknown API key"}');
    });
    const error = await failure(client(url).createWorkspace({ name: "w" }));
    expect(error.message).toBe(
      "POST /workspace failed: 401 Unauthorized: Unknown API key — check that broker:apiKey (or BROKER_API_KEY) holds an ACCOUNT access key",
    );
    expect(error.outcomeUnknown).toBe(false);
  });

  it("names the settings the way its caller does, and neutrally when the caller names none", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(401).end();
    });
    const neutral = new BrokerClient({ baseUrl: url, apiKey: API_KEY, maxRetries: 0 });
    const own = new BrokerClient({
      baseUrl: url,
      apiKey: API_KEY,
      maxRetries: 0,
      settingNames: { apiKey: "MY_KEY (named by --api-key-env)" },
    });
    try {
      expect((await failure(neutral.listWorkspaces({ pageIndex: 0 }))).message).toMatch(
        / — check that the API key holds an ACCOUNT access key$/,
      );
      expect((await failure(own.listWorkspaces({ pageIndex: 0 }))).message).toMatch(
        / — check that MY_KEY \(named by --api-key-env\) holds an ACCOUNT access key$/,
      );
    } finally {
      await Promise.all([neutral.close(), own.close()]);
    }
  });

  it("says a 503 on a create may have been applied, and does not retry it", async () => {
    let calls = 0;
    const url = await serve((_req, res) => {
      calls++;
      res.writeHead(503).end();
    });
    const error = await failure(client(url).createWorkspace({ name: "w" }));
    expect(calls).toBe(1);
    expect(error).toMatchObject({
      code: "BROKER_SERVER_ERROR",
      status: 503,
      outcomeUnknown: true,
      attempts: 1,
    });
    expect(error.message).toContain("the request may have been applied");
  });

  it("reports connection refused with the base URL and the setting to check", async () => {
    const url = await serve(() => undefined);
    await new Promise((resolve) => servers.pop()?.close(resolve));
    const error = await failure(client(url).listWorkspaces({ pageIndex: 0 }));
    expect(error).toMatchObject({
      code: "BROKER_CONNECTION_FAILED",
      status: 0,
      attempts: 3,
      outcomeUnknown: false,
    });
    expect(error.message).toBe(
      `GET /workspace failed: could not connect to ${url} (ECONNREFUSED) (after 3 attempts) — check broker:baseUrl (or BROKER_BASE_URL)`,
    );
    expect(error.cause).toMatchObject({ code: "ECONNREFUSED" });
  });

  it("reports a connection reset on a GET as BROKER_CONNECTION_FAILED after retrying", async () => {
    let calls = 0;
    const url = await serve((req) => {
      calls++;
      req.socket.destroy();
    });
    const error = await failure(client(url).listWorkspaces({ pageIndex: 0 }));
    expect(calls).toBe(3);
    expect(error).toMatchObject({ code: "BROKER_CONNECTION_FAILED", status: 0, outcomeUnknown: false });
    expect(error.message).toMatch(/failed: the connection to .* failed \((UND_ERR_SOCKET|ECONNRESET)\)/);
    // The address answered, so the hint must not send the user to check broker:baseUrl.
    expect(error.message).toMatch(/the connection was interrupted; retry later/);
    expect(error.message).not.toMatch(/check broker:baseUrl/);
  });

  it("reports a silent server as BROKER_TIMEOUT, naming broker:timeoutMs", async () => {
    const url = await serve(() => undefined);
    const error = await failure(
      client(url, { timeoutMs: 100, maxRetries: 0 }).listWorkspaces({ pageIndex: 0 }),
    );
    expect(error).toMatchObject({ code: "BROKER_TIMEOUT", status: 0, attempts: 1 });
    expect(error.message).toBe(
      `GET /workspace failed: no response from ${url} within 100 ms (UND_ERR_HEADERS_TIMEOUT) — check broker:baseUrl (or BROKER_BASE_URL), or raise broker:timeoutMs`,
    );
  });

  it("reports a 2xx that is not JSON as BROKER_BAD_RESPONSE", async () => {
    const url = await serve((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>"));
    const error = await failure(client(url).listWorkspaces({ pageIndex: 0 }));
    expect(error).toMatchObject({
      code: "BROKER_BAD_RESPONSE",
      status: 200,
      attempts: 1,
      outcomeUnknown: false,
    });
    expect(error.message).toContain(
      "GET /workspace failed: 200 OK but the response is not the expected JSON (the body is not JSON)",
    );
  });
});

describe("error classes", () => {
  const api = new BrokerApiError({
    code: "BROKER_NOT_FOUND",
    message: "m",
    status: 404,
    method: "GET",
    pathTemplate: "/p",
    attempts: 1,
    outcomeUnknown: false,
  });
  const config = new BrokerSettingsError("BROKER_SETTINGS_MISSING", "m");
  const result = new BrokerResultError("m", 7);
  const base = new BrokerError("BROKER_TIMEOUT", "m");

  it.each([
    ["BrokerApiError", api, [true, true, false, false]],
    ["BrokerSettingsError", config, [true, false, true, false]],
    ["BrokerResultError", result, [true, false, false, true]],
    ["BrokerError", base, [true, false, false, false]],
    ["a plain Error", new Error("m"), [false, false, false, false]],
  ] as const)("recognises %s by brand", (_, error, expected) => {
    expect([
      isBrokerError(error),
      isBrokerApiError(error),
      isBrokerSettingsError(error),
      isBrokerResultError(error),
    ]).toEqual(expected);
    expect([error instanceof BrokerError, error instanceof BrokerApiError]).toEqual(expected.slice(0, 2));
  });

  it("keeps the earlier names BrokerConfigError and isBrokerConfigError as the same class and guard", () => {
    /* eslint-disable @typescript-eslint/no-deprecated -- the deprecated names are what is tested */
    expect(BrokerConfigError).toBe(BrokerSettingsError);
    expect(isBrokerConfigError).toBe(isBrokerSettingsError);
    expect(config).toBeInstanceOf(BrokerConfigError);
    expect(config.code).not.toBe("BROKER_CONFIG_INVALID");
    /* eslint-enable @typescript-eslint/no-deprecated */
  });

  it("recognises errors from another copy of the module", async () => {
    vi.resetModules();
    // With the module registry reset, this evaluates errors.ts again: a second copy of the classes.
    const copy = await import("../../src/client/errors.js");
    expect(copy.BrokerApiError).not.toBe(BrokerApiError);
    const init = {
      code: "BROKER_TIMEOUT",
      message: "m",
      status: 0,
      method: "GET",
      pathTemplate: "/p",
      attempts: 1,
    } as const;
    expect(isBrokerApiError(new copy.BrokerApiError({ ...init, outcomeUnknown: false }))).toBe(true);
    expect(copy.isBrokerError(api)).toBe(true);
    expect(api instanceof copy.BrokerApiError).toBe(true);
    expect(config instanceof copy.BrokerApiError).toBe(false);
  });

  it("never carries an id property (the engine would read it as 'created but failed')", () => {
    for (const error of [api, config, result, base]) {
      expect("id" in error).toBe(false);
      expect(JSON.parse(JSON.stringify(error))).not.toHaveProperty("id");
    }
    expect(result.createdId).toBe(7);
  });

  it("is a RunError to Pulumi's SDK, so that a program prints its message alone (issue #32)", () => {
    const lookup = new BrokerLookupError("BROKER_LOOKUP_NOT_FOUND", "broker:index:getWorkspace", "m");
    const document = new BrokerConfigDocumentError([{ path: "", message: "m" }]);
    for (const error of [api, config, result, base, lookup, document])
      expect(RunError.isInstance(error)).toBe(true);
    // Not ours (a bug): the SDK prints its stack.
    expect(RunError.isInstance(new Error("m"))).toBe(false);
    expect(Object.keys(api)).not.toContain("__pulumiRunError");
  });

  it("shows its fields, not brand internals, in JSON and inspect output", () => {
    expect(JSON.parse(JSON.stringify(api))).toEqual({
      name: "BrokerApiError",
      code: "BROKER_NOT_FOUND",
      status: 404,
      method: "GET",
      pathTemplate: "/p",
      attempts: 1,
      outcomeUnknown: false,
    });
    expect(inspect(api)).toContain("pathTemplate: '/p'");
  });
});
