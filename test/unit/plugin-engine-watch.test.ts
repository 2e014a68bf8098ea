import { Server } from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { watchEngine, type EngineWatch } from "../../src/engine/engine-watch";
import { HEALTH_SERVICE, SERVING } from "../../harness/engine-stand-in.mts";
import { listenOnLoopback } from "../support/plugin-server";

/** A stand-in for the engine's gRPC server: with the health service, or with no service at all. */
async function startEngine(withHealth: boolean): Promise<{ address: string; stop: () => void }> {
  const server = new Server();
  if (withHealth) {
    server.addService(HEALTH_SERVICE, {
      check: (_call: unknown, callback: (error: null, response: Buffer) => void) => {
        callback(null, SERVING);
      },
    });
  }
  const port = await listenOnLoopback(server);
  return {
    address: `127.0.0.1:${port}`,
    stop: () => {
      server.forceShutdown();
    },
  };
}

const watches: EngineWatch[] = [];
afterEach(() => {
  for (const watch of watches.splice(0)) watch.stop();
});

/**
 * Watches `address` with a short interval; resolves `alive` after `aliveChecks` successful checks
 * in a row (failing if the engine was declared gone first) and `gone` with onGone's reason;
 * `goneYet` tells whether onGone has been called so far.
 */
function watch(address: string, aliveChecks: number) {
  let resolveAlive: () => void = () => undefined;
  let resolveGone: (reason: string) => void = () => undefined;
  const alive = new Promise<void>((resolve) => (resolveAlive = resolve));
  const gone = new Promise<string>((resolve) => (resolveGone = resolve));
  let isGone = false;
  void gone.then(() => (isGone = true));
  const outcomes: boolean[] = [];
  let inARow = 0;
  watches.push(
    watchEngine({
      address,
      // Each check's deadline is the interval: a short one makes a busy machine's slow answer count
      // as a failed check (two in a row: "gone"). Half a second holds with every core busy.
      intervalMs: 500,
      onCheck: (ok) => {
        outcomes.push(ok);
        inARow = ok ? inARow + 1 : 0;
        if (inARow === aliveChecks) resolveAlive();
      },
      onGone: resolveGone,
    }),
  );
  return { alive, gone, outcomes, goneYet: () => isGone };
}

/**
 * Starts an engine (with or without the health service), watches it with `checks` checks until it is
 * seen alive (and not gone), then stops it.
 */
async function watchUntilStopped(health: boolean, checks: number) {
  const engine = await startEngine(health);
  const watched = watch(engine.address, checks);
  await watched.alive;
  expect(watched.goneYet()).toBe(false);
  engine.stop();
  return { engine, watched };
}

describe("watchEngine", () => {
  it("stays quiet while the engine answers, and reports it gone once it stops", async () => {
    const { engine, watched } = await watchUntilStopped(true, 4);
    expect(await watched.gone).toContain(`the engine at ${engine.address} stopped answering`);
    // Two failed checks in a row, not one: a moment's hiccup is not a dead engine.
    expect(watched.outcomes.slice(-2)).toEqual([false, false]);
  });

  it("takes an engine without the health service (UNIMPLEMENTED) for alive", async () => {
    const { watched } = await watchUntilStopped(false, 3);
    await watched.gone;
  });

  it("reports an engine that never listened as gone", async () => {
    const engine = await startEngine(true);
    engine.stop();
    const watched = watch(engine.address, 1);
    expect(await watched.gone).toMatch(/stopped answering/u);
    expect(watched.outcomes).toEqual([false, false]);
  });
});
