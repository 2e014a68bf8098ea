/**
 * The client's `signal` against the emulator: once it aborts, no request is sent and every wait ends
 * at once (a 10-minute `Retry-After` included), while a request already on the wire finishes and a
 * created object is never lost: a key's create reports its id, a workspace's create learns its id.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import {
  BrokerClient,
  createdAccessKeyOf,
  isBrokerCancelledError,
  isBrokerResultError,
} from "../../src/client";
import type { EmulatorControls, EmulatorHandle } from "../../src/emulator";
import { testClients } from "../support/client";
import { startControlledEmulator } from "../support/emulator";

let emulator: EmulatorHandle;
let controls: EmulatorControls;
const { clientOf, closeAll } = testClients(() => emulator);

/** Every item of an async iterator. */
async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Resolves once `found` answers true, asking the broker through a client nobody cancels. */
async function until(found: () => Promise<boolean>): Promise<void> {
  while (!(await found())) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * A client whose run can be cancelled, with `route` processed at once and answered two seconds
 * later: a create still on the wire when the run is cancelled. The abort follows the observer's
 * first sight of the object (a poll every 20 ms), so two seconds leave a busy machine's stalls
 * room, and cost the two cases 6 s less than the five they waited before (issue #50).
 */
async function cancellableWithSlowAnswer(
  route: string,
): Promise<{ client: BrokerClient; cancellation: AbortController }> {
  await controls.injectFault({ kind: "latency", latencyMs: 2000, phase: "after", routes: [route] });
  const cancellation = new AbortController();
  return { client: clientOf({ signal: cancellation.signal }), cancellation };
}

beforeEach(async () => {
  ({ emulator, controls } = await startControlledEmulator());
});

afterEach(async () => {
  await closeAll();
  await emulator.close();
});

const PERMISSIONS = { send: [], receive: [] };

describe("a cancelled client", () => {
  it("ends a wait on a 10-minute Retry-After at once and sends nothing more", async () => {
    await controls.injectFault({ kind: "429", retryAfter: 600, routes: ["POST /access-key"], count: 1 });
    const cancellation = new AbortController();
    const client = clientOf({ signal: cancellation.signal, rateLimitTimeoutSeconds: 900 });
    const create = client.createAccessKeyOnce({ name: "orders", type: "ACCOUNT", permissions: PERMISSIONS });
    const outcome = create.catch((error: unknown) => error);
    // The 429 has been answered: the call now waits out its Retry-After.
    await until(async () => (await controls.requests()).some((r) => r.status === 429));
    cancellation.abort();
    const error = await outcome;
    expect(isBrokerCancelledError(error)).toBe(true);
    expect((error as Error).message).toMatch(/cancelled.*run `pulumi up` again/su);
    expect((await controls.requests()).map((r) => `${r.route} ${r.status}`)).toEqual([
      "POST /access-key 429",
    ]);
  });

  it("ends the reads waiting for a page or a slot with BROKER_CANCELLED, each one", async () => {
    const setup = clientOf();
    const keys = await Promise.all(
      [0, 1, 2, 3].map((i) =>
        setup.createAccessKey({ name: `k${i}`, type: "ACCOUNT", permissions: PERMISSIONS }),
      ),
    );
    await controls.clearRequests();
    const cancellation = new AbortController();
    // One request every 4 s (the first too waits for its slot): after the first, the reads wait in
    // the coalescer for the next slot, far enough away that a stall of a busy machine between the
    // first request and the abort does not let it come first (at 1 a second, one could).
    const client = clientOf({
      signal: cancellation.signal,
      maxRequestsPerSecond: 0.25,
    });
    const first = client.getAccessKeyPermissions(keys[0]!.accessKey);
    await until(async () => (await controls.requests()).length > 0);
    // These begin after the first request was sent: they wait for the next slot, 4 s away.
    const reads = keys
      .slice(1)
      .map((k) => client.getAccessKeyPermissions(k.accessKey).catch((error: unknown) => error));
    await new Promise((resolve) => setTimeout(resolve, 50));
    cancellation.abort();
    expect((await first).name).toBe("k0");
    const outcomes = await Promise.all(reads);
    expect(outcomes.map((o) => isBrokerCancelledError(o))).toEqual([true, true, true]);
    expect(await controls.requests()).toHaveLength(1);
  });

  it("sends no request once cancelled, naming the operation it did not send", async () => {
    const cancellation = new AbortController();
    cancellation.abort();
    const client = clientOf({ signal: cancellation.signal });
    const error = await client.createWorkspace({ name: "orders" }).catch((e: unknown) => e);
    expect(isBrokerCancelledError(error)).toBe(true);
    expect((error as Error).message).toContain("POST /workspace was not sent");
    expect(await controls.requests()).toEqual([]);
  });

  it("lets a key's create on the wire finish and reports the created key when its read-back is cancelled", async () => {
    const { client, cancellation } = await cancellableWithSlowAnswer("POST /access-key");
    const outcome = client
      .createAccessKeyOnce({ name: "orders", type: "ACCOUNT", permissions: PERMISSIONS })
      .catch((error: unknown) => error);
    const observer = clientOf();
    await until(async () => (await all(observer.accessKeys())).some((k) => k.name === "orders"));
    cancellation.abort();
    const error = await outcome;
    // The key exists: the error says which one, and the created key (value included) is kept beside it.
    expect(isBrokerResultError(error)).toBe(true);
    const existing = (await all(observer.accessKeys())).find((k) => k.name === "orders");
    expect((error as { createdId?: number }).createdId).toBe(existing?.id);
    expect(createdAccessKeyOf(error)?.accessKeyId).toBe(existing?.id);
    expect(String(error)).not.toContain(existing?.key);
    // The read-back was not sent.
    expect((await controls.requests()).map((r) => r.route)).not.toContain(
      "GET /access-key/{accessKey}/permissions",
    );
  });

  it("finishes a workspace's create on the wire, learning its id though the run was cancelled", async () => {
    const { client, cancellation } = await cancellableWithSlowAnswer("POST /workspace");
    const outcome = client.createWorkspaceAndFind({ name: "orders" });
    const observer = clientOf();
    await until(async () => (await observer.workspaces().next()).done === false);
    cancellation.abort();
    const created = await outcome;
    const [existing] = await all(observer.workspaces());
    expect(created.id).toBe(existing?.id);
    expect(created.name).toBe("orders");
  });
});
