import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";

import { afterEach, describe, expect, it } from "vitest";

import {
  BrokerClient,
  DEFAULT_USER_AGENT,
  getBrokerClient,
  type BrokerClientOptions,
  isBrokerCancelledError,
  isBrokerSettingsError,
  type RateLimitWaitEvent,
  type RetryEvent,
} from "../../src/client";
import { RatePacer } from "../../src/client/rate-limit";
import { apiRejection } from "../support/client";

const API_KEY = "bka_unit_admin_secret";
const KEY = "bks_key/with+odd chars";

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Reply = (seen: Seen, res: http.ServerResponse) => void;

/** A loopback server that records every request and answers with `reply`. */
const servers: http.Server[] = [];
async function serve(reply: Reply): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const entry = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
      seen.push(entry);
      reply(entry, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen };
}
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

function json(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: http.OutgoingHttpHeaders = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

/**
 * Timing that records waits instead of waiting; its clock moves by the waits only, as if they were
 * real. Every jitter draw is `random`.
 */
function fakeTiming(random = 0.5): {
  sleeps: number[];
  timing: { sleep: (ms: number) => Promise<void>; now: () => number; random: () => number };
} {
  const sleeps: number[] = [];
  let clock = Date.parse("2025-01-01T00:00:00Z");
  return {
    sleeps,
    timing: {
      sleep: (ms) => {
        sleeps.push(ms);
        clock += ms;
        return Promise.resolve();
      },
      now: () => clock,
      random: () => random,
    },
  };
}

function makeClient(
  url: string,
  extra: Partial<ConstructorParameters<typeof BrokerClient>[0]> = {},
  timing = fakeTiming().timing,
): BrokerClient {
  return new BrokerClient({ baseUrl: url, apiKey: API_KEY, ...extra }, { timing });
}

const record = (id: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  id,
  name: `k${id}`,
  key: `bka_${id}`,
  type: "ACCOUNT",
  permissions: { send: ["a"], receive: [], resources: {} },
  createdAt: "2025-01-01T00:00:00.000Z",
  ...extra,
});

describe("requests", () => {
  it("sends the API key, user agent and JSON headers to the base URL's path", async () => {
    const { url, seen } = await serve((_s, res) => {
      json(res, 200, { message: "ok" });
    });
    await makeClient(`${url}/`).updateAccessKeyPermissions(KEY, {
      send: ["a/*"],
      receive: [],
      resources: {},
    });
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request?.method).toBe("POST");
    expect(request?.url).toBe(`/v1/access-key/${encodeURIComponent(KEY)}/permissions`);
    expect(request?.headers).toMatchObject({
      "x-api-key": API_KEY,
      "user-agent": DEFAULT_USER_AGENT,
      accept: "application/json",
      "content-type": "application/json",
    });
    expect(JSON.parse(request?.body ?? "")).toEqual({ send: ["a/*"], receive: [], resources: {} });
    expect(DEFAULT_USER_AGENT).toMatch(/^pulumi-broker-config\/\d+\.\d+\.\d+/);
  });

  it("sends no content type without a body, and a custom user agent when given", async () => {
    const { url, seen } = await serve((_s, res) => {
      json(res, 200, { status: true });
    });
    await makeClient(url, { userAgent: "custom/1" }).verifyAccessKey("bka_x");
    expect(seen[0]?.headers["content-type"]).toBeUndefined();
    expect(seen[0]?.headers["user-agent"]).toBe("custom/1");
    expect(seen[0]?.url).toBe("/v1/access/verify/bka_x");
  });

  it("lists with the defaults limit 100, order ASC, orderBy createdAt", async () => {
    const { url, seen } = await serve((_s, res) => {
      json(res, 200, { resultsLength: 0, results: [] });
    });
    await makeClient(url).listAccessKeys({ pageIndex: 2 });
    await makeClient(url).listWorkspaces({
      pageIndex: 0,
      name: "a b",
      id: 7,
      limit: 5,
      order: "DESC",
      orderBy: "name",
    });
    expect(new URL(seen[0]?.url ?? "", "http://x").searchParams.toString()).toBe(
      "limit=100&order=ASC&orderBy=createdAt&pageIndex=2",
    );
    expect(Object.fromEntries(new URL(seen[1]?.url ?? "", "http://x").searchParams)).toEqual({
      limit: "5",
      order: "DESC",
      orderBy: "name",
      pageIndex: "0",
      name: "a b",
      id: "7",
    });
  });

  it("sends parentId only when it is positive", async () => {
    const { url, seen } = await serve((_s, res) => {
      json(res, 201, { message: "created" });
    });
    const client = makeClient(url);
    await client.createWorkspace({ name: "top" });
    await client.createWorkspace({ name: "zero", parentId: 0 });
    await client.createWorkspace({ name: "child", parentId: 3 });
    expect(seen.map((s) => JSON.parse(s.body) as unknown)).toEqual([
      { name: "top" },
      { name: "zero" },
      { name: "child", parentId: 3 },
    ]);
  });

  it("sends the key in the rotation body as access_key", async () => {
    const { url, seen } = await serve((_s, res) => {
      json(res, 200, { public_key: "pub", private_key: "priv" });
    });
    await expect(makeClient(url).rotateServiceKeyPair(KEY)).resolves.toEqual({
      publicKey: "pub",
      privateKey: "priv",
    });
    expect(seen[0]).toMatchObject({ method: "PUT", url: "/v1/access/service-key-pair" });
    expect(JSON.parse(seen[0]?.body ?? "")).toEqual({ access_key: KEY });
  });

  it("caps requests in flight at maxConcurrency", async () => {
    let inFlight = 0;
    let peak = 0;
    // The server answers requests in pairs: each waits until a second one is in flight, so the cap
    // is reached however slowly the machine sends them, and a third sent beside them (a cap that
    // does not hold) is counted before the pair is answered.
    const held: (() => void)[] = [];
    const { url } = await serve((_s, res) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      held.push(() => {
        inFlight--;
        json(res, 200, { status: true });
      });
      if (held.length === 2) {
        const pair = held.splice(0);
        setTimeout(() => {
          for (const answer of pair) answer();
        }, 20);
      }
    });
    const client = makeClient(url, { maxConcurrency: 2 });
    await Promise.all(Array.from({ length: 8 }, () => client.verifyAccessKey("bka_x")));
    expect(peak).toBe(2);
  });
});

describe("responses", () => {
  it("normalises the create response: a string accessKeyId becomes a number, the pair is camel-cased", async () => {
    const { url } = await serve((_s, res) => {
      json(res, 201, {
        accessKey: "bks_1",
        accessKeyId: "17",
        service_key_pair: { public_key: "pub", private_key: "priv" },
        extra: "dropped",
      });
    });
    await expect(
      makeClient(url).createAccessKey({ name: "n", type: "SERVICE", permissions: { send: [] } }),
    ).resolves.toEqual({
      accessKey: "bks_1",
      accessKeyId: 17,
      serviceKeyPair: { publicKey: "pub", privateKey: "priv" },
    });
  });

  it("fills missing permission members and drops unknown fields of records", async () => {
    const { url } = await serve((_s, res) => {
      json(res, 200, record(3, { permissions: { send: ["x"] }, secretField: 1, type: "account" }));
    });
    await expect(makeClient(url).getAccessKeyPermissions("bka_3")).resolves.toEqual({
      id: 3,
      name: "k3",
      key: "bka_3",
      type: "ACCOUNT",
      permissions: { send: ["x"], receive: [], resources: {} },
      createdAt: "2025-01-01T00:00:00.000Z",
    });
  });

  it("reads workspaces with nested children and a null parentId as top level", async () => {
    const child = { id: 2, name: "c", path: "/p/c", parentId: 1, createdAt: "t", children: [] };
    const { url } = await serve((_s, res) => {
      json(res, 200, {
        resultsLength: 1,
        results: [{ id: 1, name: "p", path: "/p", parentId: null, createdAt: "t", children: [child], x: 1 }],
      });
    });
    await expect(makeClient(url).getWorkspace(1)).resolves.toEqual({
      id: 1,
      name: "p",
      path: "/p",
      parentId: 0,
      createdAt: "t",
      children: [child],
    });
  });

  it.each([
    ["a missing results array", { resultsLength: 0 }, "body.results is a undefined, expected an array"],
    [
      "a record without an id",
      { results: [{ ...record(1), id: "x" }] },
      "body.results[0].id is a string, expected an integer",
    ],
    [
      "an unknown key type",
      { results: [record(1, { type: "ROOT" })] },
      "body.results[0].type is not ACCOUNT or SERVICE",
    ],
    [
      "a non-string path",
      { results: [record(1, { permissions: { send: [1] } })] },
      "body.results[0].permissions.send[0]",
    ],
  ])("rejects %s as BROKER_BAD_RESPONSE, naming the position, not the value", async (_, body, detail) => {
    const { url } = await serve((_s, res) => {
      json(res, 200, body);
    });
    const error = await apiRejection(makeClient(url).listAccessKeys({ pageIndex: 0 }));
    expect(error.code).toBe("BROKER_BAD_RESPONSE");
    expect(error.message).toContain(detail);
  });

  it("marks a bad 2xx body on a create as outcome unknown: the object exists, its answer is unusable", async () => {
    const { url } = await serve((_s, res) => {
      json(res, 201, { accessKey: 5 });
    });
    const error = await apiRejection(
      makeClient(url).createAccessKey({ name: "n", type: "ACCOUNT", permissions: {} }),
    );
    expect(error).toMatchObject({ code: "BROKER_BAD_RESPONSE", outcomeUnknown: true });
  });
});

describe("verifyAccessKey", () => {
  it.each([
    [200, { status: true }, true],
    [200, { status: false }, false],
    [401, { code: "unauthorized" }, false],
    [403, { code: "forbidden" }, false],
    [404, { code: "not_found" }, false],
  ])("answers %i %j as %s", async (status, body, expected) => {
    const { url } = await serve((_s, res) => {
      json(res, status, body);
    });
    await expect(makeClient(url).verifyAccessKey("bka_x")).resolves.toBe(expected);
  });

  it("throws on a server error: it says nothing about the key", async () => {
    const { url } = await serve((_s, res) => {
      json(res, 500, {});
    });
    await expect(makeClient(url).verifyAccessKey("bka_x")).rejects.toMatchObject({
      code: "BROKER_SERVER_ERROR",
    });
  });
});

/** Answers the first `failures` requests with `fail`, then 200 with `body`. */
function flaky(failures: number, fail: Reply, body: unknown): Reply {
  let n = 0;
  return (seen, res) => {
    if (n++ < failures) fail(seen, res);
    else json(res, 200, body);
  };
}

describe("retries", () => {
  it("honours Retry-After on 429 and reports each retry without secrets", async () => {
    const { url, seen } = await serve(
      flaky(
        2,
        (_s, res) => {
          json(res, 429, {}, { "retry-after": "1" });
        },
        { status: true },
      ),
    );
    const { sleeps, timing } = fakeTiming();
    const events: RetryEvent[] = [];
    const client = makeClient(url, { onRetry: (e) => events.push(e) }, timing);
    await expect(client.verifyAccessKey(KEY)).resolves.toBe(true);
    expect(seen).toHaveLength(3);
    expect(sleeps).toEqual([1000, 1000]);
    expect(events).toEqual([
      { method: "GET", pathTemplate: "/access/verify/{accessKey}", attempt: 1, delayMs: 1000, reason: "429" },
      { method: "GET", pathTemplate: "/access/verify/{accessKey}", attempt: 2, delayMs: 1000, reason: "429" },
    ]);
  });

  it("backs off exponentially with jitter on 503 when Retry-After is missing", async () => {
    const { url } = await serve(
      flaky(
        3,
        (_s, res) => {
          json(res, 503, {});
        },
        { status: true },
      ),
    );
    const { sleeps, timing } = fakeTiming();
    await makeClient(url, {}, timing).verifyAccessKey("bka_x");
    expect(sleeps).toEqual([100, 200, 400]);
  });

  it("retries a create after 429: the server did not process it", async () => {
    const { url, seen } = await serve(
      flaky(
        1,
        (_s, res) => {
          json(res, 429, {});
        },
        { message: "created" },
      ),
    );
    await makeClient(url).createWorkspace({ name: "w" });
    expect(seen).toHaveLength(2);
  });

  it("does not retry a create after a reset: it may have been processed", async () => {
    const { url, seen } = await serve(flaky(1, (_s, res) => res.socket?.destroy(), { message: "created" }));
    const error = await apiRejection(makeClient(url).createWorkspace({ name: "w" }));
    expect(seen).toHaveLength(1);
    expect(error).toMatchObject({ code: "BROKER_CONNECTION_FAILED", outcomeUnknown: true, attempts: 1 });
    expect(error.message).toContain("may have been applied");
  });

  it("retries a repeatable POST after a reset", async () => {
    const { url, seen } = await serve(flaky(1, (_s, res) => res.socket?.destroy(), { message: "ok" }));
    await makeClient(url).updateAccessKeyPermissions("bka_x", { send: [], receive: [], resources: {} });
    expect(seen).toHaveLength(2);
  });

  it("fails at once, saying so, when Retry-After exceeds the rate-limit budget", async () => {
    const { url, seen } = await serve((_s, res) => {
      json(res, 429, { message: "slow down" }, { "retry-after": "120" });
    });
    const { sleeps, timing } = fakeTiming();
    const client = makeClient(url, { rateLimitTimeoutSeconds: 60 }, timing);
    const error = await apiRejection(client.listWorkspaces({ pageIndex: 0 }));
    expect(seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(error.code).toBe("BROKER_RATE_LIMITED");
    expect(error.message).toContain(
      "the server asked to wait 120 s, more than is left of the rate-limit budget (the rateLimitTimeoutSeconds option: 60 s); raise the rateLimitTimeoutSeconds option, or set the maxRequestsPerSecond option to the broker's limit",
    );
    expect(error.message).not.toContain("maxConcurrency");
  });

  it("waits out 429s without counting them against maxRetries, until the rate-limit budget is spent, and says how many attempts were made", async () => {
    const { url, seen } = await serve((_s, res) => {
      json(res, 429, {});
    });
    const { sleeps, timing } = fakeTiming();
    const client = makeClient(url, { maxRetries: 0, rateLimitTimeoutSeconds: 3 }, timing);
    const error = await apiRejection(client.listWorkspaces({ pageIndex: 0 }));
    // Without Retry-After each 429 blocks for 1 s: 3 s of waits fit the budget, a fourth does not.
    expect(sleeps).toEqual([1000, 1000, 1000]);
    expect(seen).toHaveLength(4);
    expect(error.attempts).toBe(4);
    expect(error.message).toContain("(after 4 attempts)");
    expect(error.message).toContain("rate limited the request after 4 attempts");
  });

  it("stops when the time budget is spent", async () => {
    const { url, seen } = await serve((_s, res) => {
      json(res, 503, {});
    });
    const { timing } = fakeTiming(0.999);
    const error = await apiRejection(
      makeClient(url, { maxRetries: 50, maxRetryTimeMs: 1000 }, timing).verifyAccessKey("k"),
    );
    // Delays ~200, ~400 fit in 1000 ms; the next (~800) does not.
    expect(seen).toHaveLength(3);
    expect(error.message).toContain("the retry budget (maxRetryTimeMs 1000 ms) ran out");
  });

  it("ignores a throwing onRetry listener", async () => {
    const { url } = await serve(
      flaky(
        1,
        (_s, res) => {
          json(res, 503, {});
        },
        { status: true },
      ),
    );
    const client = makeClient(url, {
      onRetry: () => {
        throw new Error("listener bug");
      },
    });
    await expect(client.verifyAccessKey("k")).resolves.toBe(true);
  });
});

describe("rate limits", () => {
  it("takes no slot of the pace for a call made once the run was cancelled, and sends nothing", async () => {
    const { url, seen } = await serve((_s, res) => {
      json(res, 200, { status: true });
    });
    const { timing } = fakeTiming();
    const pacer = new RatePacer(timing);
    const cancellation = new AbortController();
    cancellation.abort();
    const options = { baseUrl: url, apiKey: API_KEY, maxRequestsPerSecond: 1, signal: cancellation.signal };
    const client = new BrokerClient(options, { timing, pacer });
    const error = await client.verifyAccessKey("bka_x").catch((e: unknown) => e);
    expect(isBrokerCancelledError(error)).toBe(true);
    expect((error as Error).message).toContain("GET /access/verify/{accessKey} was not sent");
    // A slot taken would put the next request a second (at the quota's pace) later.
    expect(pacer.nextSlotInMs(1)).toBe(0);
    expect(seen).toEqual([]);
    await client.close();
  });

  it("waits out a 429 on a create and sends it again, even with maxRetries 0: the server did not process it", async () => {
    const { url, seen } = await serve(
      flaky(
        2,
        (_s, res) => {
          json(res, 429, {}, { "retry-after": "2" });
        },
        { message: "created" },
      ),
    );
    const { sleeps, timing } = fakeTiming();
    await makeClient(url, { maxRetries: 0 }, timing).createWorkspace({ name: "w" });
    expect(seen).toHaveLength(3);
    expect(sleeps).toEqual([2000, 2000]);
  });

  it("honours Retry-After given as an HTTP date", async () => {
    // fakeTiming's clock starts at 2025-01-01T00:00:00Z.
    const { url } = await serve(
      flaky(
        1,
        (_s, res) => {
          json(res, 429, {}, { "retry-after": "Wed, 01 Jan 2025 00:00:30 GMT" });
        },
        { status: true },
      ),
    );
    const { sleeps, timing } = fakeTiming();
    await makeClient(url, {}, timing).verifyAccessKey("bka_x");
    expect(sleeps).toEqual([30_000]);
  });

  it("holds a request back while another client of the process waits on a 429, and says so", async () => {
    const { url, seen } = await serve((_s, res) => {
      json(res, 200, { status: true });
    });
    const { sleeps, timing } = fakeTiming();
    const pacer = new RatePacer(timing);
    // Another client sharing the pacer was just refused with Retry-After: 5.
    pacer.reserve();
    pacer.rateLimited(timing.now(), 5_000);
    const waits: RateLimitWaitEvent[] = [];
    const client = new BrokerClient(
      { baseUrl: url, apiKey: API_KEY, onRateLimitWait: (e) => waits.push(e) },
      { timing, pacer },
    );
    await client.verifyAccessKey("bka_x");
    expect(seen).toHaveLength(1);
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(5_000);
    expect(sleeps[0]).toBeLessThanOrEqual(6_000);
    expect(waits).toEqual([
      {
        method: "GET",
        pathTemplate: "/access/verify/{accessKey}",
        waitMs: sleeps[0],
        reason: "retry-after",
        pace: 1,
      },
    ]);
    await client.close();
  });

  it("fails without sending when another request's Retry-After outlasts the rate-limit budget", async () => {
    const { url, seen } = await serve((_s, res) => {
      json(res, 200, { status: true });
    });
    const { sleeps, timing } = fakeTiming();
    const pacer = new RatePacer(timing);
    pacer.reserve();
    pacer.rateLimited(timing.now(), 3_600_000);
    const client = new BrokerClient(
      { baseUrl: url, apiKey: API_KEY, rateLimitTimeoutSeconds: 300 },
      { timing, pacer },
    );
    const error = await apiRejection(client.verifyAccessKey("bka_x"));
    expect(seen).toHaveLength(0);
    expect(sleeps).toEqual([]);
    expect(error).toMatchObject({ code: "BROKER_RATE_LIMITED", status: 429, attempts: 0 });
    // The block plus the jitter of a request queued behind it (at most 2 s).
    expect(error.message).toMatch(
      /rate limited the request before it was sent; waiting 360[0-2] s more would exceed the rate-limit budget \(the rateLimitTimeoutSeconds option: 300 s\)/,
    );
    await client.close();
  });

  it("paces requests at a known quota from the first one, without a 429", async () => {
    const { url, seen } = await serve((_s, res) => {
      json(res, 200, { status: true });
    });
    const { sleeps, timing } = fakeTiming();
    const client = makeClient(url, { maxRequestsPerSecond: 2 }, timing);
    for (let i = 0; i < 3; i++) await client.verifyAccessKey("bka_x");
    expect(seen).toHaveLength(3);
    // 2 per second at KNOWN_QUOTA_SHARE (0.95) of it: slots 526.3 ms apart, each wait rounded up.
    expect(sleeps).toEqual([527, 526]);
  });

  it("ignores a throwing onRateLimitWait listener", async () => {
    const { url } = await serve((_s, res) => {
      json(res, 200, { status: true });
    });
    const { timing } = fakeTiming();
    const client = makeClient(
      url,
      {
        maxRequestsPerSecond: 0.5,
        onRateLimitWait: () => {
          throw new Error("listener bug");
        },
      },
      timing,
    );
    await client.verifyAccessKey("bka_x");
    await expect(client.verifyAccessKey("bka_x")).resolves.toBe(true);
  });
});

describe("paging", () => {
  function pages(total: number): Reply {
    return (seen, res) => {
      const query = new URL(seen.url, "http://x").searchParams;
      const limit = Number(query.get("limit"));
      const start = Number(query.get("pageIndex")) * limit;
      const ids = Array.from(
        { length: Math.max(0, Math.min(limit, total - start)) },
        (_, i) => start + i + 1,
      );
      json(res, 200, { resultsLength: ids.length, results: ids.map((id) => record(id)) });
    };
  }

  it("iterates every page and stops on the first short page", async () => {
    const { url, seen } = await serve(pages(250));
    const ids: number[] = [];
    for await (const r of makeClient(url).accessKeys()) ids.push(r.id);
    expect(ids).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    expect(seen).toHaveLength(3);
  });

  it("asks for one more page when the last one is exactly full", async () => {
    const { url, seen } = await serve(pages(20));
    const ids: number[] = [];
    for await (const r of makeClient(url).accessKeys({ limit: 10 })) ids.push(r.id);
    expect(ids).toHaveLength(20);
    expect(seen).toHaveLength(3);
  });

  it("fetches lazily: stopping early sends no further requests", async () => {
    const { url, seen } = await serve(pages(1000));
    const found = await makeClient(url).findAccessKeyById(150);
    expect(found?.id).toBe(150);
    expect(seen).toHaveLength(2);
  });

  it("returns undefined when no key has the id", async () => {
    const { url } = await serve(pages(5));
    await expect(makeClient(url).findAccessKeyById(99)).resolves.toBeUndefined();
  });

  it("getWorkspace sends one filtered request and ignores records with another id", async () => {
    const { url, seen } = await serve((_s, res) => {
      json(res, 200, {
        resultsLength: 1,
        results: [{ id: 8, name: "x", path: "/x", parentId: 0, createdAt: "t" }],
      });
    });
    await expect(makeClient(url).getWorkspace(7)).resolves.toBeUndefined();
    expect(seen).toHaveLength(1);
    expect(seen[0]?.url).toContain("id=7");
  });
});

describe("redaction", () => {
  it("keeps the API key and the key value out of every trace of a failure", async () => {
    // A server that echoes everything it got, secrets included.
    const { url } = await serve((seen, res) => {
      json(res, 400, {
        message: `bad key ${KEY} ${encodeURIComponent(KEY)} from ${String(seen.headers["x-api-key"])}`,
        field: KEY,
      });
    });
    const error = await apiRejection(makeClient(url).getAccessKeyPermissions(KEY));
    expect(error.serverMessage).toBe("bad key [REDACTED] [REDACTED] from [REDACTED]");
    const traces = [
      error.message,
      error.stack ?? "",
      String(error),
      JSON.stringify(error),
      inspect(error, { depth: 5 }),
    ];
    for (const text of traces) {
      for (const secret of [API_KEY, KEY, encodeURIComponent(KEY)]) expect(text).not.toContain(secret);
    }
    expect(error.message).toContain("/access-key/{accessKey}/permissions");
  });

  it("keeps the key value out of a network failure's cause", async () => {
    const { url } = await serve((_s, res) => res.socket?.destroy());
    const events: RetryEvent[] = [];
    const error = await apiRejection(
      makeClient(url, { maxRetries: 1, onRetry: (e) => events.push(e) }).rotateServiceKeyPair(KEY),
    );
    const traces = [
      inspect(error, { depth: 10 }),
      JSON.stringify(error),
      JSON.stringify(events),
      String(error.cause),
    ];
    for (const text of traces) for (const secret of [API_KEY, KEY]) expect(text).not.toContain(secret);
    // Only a scrubbed copy is kept, never undici's error with its socket and request.
    expect(Object.keys(error.cause as object).sort()).toEqual(["code", "name"]);
  });

  it("keeps the API key out of util.inspect and JSON of the client", () => {
    const client = makeClient("http://127.0.0.1:9/v1");
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(API_KEY);
    expect(JSON.stringify(client)).not.toContain(API_KEY);
  });
});

describe("client options", () => {
  it.each([
    ["a base URL without /v1", { baseUrl: "http://127.0.0.1/v2" }, "BROKER_SETTINGS_INVALID"],
    ["an ftp base URL", { baseUrl: "ftp://127.0.0.1/v1" }, "BROKER_SETTINGS_INVALID"],
    ["an empty API key", { apiKey: "" }, "BROKER_SETTINGS_MISSING"],
    ["a zero timeout", { timeoutMs: 0 }, "BROKER_SETTINGS_INVALID"],
    ["a negative maxRetries", { maxRetries: -1 }, "BROKER_SETTINGS_INVALID"],
    ["a fractional maxConcurrency", { maxConcurrency: 1.5 }, "BROKER_SETTINGS_INVALID"],
    ["a negative rateLimitTimeoutSeconds", { rateLimitTimeoutSeconds: -1 }, "BROKER_SETTINGS_INVALID"],
    ["a zero maxRequestsPerSecond", { maxRequestsPerSecond: 0 }, "BROKER_SETTINGS_INVALID"],
    ["an infinite maxRequestsPerSecond", { maxRequestsPerSecond: Infinity }, "BROKER_SETTINGS_INVALID"],
  ])("refuses %s", (_, options, code) => {
    let thrown: unknown;
    try {
      new BrokerClient({ baseUrl: "http://127.0.0.1/v1", apiKey: API_KEY, ...options });
    } catch (error) {
      thrown = error;
    }
    expect(isBrokerSettingsError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code });
  });

  it("normalises a trailing slash of the base URL", () => {
    expect(makeClient("http://127.0.0.1:9/v1/").baseUrl).toBe("http://127.0.0.1:9/v1");
  });

  it("shares one client per settings and replaces a closed one", async () => {
    const options = { baseUrl: "http://127.0.0.1:9/v1", apiKey: API_KEY };
    const first = getBrokerClient(options);
    expect(getBrokerClient({ ...options, baseUrl: "http://127.0.0.1:9/v1/" })).toBe(first);
    expect(getBrokerClient({ ...options, apiKey: "other" })).not.toBe(first);
    expect(getBrokerClient({ ...options, maxConcurrency: 3 })).not.toBe(first);
    await first.close();
    const second = getBrokerClient(options);
    expect(second).not.toBe(first);
    await second.close();
  });

  it("tells every option apart, and a default given equals one left out", async () => {
    const options = { baseUrl: "http://127.0.0.1:8/v1", apiKey: API_KEY };
    const first = getBrokerClient(options);
    const changed: Partial<BrokerClientOptions>[] = [
      { timeoutMs: 1234 },
      { maxRetries: 1 },
      { maxRetryTimeMs: 1 },
      { maxConcurrency: 2 },
      { userAgent: "other/1" },
      { rateLimitTimeoutSeconds: 1 },
      { maxRequestsPerSecond: 5 },
      { settingNames: { apiKey: "MY_KEY" } },
      { onRetry: () => undefined },
      { onRateLimitWait: () => undefined },
    ];
    const others = changed.map((change) => getBrokerClient({ ...options, ...change }));
    for (const other of others) expect(other).not.toBe(first);
    expect(new Set(others).size).toBe(changed.length);
    expect(getBrokerClient({ ...options, maxConcurrency: 8 })).toBe(first);
    await Promise.all([first, ...others].map((client) => client.close()));
  });
});
