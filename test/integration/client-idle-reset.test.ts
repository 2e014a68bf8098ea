/**
 * The client against a server that closes a kept-alive connection just as the client sends on it:
 * the race of an HTTP client reusing an idle socket while the server's idle timer closes it. A
 * proxy in front of the emulator stands for that server: it closes the connection, unanswered, when
 * a chosen request arrives on a connection that already served one (so the request was sent and
 * never processed, as in the real race), and forwards everything else. No timer decides anything:
 * the close happens at the request's arrival.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";

import { afterEach, beforeEach, describe, expect, it } from "vitest";

import type { RetryEvent } from "../../src/client";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { apiRejection, testClients } from "../support/client";
import { apiOf } from "../support/emulator";

/** How the server ends the connection: a reset (RST, the client sees ECONNRESET) or a plain close (FIN). */
type Close = "reset" | "close";

/** One request as the proxy saw it. */
interface Arrival {
  method: string;
  path: string;
  /** Whether it came on a connection that had already served a request. */
  reused: boolean;
  /** Whether the proxy closed the connection instead of answering it. */
  dropped: boolean;
}

interface ClosingProxy {
  url: string;
  arrivals: Arrival[];
  /** Closes (once) the connection of the next request of `method` that arrives on a reused connection. */
  dropNextReused(method: string, how: Close): void;
  close(): Promise<void>;
}

async function startClosingProxy(upstream: EmulatorHandle): Promise<ClosingProxy> {
  const arrivals: Arrival[] = [];
  const served = new WeakMap<object, number>();
  let drop: { method: string; how: Close } | undefined;
  const server = http.createServer((req, res) => {
    const count = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, count);
    const arrival = { method: req.method ?? "", path: req.url ?? "", reused: count > 1, dropped: false };
    arrivals.push(arrival);
    if (drop !== undefined && arrival.reused && drop.method === arrival.method) {
      const { how } = drop;
      drop = undefined;
      arrival.dropped = true;
      if (how === "reset") req.socket.resetAndDestroy();
      else req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const name of ["x-api-key", "content-type", "user-agent"]) {
        const value = req.headers[name];
        if (typeof value === "string") headers[name] = value;
      }
      const init: RequestInit = { method: arrival.method, headers };
      if (chunks.length > 0) init.body = Buffer.concat(chunks);
      fetch(upstream.origin + arrival.path, init)
        .then(async (answer) => {
          res.writeHead(answer.status, {
            "content-type": answer.headers.get("content-type") ?? "text/plain",
          });
          res.end(await answer.text());
        })
        .catch((error: unknown) => {
          res.destroy(error instanceof Error ? error : new Error(String(error)));
        });
    });
  });
  // This server closes connections only as the test tells it, never on an idle timer of its own.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    arrivals,
    dropNextReused: (method, how) => {
      drop = { method, how };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

let emulator: EmulatorHandle;
let proxy: ClosingProxy;
const retries: RetryEvent[] = [];
// One connection, so every request after the first is sent on a kept-alive one; fast backoff.
const { clientOf, closeAll } = testClients(
  () => ({ url: proxy.url, adminKey: emulator.adminKey }),
  { maxConcurrency: 1, onRetry: (event) => retries.push(event) },
  { baseDelayMs: 1, maxDelayMs: 5 },
);

beforeEach(async () => {
  emulator = await startEmulator();
  proxy = await startClosingProxy(emulator);
  retries.length = 0;
});

afterEach(async () => {
  await closeAll();
  await proxy.close();
  await emulator.close();
});

describe.each<[Close, string]>([
  ["reset", "ECONNRESET"],
  ["close", "UND_ERR_SOCKET"],
])("a kept-alive connection the server ends (%s) as a request arrives", (how, reason) => {
  it("is retried on a new connection for a read, which then succeeds", async () => {
    const client = clientOf();
    await client.createWorkspace({ name: "before" });
    proxy.dropNextReused("GET", how);

    const page = await client.listWorkspaces({ pageIndex: 0 });

    expect(page.results.map((w) => w.name)).toEqual(["before"]);
    expect(proxy.arrivals.map(({ method, reused, dropped }) => [method, reused, dropped])).toEqual([
      ["POST", false, false],
      ["GET", true, true],
      ["GET", false, false],
    ]);
    expect(retries.map((r) => [r.method, r.pathTemplate, r.attempt, r.reason])).toEqual([
      ["GET", "/workspace", 1, reason],
    ]);
  });

  it("is never sent again for a create, which fails saying its outcome is unknown", async () => {
    const client = clientOf();
    await client.listWorkspaces({ pageIndex: 0 });
    proxy.dropNextReused("POST", how);

    const error = await apiRejection(client.createWorkspace({ name: "once" }));

    expect(error.outcomeUnknown).toBe(true);
    expect(proxy.arrivals.map(({ method, reused, dropped }) => [method, reused, dropped])).toEqual([
      ["GET", false, false],
      ["POST", true, true],
    ]);
    expect(retries).toEqual([]);
    // The server never read it, so nothing was made; the client could not know that, so it did not guess.
    expect(await apiOf(emulator).listAll("/workspace")).toEqual([]);
  });
});
