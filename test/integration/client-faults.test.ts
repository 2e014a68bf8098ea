/**
 * The client against the emulator with faults injected: rate limiting, 503s and connection resets,
 * before and after the server processed the request, on every route including the creates. Flows
 * must finish with correct results and never create anything twice; no failure may leak a secret.
 */
import { inspect } from "node:util";

import { afterEach, beforeEach, describe, expect, it } from "vitest";

import {
  BrokerClient,
  isBrokerApiError,
  type CreatedAccessKeyOnce,
  type RetryEvent,
  type WorkspaceRecord,
} from "../../src/client";
import {
  startEmulator,
  type EmulatorControls,
  type EmulatorHandle,
  type FaultSpec,
} from "../../src/emulator";
import { testClients } from "../support/client";
import { exchangeProblems, startControlledEmulator } from "../support/emulator";

let emulator: EmulatorHandle;
let controls: EmulatorControls;
let contractProblems: string[];
/** Clients with fast backoff and enough retries to outlast the fault rates below. */
const { clientOf, closeAll } = testClients(
  () => emulator,
  { maxRetries: 15 },
  { baseDelayMs: 2, maxDelayMs: 20 },
);

beforeEach(async () => {
  contractProblems = [];
  ({ emulator, controls } = await startControlledEmulator({
    // Every answer (faults included) must match the contract, and so must every request the
    // emulator read. A 429/503 fault answers before the body is read (the exchange shows none), and
    // a 400 is a test sending a bad request on purpose; retries resend the same request anyway.
    inspect: (exchange) => {
      contractProblems.push(...exchangeProblems(exchange, ![400, 429, 503].includes(exchange.status)));
    },
  }));
});

afterEach(async () => {
  await closeAll();
  await emulator.close();
});

interface FlowResult {
  workspaces: WorkspaceRecord[];
  keys: CreatedAccessKeyOnce[];
}

const TOP_LEVEL = 3;
const CHILDREN = 2;
const KEYS = 6;

/**
 * A realistic run: workspaces with children, keys of both types created once, permissions updated
 * and read back, keys verified, SERVICE pairs rotated, everything listed. Checks what it can as it goes.
 */
async function flow(client: BrokerClient): Promise<FlowResult> {
  const trees = await Promise.all(
    Array.from({ length: TOP_LEVEL }, async (_, t) => {
      const parent = await client.createWorkspaceAndFind({ name: `team-${t}` });
      const children: WorkspaceRecord[] = [];
      for (let c = 0; c < CHILDREN; c++)
        children.push(await client.createWorkspaceAndFind({ name: `env-${c}`, parentId: parent.id }));
      return [parent, ...children];
    }),
  );
  const keys = await Promise.all(
    Array.from({ length: KEYS }, async (_, k) => {
      const type = k % 2 === 0 ? "SERVICE" : "ACCOUNT";
      const result = await client.createAccessKeyOnce({
        name: `key-${k}`,
        type,
        permissions: { send: [`s/${k}`] },
      });
      if (result.created.serviceKeyPair !== undefined) {
        // A recovered SERVICE key got a fresh pair: it must be the one the broker holds.
        expect(result.created.serviceKeyPair.publicKey).toBe(
          await controls.publicKeyOf(result.created.accessKeyId),
        );
      }
      const permissions = { send: [`s/${k}`, "shared/*"], receive: [`r/${k}`], resources: {} };
      await client.updateAccessKeyPermissions(result.created.accessKey, permissions);
      expect((await client.getAccessKeyPermissions(result.created.accessKey)).permissions).toEqual(
        permissions,
      );
      expect(await client.verifyAccessKey(result.created.accessKey)).toBe(true);
      if (type === "SERVICE") {
        const pair = await client.rotateServiceKeyPair(result.created.accessKey);
        expect(pair.publicKey).toBe(await controls.publicKeyOf(result.created.accessKeyId));
      }
      return result;
    }),
  );
  const listedKeys = [];
  for await (const key of client.accessKeys({ order: "DESC" })) listedKeys.push(key);
  expect(listedKeys).toHaveLength(KEYS + 1);
  return { workspaces: trees.flat(), keys };
}

/** After the faults: exactly what the flow asked for exists, nothing twice. */
async function expectExactlyOnce(result: FlowResult): Promise<void> {
  await controls.clearFaults();
  expect(await controls.stats()).toEqual({ accessKeys: KEYS + 1, workspaces: TOP_LEVEL * (1 + CHILDREN) });
  const checker = clientOf();
  const workspaces: WorkspaceRecord[] = [];
  for await (const w of checker.workspaces()) workspaces.push(w);
  expect(workspaces.map((w) => w.id).sort()).toEqual(result.workspaces.map((w) => w.id).sort());
  for (const w of result.workspaces) {
    const parent = result.workspaces.find((p) => p.id === w.parentId);
    expect(w.path).toBe(parent === undefined ? `/${w.name}` : `${parent.path}/${w.name}`);
  }
  const names = result.keys.map((k) => k.record.name).sort();
  expect(names).toEqual(Array.from({ length: KEYS }, (_, k) => `key-${k}`));
  expect(contractProblems).toEqual([]);
}

async function inject(...faults: FaultSpec[]): Promise<void> {
  for (const fault of faults) await controls.injectFault(fault);
}

describe("flows under faults finish correctly and create nothing twice", () => {
  it("with 429 bursts that carry Retry-After", async () => {
    const events: RetryEvent[] = [];
    const client = clientOf({ onRetry: (e) => events.push(e) });
    await inject(
      { kind: "429", count: 4, retryAfter: "1" },
      { kind: "429", count: 2, retryAfter: 1, routes: ["POST /access-key", "POST /workspace"] },
    );
    await expectExactlyOnce(await flow(client));
    const rateLimited = events.filter((e) => e.reason === "429");
    expect(rateLimited.length).toBe(6);
    // Retry-After is honoured once per burst: the first 429 waits the whole second, and the
    // others of its burst wait out what is left of that same second, never longer (issue #11:
    // waiters must not all sleep the full Retry-After and retry at one instant).
    expect(rateLimited.some((e) => e.delayMs === 1000)).toBe(true);
    expect(rateLimited.every((e) => e.delayMs > 0 && e.delayMs <= 1000)).toBe(true);
  });

  it("with 503s before and after processing, on every route", async () => {
    const client = clientOf();
    await inject(
      { kind: "503", rate: 0.2, seed: 11, phase: "before" },
      { kind: "503", rate: 0.2, seed: 12, phase: "after" },
    );
    await expectExactlyOnce(await flow(client));
    const faulted = (await controls.requests()).filter((r) => r.fault === "503");
    expect(faulted.some((r) => r.route === "POST /access-key")).toBe(true);
    expect(faulted.some((r) => r.route === "POST /workspace")).toBe(true);
  });

  it("with connection resets before and after processing, on every route", async () => {
    const client = clientOf();
    await inject(
      { kind: "reset", rate: 0.2, seed: 21, phase: "before" },
      { kind: "reset", rate: 0.2, seed: 22, phase: "after" },
    );
    await expectExactlyOnce(await flow(client));
    const faulted = (await controls.requests()).filter((r) => r.fault === "reset");
    expect(faulted.some((r) => r.route === "POST /access-key")).toBe(true);
  });

  it("with everything at once, latency included", async () => {
    const client = clientOf({ timeoutMs: 2000 });
    await inject(
      { kind: "latency", rate: 0.3, latencyMs: 30, seed: 31 },
      { kind: "503", rate: 0.1, seed: 32, phase: "after" },
      { kind: "reset", rate: 0.1, seed: 33, phase: "after" },
      { kind: "reset", rate: 0.1, seed: 34, phase: "before" },
      { kind: "429", rate: 0.05, seed: 35, retryAfter: "0" },
    );
    await expectExactlyOnce(await flow(client));
  });
});

describe("lost create responses", () => {
  it("recovers a SERVICE key whose create response was lost after the server created it", async () => {
    await inject({ kind: "reset", count: 1, phase: "after", routes: ["POST /access-key"] });
    const result = await clientOf().createAccessKeyOnce({
      name: "svc",
      type: "SERVICE",
      permissions: { send: ["a/b"] },
    });
    expect(result.recovered).toBe(true);
    expect((await controls.stats()).accessKeys).toBe(2);
    expect(result.record).toMatchObject({ id: result.created.accessKeyId, name: "svc", type: "SERVICE" });
    expect(result.created.serviceKeyPair?.publicKey).toBe(
      await controls.publicKeyOf(result.created.accessKeyId),
    );
    const routes = (await controls.requests()).map((r) => r.route);
    expect(routes.filter((r) => r === "POST /access-key")).toHaveLength(1);
    expect(routes).toContain("PUT /access/service-key-pair");
  });

  it("creates the key again when the lost request never reached the server", async () => {
    await inject({ kind: "503", count: 1, phase: "before", routes: ["POST /access-key"] });
    const result = await clientOf().createAccessKeyOnce({ name: "acc", type: "ACCOUNT", permissions: {} });
    expect(result.recovered).toBe(false);
    expect((await controls.stats()).accessKeys).toBe(2);
    const posts = (await controls.requests()).filter((r) => r.route === "POST /access-key");
    expect(posts.map((r) => r.status)).toEqual([503, 201]);
  });

  it("finds a workspace whose create response was lost after the server created it", async () => {
    const client = clientOf();
    const parent = await client.createWorkspaceAndFind({ name: "p" });
    await inject({ kind: "503", count: 1, phase: "after", routes: ["POST /workspace"] });
    const child = await client.createWorkspaceAndFind({ name: "c", parentId: parent.id });
    expect(child).toMatchObject({ name: "c", parentId: parent.id, path: "/p/c" });
    expect((await controls.stats()).workspaces).toBe(2);
    expect((await controls.requests()).filter((r) => r.route === "POST /workspace")).toHaveLength(2);
  });

  it("creates the workspace again when the reset came before the server saw it", async () => {
    await inject({ kind: "reset", count: 1, phase: "before", routes: ["POST /workspace"] });
    const created = await clientOf().createWorkspaceAndFind({ name: "w" });
    expect(created.name).toBe("w");
    expect((await controls.stats()).workspaces).toBe(1);
    expect(
      (await controls.requests()).filter((r) => r.route === "POST /workspace").map((r) => r.status),
    ).toEqual([0, 201]);
  });

  it("does not repeat a plain create after a lost response, and says the outcome is unknown", async () => {
    await inject({ kind: "reset", count: 1, phase: "after", routes: ["POST /access-key"] });
    const error: unknown = await clientOf()
      .createAccessKey({ name: "k", type: "ACCOUNT", permissions: {} })
      .catch((e: unknown) => e);
    expect(isBrokerApiError(error) && error.outcomeUnknown).toBe(true);
    // It was in fact created: which is exactly why it must not be sent again blindly.
    expect((await controls.stats()).accessKeys).toBe(2);
  });

  it("fails at once when Retry-After exceeds the rate-limit budget", async () => {
    await inject({ kind: "429", retryAfter: 120, routes: ["GET /workspace"] });
    // Every wait of the client goes through its timing: record them instead of measuring time.
    const sleeps: number[] = [];
    const client = clientOf(
      { rateLimitTimeoutSeconds: 10 },
      {
        timing: {
          sleep: (ms) => {
            sleeps.push(ms);
            return Promise.resolve();
          },
          now: () => Date.now(),
          random: () => 0.5,
        },
      },
    );
    const error: unknown = await client.listWorkspaces({ pageIndex: 0 }).catch((e: unknown) => e);
    expect(sleeps, "the client did not wait at all").toEqual([]);
    expect(error).toMatchObject({ code: "BROKER_RATE_LIMITED", status: 429, attempts: 1 });
    expect((error as Error).message).toContain("the server asked to wait 120 s");
  });
});

describe("secrets under failures", () => {
  it("never puts an access key value or the API key in an error, its cause, or a retry event", async () => {
    const events: RetryEvent[] = [];
    const onRetry = (e: RetryEvent): void => {
      events.push(e);
    };
    const client = clientOf({ maxRetries: 1, onRetry });
    const service = await client.createAccessKey({ name: "svc", type: "SERVICE", permissions: {} });
    const account = await client.createAccessKey({ name: "acc", type: "ACCOUNT", permissions: {} });
    const unknownKey = "bka_never_created_secret_value";
    const wrongApiKey = "bka_wrong_admin_secret_value";
    const closedPort = await startEmulator({});
    await closedPort.close();

    const failures: Promise<unknown>[] = [];
    const attempt = (p: Promise<unknown>): void =>
      void failures.push(p.then(() => new Error("unexpected success")).catch((e: unknown) => e));

    await inject(
      { kind: "503", routes: ["GET /access-key/{accessKey}/permissions"] },
      { kind: "reset", phase: "after", routes: ["POST /access-key/{accessKey}/permissions"] },
      { kind: "reset", phase: "before", routes: ["GET /access/verify/{accessKey}"] },
      { kind: "503", phase: "after", routes: ["GET /access-key"] },
      // undici checks timeouts on a coarse clock (~1 s): the delay must clearly exceed that.
      { kind: "latency", latencyMs: 2500, routes: ["GET /workspace"] },
    );
    attempt(client.getAccessKeyPermissions(service.accessKey));
    attempt(
      client.updateAccessKeyPermissions(account.accessKey, { send: ["a/b"], receive: [], resources: {} }),
    );
    attempt(client.verifyAccessKey(service.accessKey));
    attempt(client.listAccessKeys({ pageIndex: 0, accessKey: account.accessKey }));
    attempt(clientOf({ timeoutMs: 100, maxRetries: 0 }).listWorkspaces({ pageIndex: 0 }));
    await Promise.all(failures);
    await controls.clearFaults();
    await inject({ kind: "reset", phase: "before", routes: ["PUT /access/service-key-pair"] });
    attempt(client.rotateServiceKeyPair(service.accessKey));
    attempt(
      client
        .createAccessKeyOnce({ name: "x", type: "ACCOUNT", permissions: {} })
        .then(() => controls.clearFaults()),
    );
    await Promise.all(failures);
    await controls.clearFaults();
    attempt(client.rotateServiceKeyPair(account.accessKey));
    attempt(client.getAccessKeyPermissions(unknownKey));
    attempt(client.updateAccessKeyPermissions(unknownKey, { send: [], receive: [], resources: {} }));
    attempt(
      client.updateAccessKeyPermissions(account.accessKey, { send: [" bad"], receive: [], resources: {} }),
    );
    attempt(clientOf({ apiKey: wrongApiKey }).getAccessKeyPermissions(account.accessKey));
    attempt(clientOf({ apiKey: service.accessKey }).rotateServiceKeyPair(service.accessKey));
    attempt(
      new BrokerClient({
        baseUrl: closedPort.url,
        apiKey: emulator.adminKey,
        maxRetries: 1,
        onRetry,
      }).verifyAccessKey(account.accessKey),
    );

    const errors = (await Promise.all(failures)).filter((e) => e instanceof Error);
    const codes = errors.map((e) => (e as { code?: string }).code);
    // The failures really happened, and of every kind.
    for (const code of [
      "BROKER_SERVER_ERROR",
      "BROKER_CONNECTION_FAILED",
      "BROKER_TIMEOUT",
      "BROKER_NOT_FOUND",
      "BROKER_INVALID_REQUEST",
      "BROKER_UNAUTHORIZED",
      "BROKER_FORBIDDEN",
    ]) {
      expect(codes).toContain(code);
    }
    expect(events.length).toBeGreaterThan(3);

    const traces: string[] = [];
    for (const error of errors) {
      traces.push(
        error.message,
        error.stack ?? "",
        String(error),
        JSON.stringify(error),
        inspect(error, { depth: Infinity, showHidden: true }),
      );
      if (error.cause !== undefined) traces.push(inspect(error.cause, { depth: Infinity, showHidden: true }));
    }
    for (const event of events)
      traces.push(
        JSON.stringify(event),
        `retrying ${event.method} ${event.pathTemplate} (${event.reason}) in ${event.delayMs} ms`,
      );

    const secrets = [
      emulator.adminKey,
      service.accessKey,
      account.accessKey,
      service.serviceKeyPair?.privateKey ?? "",
      unknownKey,
      wrongApiKey,
    ];
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(8);
      const leaks = traces.filter((t) => t.includes(secret) || t.includes(encodeURIComponent(secret)));
      expect(leaks).toEqual([]);
    }
    // The redaction left the messages useful: templates, not blanks.
    expect(traces.join("\n")).toContain("/access-key/{accessKey}/permissions");
  });
});
