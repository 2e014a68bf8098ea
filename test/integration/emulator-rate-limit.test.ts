/**
 * The emulator's rate limit over real HTTP: set at start or through the controls, answering 429 with
 * Retry-After, counted. Time is the test's own clock (the `clock` option), so no assertion depends on
 * how fast this machine is. Every /v1 exchange is checked against openapi.yaml.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorControls } from "../../src/emulator";
import { ApiCaller, listQuery, startCheckedEmulator, type CheckedEmulator } from "../support/emulator";

let time = 0;
let checked: CheckedEmulator;
let api: ApiCaller;
let controls: EmulatorControls;

beforeAll(async () => {
  checked = await startCheckedEmulator({ clock: () => time });
  api = checked.api;
  controls = checked.emulator.controls!;
});
afterAll(async () => {
  await checked.close();
});
beforeEach(async () => {
  time = 0;
  await controls.reset();
});
afterEach(() => {
  expect(checked.contractProblems.splice(0)).toEqual([]);
});

/** The statuses of `count` sequential list calls with `key`. */
async function statuses(count: number, key?: string): Promise<number[]> {
  const result: number[] = [];
  for (let i = 0; i < count; i++) {
    const options = key === undefined ? { query: listQuery() } : { query: listQuery(), key };
    result.push((await api.get("/workspace", options)).status);
  }
  return result;
}

async function serviceKey(): Promise<string> {
  const response = await api.post("/access-key", { name: "svc", type: "SERVICE", permissions: {} });
  expect(response.status).toBe(201);
  return (response.body as { accessKey: string }).accessKey;
}

describe("rate limit through the controls", () => {
  it("admits N requests per second, answers the rest 429 rate_limited with Retry-After, and counts them", async () => {
    expect(await controls.rateLimit()).toEqual({ limit: null, rateLimitedResponses: 0 });
    expect(await controls.setRateLimit({ requestsPerSecond: 3 })).toEqual({
      limit: { requestsPerSecond: 3 },
      rateLimitedResponses: 0,
    });
    expect(await statuses(3)).toEqual([200, 200, 200]);
    time = 400;
    const refused = await api.get("/workspace", { query: listQuery() });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.body).toMatchObject({ code: "rate_limited" });
    expect((refused.body as { message: string }).message).toContain("3 requests per second per API key");
    time = 999;
    expect(await statuses(1)).toEqual([429]);
    time = 1000;
    expect(await statuses(4)).toEqual([200, 200, 200, 429]);
    expect(await controls.rateLimit()).toEqual({
      limit: { requestsPerSecond: 3 },
      rateLimitedResponses: 3,
    });
  });

  it("refuses before authentication and before the body is read: nothing is created", async () => {
    await controls.setRateLimit({ requestsPerSecond: 1 });
    expect((await api.post("/workspace", { name: "first", parentId: 0 })).status).toBe(201);
    expect((await api.post("/workspace", { name: "second", parentId: 0 })).status).toBe(429);
    expect((await controls.stats()).workspaces).toBe(1);
    // Requests without a key share one window of their own: the second is refused before the 401.
    const anonymous = async (): Promise<number> =>
      (await api.get("/workspace", { key: null, query: listQuery() })).status;
    expect([await anonymous(), await anonymous()]).toEqual([401, 429]);
  });

  it("marks the limiter's 429s in the request log, apart from injected 429 faults", async () => {
    await controls.setRateLimit({ requestsPerSecond: 1 });
    await controls.clearRequests();
    await statuses(2);
    time = 1000;
    await controls.injectFault({ kind: "429", count: 1 });
    await statuses(1);
    const log = await controls.requests();
    expect(log.map(({ status, fault, rateLimited }) => ({ status, fault, rateLimited }))).toEqual([
      { status: 200, fault: undefined, rateLimited: undefined },
      { status: 429, fault: undefined, rateLimited: true },
      { status: 429, fault: "429", rateLimited: undefined },
    ]);
    // The injected 429 struck before the service: it used none of the limit.
    expect(await statuses(1)).toEqual([200]);
    expect((await controls.rateLimit()).rateLimitedResponses).toBe(1);
  });

  it("keeps one window per API key by default, one for all with scope overall", async () => {
    const other = await serviceKey();
    // The SERVICE key is refused (403) by every route, but it is counted in its own window.
    await controls.setRateLimit({ requestsPerSecond: 2 });
    expect(await statuses(3)).toEqual([200, 200, 429]);
    expect(await statuses(3, other)).toEqual([403, 403, 429]);
    await controls.setRateLimit({ requestsPerSecond: 2, scope: "overall" });
    expect(await statuses(1)).toEqual([200]);
    expect(await statuses(2, other)).toEqual([403, 429]);
    expect(await statuses(1)).toEqual([429]);
  });

  it("is removed by DELETE and restored to the start's limit (none here) by reset", async () => {
    await controls.setRateLimit({ requestsPerSecond: 1 });
    await statuses(2);
    await controls.clearRateLimit();
    expect(await statuses(5)).toEqual([200, 200, 200, 200, 200]);
    expect(await controls.rateLimit()).toEqual({ limit: null, rateLimitedResponses: 1 });
    await controls.setRateLimit({ requestsPerSecond: 1 });
    await controls.reset();
    expect(await controls.rateLimit()).toEqual({ limit: null, rateLimitedResponses: 0 });
  });

  it("refuses a bad limit naming the field", async () => {
    for (const [body, field] of [
      [{ requestsPerSecond: 0 }, "body.requestsPerSecond"],
      [{ requestsPerSecond: 5, scope: "everyone" }, "body.scope"],
    ] as const) {
      const response = await fetch(`${controls.baseUrl}/rate-limit`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: "validation_failed", field });
    }
    expect((await controls.rateLimit()).limit).toBeNull();
  });
});

describe("rate limit from startEmulator", () => {
  it("applies from the first request and comes back after a reset", async () => {
    let now = 0;
    const emulator = await startEmulator({
      controls: true,
      rateLimit: { requestsPerSecond: 2, scope: "overall" },
      clock: () => now,
    });
    try {
      const caller = new ApiCaller(emulator.url, emulator.adminKey);
      const list = async (): Promise<number> =>
        (await caller.get("/workspace", { query: listQuery() })).status;
      expect([await list(), await list(), await list()]).toEqual([200, 200, 429]);
      await emulator.controls!.clearRateLimit();
      await emulator.controls!.reset();
      now = 5000;
      expect([await list(), await list(), await list()]).toEqual([200, 200, 429]);
      expect(await emulator.controls!.rateLimit()).toEqual({
        limit: { requestsPerSecond: 2, scope: "overall" },
        rateLimitedResponses: 1,
      });
    } finally {
      await emulator.close();
    }
  });

  it("refuses a bad limit before it listens", async () => {
    await expect(startEmulator({ rateLimit: { requestsPerSecond: 0.5 } })).rejects.toThrow(
      /options\.rateLimit\.requestsPerSecond must be an integer/,
    );
  });
});
