/**
 * host: access key creates per second through the real provider host (gRPC, check, create with its
 * read-back) against the same number of raw `POST /access-key` requests through undici, at the same
 * concurrency, against one emulator process. Two more variants say where the difference goes: raw
 * creates each followed by the read-back GET (the requests our create sends, without the host), and
 * the provider host serving a provider that does nothing (the host's own cost).
 */
import { Pool } from "undici";
import type * as EmulatorModule from "../../src/emulator/index.ts";
import { startEmulatorProcess } from "../../harness/emulator-process.mts";
import { ProviderHost, urnOf } from "../../harness/provider-host.mts";
import type { BenchContext } from "../lib/context.mts";
import { dist } from "../lib/repo.mts";
import { round, runConcurrently } from "../lib/stats.mts";

/** Keys created per round. */
export const KEYS = 200;
/** Operations in flight: the engine's default parallelism on this machine, and our client's connection cap. */
export const CONCURRENCY = 8;
/** Rounds per variant; the best of each counts (the least disturbed by other load on the machine). */
export const ROUNDS = 2;

/** What the section measured. */
export interface HostResult {
  n: number;
  concurrency: number;
  /** Through the provider host, our AccessKey provider. */
  createsPerSecond: number;
  /** Raw `POST /access-key`. */
  rawCreatesPerSecond: number;
  /** rawCreatesPerSecond / createsPerSecond. */
  ratio: number;
  /** Raw `POST /access-key` then `GET .../permissions`: our create's requests without the host. */
  rawWithReadBackPerSecond: number;
  /** Through the provider host, a provider that does nothing: the host's own floor. */
  noopHostCreatesPerSecond: number;
  /** Requests one host create sends, as counted by the emulator. */
  requestsPerCreate: number;
}

type Variant = "ours" | "raw" | "rawWithReadBack" | "noopHost";

/** Creates {@link KEYS} keys per variant, {@link ROUNDS} times each, alternating variants. */
export async function measureHost(
  ctx: BenchContext,
  providers: { accessKey: string; noop: string },
): Promise<HostResult> {
  const { EmulatorControls } = await dist<typeof EmulatorModule>("emulator/index.js");
  const emulator = await startEmulatorProcess();
  ctx.secrets.add(emulator.adminKey);
  const controls = new EmulatorControls(emulator.controlUrl);
  const host = await ProviderHost.start(ctx.fixture, {
    BROKER_BASE_URL: undefined,
    BROKER_API_KEY: undefined,
  });
  const pool = new Pool(new URL(emulator.url).origin, { connections: CONCURRENCY });
  const basePath = new URL(emulator.url).pathname;
  const inputs = (name: string) => ({
    name,
    type: "SERVICE",
    permissions: { send: [`orders/${name}`], receive: [] },
  });
  const viaHost = async (provider: string, name: string): Promise<void> => {
    const urn = urnOf("AccessKey", name);
    const checked = await host.check(urn, {}, { ...inputs(name), __provider: provider });
    await host.create(urn, checked.inputs);
  };
  const raw = async (name: string, readBack: boolean): Promise<void> => {
    const response = await pool.request({
      method: "POST",
      path: `${basePath}/access-key`,
      headers: { "content-type": "application/json", "x-api-key": emulator.adminKey },
      body: JSON.stringify(inputs(name)),
    });
    if (response.statusCode !== 201) throw new Error(`raw create answered ${response.statusCode}`);
    const { accessKey } = (await response.body.json()) as { accessKey: string };
    if (!readBack) return;
    const read = await pool.request({
      method: "GET",
      path: `${basePath}/access-key/${encodeURIComponent(accessKey)}/permissions`,
      headers: { "x-api-key": emulator.adminKey },
    });
    await read.body.json();
  };
  const variants: Record<Variant, (name: string) => Promise<void>> = {
    raw: (name) => raw(name, false),
    rawWithReadBack: (name) => raw(name, true),
    ours: (name) => viaHost(providers.accessKey, name),
    noopHost: (name) => viaHost(providers.noop, name),
  };
  try {
    await host.configure({ "broker:baseUrl": emulator.url, "broker:apiKey": emulator.adminKey });
    // Warm-up: the host's first call of a provider loads it, and connections open.
    for (const [variant, create] of Object.entries(variants)) await create(`warm-up-${variant}`);
    const best: Record<Variant, number> = { ours: 0, raw: 0, rawWithReadBack: 0, noopHost: 0 };
    let ourRequests = 0;
    for (let r = 0; r < ROUNDS; r++) {
      for (const [variant, create] of Object.entries(variants) as [
        Variant,
        (name: string) => Promise<void>,
      ][]) {
        if (variant === "ours") await controls.clearRequests();
        const started = performance.now();
        await runConcurrently(Array.from({ length: KEYS }), CONCURRENCY, (_, i) =>
          create(`${variant}-${r}-${i}`),
        );
        best[variant] = Math.max(best[variant], KEYS / ((performance.now() - started) / 1000));
        if (variant === "ours") ourRequests += (await controls.requests()).length;
      }
    }
    return {
      n: KEYS,
      concurrency: CONCURRENCY,
      createsPerSecond: round(best.ours, 1),
      rawCreatesPerSecond: round(best.raw, 1),
      ratio: round(best.raw / best.ours, 2),
      rawWithReadBackPerSecond: round(best.rawWithReadBack, 1),
      noopHostCreatesPerSecond: round(best.noopHost, 1),
      requestsPerCreate: round(ourRequests / (KEYS * ROUNDS), 2),
    };
  } finally {
    ctx.produced.push({ source: "host: provider host stderr", text: host.stderr.join("") });
    ctx.produced.push({
      source: "host: provider host engine log",
      text: host.engineLog.map((m) => m.message).join("\n"),
    });
    await host.stop();
    await pool.close();
    await emulator.stop();
  }
}
