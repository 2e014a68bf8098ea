/**
 * client: GETs per second through our client against raw undici `request` — the same GET, the same
 * emulator process, the same concurrency, the same number of connections — and our client's latency.
 * Rounds alternate between the two so that drift in machine load hits both alike.
 */
import { Pool, request } from "undici";
import type * as ClientModule from "../../src/client/index.ts";
import type * as ClientConstants from "../../src/client/constants.ts";
import type { BenchContext } from "../lib/context.mts";
import type * as EmulatorProcessModule from "../lib/emulator.mts";
import type * as Repo from "../lib/repo.mts";
import type * as Stats from "../lib/stats.mts";

const { load, dist } = (await import(new URL("../lib/repo.mts", import.meta.url).href)) as typeof Repo;
const { startEmulatorProcess } = await load<typeof EmulatorProcessModule>(
  import.meta.url,
  "../lib/emulator.mts",
);
const { median, percentile, round, runConcurrently } = await load<typeof Stats>(
  import.meta.url,
  "../lib/stats.mts",
);

/** Requests in flight at once: the client's default `maxConcurrency`, also the raw pool's size. */
export const CONCURRENCY = 8;
/** Requests per round. */
export const REQUESTS_PER_ROUND = 2000;
/**
 * Measured rounds per side, after one warm-up round each. Many short alternating rounds and their
 * medians, rather than one long run each: on a shared machine the load drifts within seconds.
 */
export const ROUNDS = 15;

/** What the section measured. */
export interface ClientResult {
  rps: number;
  rawRps: number;
  /** rawRps / rps: how much slower our client is than raw undici (1 = as fast). */
  ratio: number;
  p50Ms: number;
  p99Ms: number;
  rawP50Ms: number;
  rawP99Ms: number;
  concurrency: number;
  requests: number;
}

async function timedRound(send: () => Promise<void>, latencies: number[]): Promise<number> {
  const started = performance.now();
  await runConcurrently(Array.from({ length: REQUESTS_PER_ROUND }), CONCURRENCY, async () => {
    const t0 = performance.now();
    await send();
    latencies.push(performance.now() - t0);
  });
  return REQUESTS_PER_ROUND / ((performance.now() - started) / 1000);
}

/** Measures `GET /access-key/{accessKey}/permissions` both ways. */
export async function measureClient(ctx: BenchContext): Promise<ClientResult> {
  const { BrokerClient } = await dist<typeof ClientModule>("client/index.js");
  const { DEFAULT_USER_AGENT } = await dist<typeof ClientConstants>("client/constants.js");
  const emulator = await startEmulatorProcess(ctx.repoRoot, { controls: false });
  ctx.secrets.add(emulator.adminKey);
  const client = new BrokerClient({
    baseUrl: emulator.url,
    apiKey: emulator.adminKey,
    maxConcurrency: CONCURRENCY,
  });
  const pool = new Pool(new URL(emulator.url).origin, { connections: CONCURRENCY });
  try {
    const { accessKey } = await client.createAccessKey({
      name: "bench-client",
      type: "ACCOUNT",
      permissions: { send: ["orders/created"], receive: ["payments/*"], resources: {} },
    });
    ctx.secrets.add(accessKey);
    const url = `${emulator.url}/access-key/${encodeURIComponent(accessKey)}/permissions`;
    // What our client sends, minus retries, decoding and error mapping: that is what we pay for.
    const headers = {
      accept: "application/json",
      "user-agent": DEFAULT_USER_AGENT,
      "x-api-key": emulator.adminKey,
    };
    const raw = async (): Promise<void> => {
      const response = await request(url, { dispatcher: pool, headers });
      if (response.statusCode !== 200) throw new Error(`raw GET answered ${response.statusCode}`);
      await response.body.json();
    };
    const ours = async (): Promise<void> => {
      await client.getAccessKeyPermissions(accessKey);
    };
    await timedRound(raw, []);
    await timedRound(ours, []);
    const rawRates: number[] = [];
    const rates: number[] = [];
    const rawLatencies: number[] = [];
    const latencies: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      rawRates.push(await timedRound(raw, rawLatencies));
      rates.push(await timedRound(ours, latencies));
    }
    const rps = median(rates);
    const rawRps = median(rawRates);
    return {
      rps: round(rps, 0),
      rawRps: round(rawRps, 0),
      ratio: round(rawRps / rps, 3),
      p50Ms: round(percentile(latencies, 50), 3),
      p99Ms: round(percentile(latencies, 99), 3),
      rawP50Ms: round(percentile(rawLatencies, 50), 3),
      rawP99Ms: round(percentile(rawLatencies, 99), 3),
      concurrency: CONCURRENCY,
      requests: REQUESTS_PER_ROUND * ROUNDS,
    };
  } finally {
    await client.close();
    await pool.close();
    await emulator.stop();
  }
}
