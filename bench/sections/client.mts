/**
 * client: GETs per second through our client against raw undici `request` — the same GET, the same
 * emulator process, the same concurrency, the same number of connections — and our client's latency.
 * Rounds alternate between the two so that drift in machine load hits both alike.
 */
import { Pool, request } from "undici";
import type * as ClientModule from "../../src/client/index.ts";
import type * as ClientConstants from "../../src/client/constants.ts";
import { startEmulatorProcess } from "../../harness/emulator-process.mts";
import type { BenchContext } from "../lib/context.mts";
import { dist } from "../lib/repo.mts";
import { median, percentile, round, runConcurrently } from "../lib/stats.mts";

/** Requests in flight at once: the client's default `maxConcurrency`, also the raw pool's size. */
export const CONCURRENCY = 8;
/** Requests per round: about a second each, long enough for timer and GC jitter to average out. */
export const REQUESTS_PER_ROUND = 20_000;
/**
 * Measured rounds per side, after a warm-up round each (which lets the JIT compile both paths).
 * Alternating rounds and their medians, rather than one long run each: on a shared machine the load
 * drifts within seconds.
 */
export const ROUNDS = 7;

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
  /** CPU time of this process per request (µs): what the client itself costs, whatever the server does. */
  cpuUsPerRequest: number;
  rawCpuUsPerRequest: number;
  concurrency: number;
  requests: number;
}

interface Round {
  rps: number;
  cpuUsPerRequest: number;
}

async function timedRound(send: () => Promise<void>, latencies: number[]): Promise<Round> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  await runConcurrently(Array.from({ length: REQUESTS_PER_ROUND }), CONCURRENCY, async () => {
    const t0 = performance.now();
    await send();
    latencies.push(performance.now() - t0);
  });
  const used = process.cpuUsage(cpu);
  return {
    rps: REQUESTS_PER_ROUND / ((performance.now() - started) / 1000),
    cpuUsPerRequest: (used.user + used.system) / REQUESTS_PER_ROUND,
  };
}

/** Measures `GET /access-key/{accessKey}/permissions` both ways. */
export async function measureClient(ctx: BenchContext): Promise<ClientResult> {
  const { BrokerClient } = await dist<typeof ClientModule>("client/index.js");
  const { DEFAULT_USER_AGENT } = await dist<typeof ClientConstants>("client/constants.js");
  const emulator = await startEmulatorProcess({ controls: false });
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
    const rawRounds: Round[] = [];
    const ourRounds: Round[] = [];
    const rawLatencies: number[] = [];
    const latencies: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      // Which side goes first alternates too, so neither always follows the other's garbage.
      if (i % 2 === 0) rawRounds.push(await timedRound(raw, rawLatencies));
      ourRounds.push(await timedRound(ours, latencies));
      if (i % 2 === 1) rawRounds.push(await timedRound(raw, rawLatencies));
    }
    const rps = median(ourRounds.map((r) => r.rps));
    const rawRps = median(rawRounds.map((r) => r.rps));
    return {
      rps: round(rps, 0),
      rawRps: round(rawRps, 0),
      ratio: round(rawRps / rps, 3),
      p50Ms: round(percentile(latencies, 50), 3),
      p99Ms: round(percentile(latencies, 99), 3),
      rawP50Ms: round(percentile(rawLatencies, 50), 3),
      rawP99Ms: round(percentile(rawLatencies, 99), 3),
      cpuUsPerRequest: round(median(ourRounds.map((r) => r.cpuUsPerRequest)), 1),
      rawCpuUsPerRequest: round(median(rawRounds.map((r) => r.cpuUsPerRequest)), 1),
      concurrency: CONCURRENCY,
      requests: REQUESTS_PER_ROUND * ROUNDS,
    };
  } finally {
    await client.close();
    await pool.close();
    await emulator.stop();
  }
}
