/**
 * The API's real limits (issue #11): `pulumi up` of 100 access keys through the real CLI against an
 * emulator that limits the request rate, with latency, and with faults on top of the limit. The
 * client runs with its defaults: these figures are what a user gets without tuning anything.
 *
 * - rateLimited: 10 requests/s and 50 ms latency, timed against the least time the limit allows;
 * - rateLimitedFaults: 5 requests/s and 30% of requests failing (503s and dropped connections, before
 *   and after processing), counting the `up`s needed to converge and the duplicates left behind;
 * - latency: 50 ms latency and no limit, against the ideal for the client's concurrency cap.
 */
import * as path from "node:path";
import type * as EmulatorModule from "../../src/emulator/index.ts";
import { installBrokerPlugin } from "../../harness/broker-native.mts";
import { startEmulatorProcess } from "../../harness/emulator-process.mts";
import { CliError, PulumiProject } from "../../harness/pulumi-project.mts";
import type { BenchContext } from "../lib/context.mts";
import { dist, PROGRAMS_DIR } from "../lib/repo.mts";
import { ratioBeyondUnlimited, round } from "../lib/stats.mts";
import { MINIMUM_PER_OP } from "./requests-per-op.mts";

/** Access keys per `up`. */
export const KEYS = 100;
/** The limit of `rateLimited`, in requests per second. */
export const LIMIT_RPS = 10;
/** Latency added to every request of `rateLimited` and `latency`. */
export const LATENCY_MS = 50;
/** The limit of `rateLimitedFaults`. */
export const FAULTS_LIMIT_RPS = 5;
/** The share of requests that fail in `rateLimitedFaults`. */
export const FAULT_RATE = 0.3;
/** `up`s tried in `rateLimitedFaults` before giving up on convergence. */
export const MAX_UPS = 3;
/** Runs of `latency` (and of its no-op floor); the fastest counts. */
export const LATENCY_REPEATS = 2;
/** The client's default `broker:maxConcurrency` (requests in flight per provider process). */
export const CLIENT_CONCURRENCY = 8;
/** The answering faults of `rateLimitedFaults`, each before and after the broker processed the request. */
const FAULT_KINDS = [
  { kind: "503", phase: "before" },
  { kind: "503", phase: "after" },
  { kind: "reset", phase: "before" },
  { kind: "reset", phase: "after" },
] as const;

/** The least requests an `up` of {@link KEYS} keys needs (as `requestsPerOp` counts them). */
export function minimumUpRequests(): number {
  return KEYS * (MINIMUM_PER_OP["AccessKey.create"] ?? Number.NaN);
}

/** `rateLimited`. */
export interface RateLimitedFigures {
  /** The `up`, in seconds (until it failed, if it did). */
  seconds: number;
  /**
   * The requests sent (at most the per-resource minimum) ÷ the limit: no client sending them can be
   * faster.
   */
  floorSeconds: number;
  /** seconds / floorSeconds. */
  ratio: number;
  /**
   * The same `up` on a new stack and broker without the limit and the latency, just before: the
   * engine's and the provider's own time, which no request count explains.
   */
  unlimitedSeconds: number;
  /** What the limit cost against the least it can (see `ratioBeyondUnlimited` in bench/lib/stats.mts). */
  ratioBeyondUnlimited: number;
  /** Declared keys missing from the stack after the `up`. */
  failedResources: number;
  /** Requests the emulator saw (429s included). */
  requests: number;
  /** Of those, how many the limit refused with 429. */
  rateLimitedResponses: number;
  /** Of those, pages of the key list (the creates' read-backs, coalesced) and single reads of a key. */
  pages: number;
  singleReads: number;
  /** Every request by route and status (`POST /access-key 201`: 100), from the emulator's request log. */
  byRoute: Record<string, number>;
}

/**
 * `rateLimited`: the dynamic door's `up`, the same with the native resources, and the dynamic door's
 * with the quota known (no 429 to learn it from: what is left are the creates and their read-backs).
 */
export interface RateLimitedDoorsFigures extends RateLimitedFigures {
  native: RateLimitedFigures;
  knownQuota: RateLimitedFigures;
}

/** `rateLimitedParallel`: as learned from 429s, and with the quota known. */
export interface RateLimitedParallelFigures extends RateLimitedFigures {
  knownQuota: RateLimitedFigures;
}

/** `rateLimited`'s bound on requests: the creates' `POST`s and 5 more (pages). */
export const MAX_RATE_LIMITED_REQUESTS = KEYS + 5;

/** `rateLimitedFaults`. */
export interface RateLimitedFaultsFigures {
  /** Declared keys missing from the stack after the first `up`. */
  failedResources: number;
  /** Keys on the broker beyond one per declared name, after the last `up`. */
  duplicates: number;
  /** `up`s until the stack held every key (MAX_UPS + 1: never). */
  ups: number;
  /** The first `up`, in seconds. */
  seconds: number;
  /** Requests of all the `up`s, and how many of them the limit refused and the faults struck. */
  requests: number;
  rateLimitedResponses: number;
  faultedResponses: number;
}

/** `latency`. */
export interface LatencyFigures {
  /** `up` of the keys with {@link LATENCY_MS} per request and no limit. */
  seconds: number;
  /** The same program with the no-op provider (makes no request). */
  floorSeconds: number;
  /** Minimum requests × latency ÷ the client's concurrency: the network-bound time. */
  latencyBoundSeconds: number;
  /** The larger of floorSeconds and latencyBoundSeconds: the engine and the requests fully overlapped. */
  idealSeconds: number;
  /** seconds / idealSeconds. */
  ratio: number;
  failedResources: number;
}

type Controls = InstanceType<typeof EmulatorModule.EmulatorControls>;

interface Broker {
  url: string;
  adminKey: string;
  controls: Controls;
}

async function withEmulator<T>(ctx: BenchContext, run: (broker: Broker) => Promise<T>): Promise<T> {
  const { EmulatorControls } = await dist<typeof EmulatorModule>("emulator/index.js");
  const emulator = await startEmulatorProcess();
  ctx.secrets.add(emulator.adminKey);
  const broker = {
    url: emulator.url,
    adminKey: emulator.adminKey,
    controls: new EmulatorControls(emulator.controlUrl),
  };
  try {
    return await run(broker);
  } finally {
    await broker.controls.clearRateLimit();
    await broker.controls.clearFaults();
    // Every key value the broker holds is a credential the output must not show.
    for (const key of await listKeys(broker)) ctx.secrets.add(key.key);
    await emulator.stop();
  }
}

async function withProject<T>(
  ctx: BenchContext,
  label: string,
  program: "keys" | "native-keys" | "noop",
  broker: Broker | undefined,
  run: (project: PulumiProject) => Promise<T>,
  config: Record<string, { value: string }> = {},
): Promise<T> {
  const project = await PulumiProject.create({
    parent: ctx.workDir,
    name: `bench-${label}`,
    programDir: path.join(PROGRAMS_DIR, program),
    fixture: ctx.fixture,
    pulumiBin: ctx.pulumiBin,
  });
  try {
    if (program === "native-keys") installBrokerPlugin(project);
    await project.initStack("bench", {
      count: { value: String(KEYS) },
      // The no-op program never calls the API; the URL only has to be valid.
      "broker:baseUrl": { value: broker?.url ?? "http://127.0.0.1:9/v1" },
      "broker:apiKey": { value: broker?.adminKey ?? "unused", secret: true },
      ...config,
    });
    return await run(project);
  } finally {
    ctx.produced.push({ source: `${label}: CLI output and backend files`, text: project.producedText() });
    project.remove();
  }
}

/** Runs `pulumi up` (with `extraArgs`); a failed up is a figure here, not an error. */
async function up(
  project: PulumiProject,
  extraArgs: readonly string[] = [],
): Promise<{ seconds: number; failure?: string }> {
  const started = performance.now();
  try {
    const run = await project.run(["up", "--yes", "--skip-preview", ...extraArgs]);
    return { seconds: run.seconds };
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    // The first errors the CLI printed: enough to see why (the whole output goes to the secret scan).
    const lines = `${error.stdout}\n${error.stderr}`.split("\n").filter((line) => /\berror:/u.test(line));
    return { seconds: (performance.now() - started) / 1000, failure: lines.slice(0, 3).join("\n") };
  }
}

/** How many of the declared keys the stack holds (created resources with an access key id). */
async function keysInStack(project: PulumiProject): Promise<number> {
  const exported = await project.run(["stack", "export"]);
  const deployment = (
    JSON.parse(exported.stdout) as { deployment?: { resources?: { outputs?: Record<string, unknown> }[] } }
  ).deployment;
  return (deployment?.resources ?? []).filter((r) => r.outputs?.["accessKeyId"] !== undefined).length;
}

/** Every access key on the broker (read without limits or faults: the caller has cleared them). */
async function listKeys(broker: Broker): Promise<{ name: string; key: string }[]> {
  const keys: { name: string; key: string }[] = [];
  for (let page = 0; ; page++) {
    const response = await fetch(
      `${broker.url}/access-key?pageIndex=${page}&limit=100&order=ASC&orderBy=createdAt`,
      {
        headers: { "x-api-key": broker.adminKey },
      },
    );
    if (!response.ok) throw new Error(`listing access keys failed: ${response.status}`);
    const body = (await response.json()) as { results: { name: string; key: string }[] };
    keys.push(...body.results);
    if (body.results.length < 100) return keys;
  }
}

/** Keys beyond one per declared name. */
async function duplicatesOnBroker(broker: Broker): Promise<number> {
  const names = (await listKeys(broker)).map((k) => k.name).filter((name) => name.startsWith("bench-key-"));
  return names.length - new Set(names).size;
}

/**
 * The `--parallel` of `rateLimitedParallel`: every create at once, as a stack of 100 keys allows
 * when the engine is not holding it to 4 operations per CPU.
 */
export const RAISED_UP_PARALLELISM = KEYS;

/**
 * `rateLimited`: 100 keys at 10 requests/s with 50 ms latency, at the engine's default parallelism, in
 * the dynamic door and in the native one.
 */
export async function measureRateLimited(ctx: BenchContext): Promise<RateLimitedDoorsFigures> {
  const dynamic = await measureLimitedUp(ctx, "rate-limited", []);
  const native = await measureLimitedUp(ctx, "rate-limited-native", [], {}, "native-keys");
  const quota = { "broker:maxRequestsPerSecond": { value: String(LIMIT_RPS) } };
  return { ...dynamic, native, knownQuota: await measureLimitedUp(ctx, "rate-limited-quota", [], quota) };
}

/** Requests of a request log counted by route and status, most frequent first. */
export function countByRoute(log: readonly { route: string; status: number }[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const entry of log) {
    const key = `${entry.route} ${entry.status}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]));
}

/**
 * `rateLimitedParallel`: the same `up` with `--parallel` {@link RAISED_UP_PARALLELISM}, where the
 * creates' read-backs wait together behind the `POST`s and share pages.
 */
export async function measureRateLimitedParallel(ctx: BenchContext): Promise<RateLimitedParallelFigures> {
  const parallel = ["--parallel", String(RAISED_UP_PARALLELISM)];
  const learned = await measureLimitedUp(ctx, "rate-limited-parallel", parallel);
  // The same with the quota known (`broker:maxRequestsPerSecond`): no 429 to learn it from, so the
  // requests are the creates' and the read-backs' alone.
  const quota = { "broker:maxRequestsPerSecond": { value: String(LIMIT_RPS) } };
  return {
    ...learned,
    knownQuota: await measureLimitedUp(ctx, "rate-limited-parallel-quota", parallel, quota),
  };
}

async function measureLimitedUp(
  ctx: BenchContext,
  label: string,
  extraArgs: readonly string[],
  config: Record<string, { value: string }> = {},
  program: "keys" | "native-keys" = "keys",
): Promise<RateLimitedFigures> {
  const command = ["up", ...extraArgs].join(" ");
  // The engine's and the provider's own time: the same up without the limit, the latency or a quota.
  ctx.log(`${label}: ${command} of ${KEYS} keys without a limit`);
  const unlimitedSeconds = await withEmulator(ctx, (broker) =>
    withProject(
      ctx,
      `${label}-unlimited`,
      program,
      broker,
      async (project) => (await up(project, extraArgs)).seconds,
    ),
  );
  return withEmulator(ctx, (broker) =>
    withProject(
      ctx,
      label,
      program,
      broker,
      async (project) => {
        await broker.controls.injectFault({ kind: "latency", latencyMs: LATENCY_MS });
        await broker.controls.setRateLimit({ requestsPerSecond: LIMIT_RPS });
        const refusedBefore = (await broker.controls.rateLimit()).rateLimitedResponses;
        await broker.controls.clearRequests();
        ctx.log(`${label}: ${command} of ${KEYS} keys at ${LIMIT_RPS} requests/s, ${LATENCY_MS} ms latency`);
        const run = await up(project, extraArgs);
        const log = await broker.controls.requests();
        const requests = log.length;
        const refused = (await broker.controls.rateLimit()).rateLimitedResponses - refusedBefore;
        if (run.failure !== undefined) ctx.log(`${label}: the up failed:\n${run.failure}`);
        // The least time the requests sent allow (they are fewer than the per-resource minimum now
        // that read-backs share pages, so this floor is the stricter one).
        const floorSeconds = Math.min(requests, minimumUpRequests()) / LIMIT_RPS;
        return {
          seconds: round(run.seconds),
          floorSeconds,
          ratio: round(run.seconds / floorSeconds),
          unlimitedSeconds: round(unlimitedSeconds),
          ratioBeyondUnlimited: ratioBeyondUnlimited(run.seconds, unlimitedSeconds, floorSeconds),
          failedResources: KEYS - (await keysInStack(project)),
          requests,
          rateLimitedResponses: refused,
          pages: log.filter((entry) => entry.route === "GET /access-key").length,
          singleReads: log.filter((entry) => entry.route === "GET /access-key/{accessKey}/permissions")
            .length,
          byRoute: countByRoute(log),
        };
      },
      config,
    ),
  );
}

/** `rateLimitedFaults`: 100 keys at 5 requests/s with 30% of requests failing. */
export async function measureRateLimitedFaults(ctx: BenchContext): Promise<RateLimitedFaultsFigures> {
  return withEmulator(ctx, (broker) =>
    withProject(ctx, "rate-limited-faults", "keys", broker, async (project) => {
      // The emulator consults answering faults in order, the first that fires wins: each gets the
      // rate r with 1 - (1 - r)^4 = FAULT_RATE. Seeded, so every run meets the same sequence.
      const each = 1 - (1 - FAULT_RATE) ** (1 / FAULT_KINDS.length);
      for (const [index, fault] of FAULT_KINDS.entries())
        await broker.controls.injectFault({ ...fault, rate: each, seed: 1100 + index });
      await broker.controls.setRateLimit({ requestsPerSecond: FAULTS_LIMIT_RPS });
      const refusedBefore = (await broker.controls.rateLimit()).rateLimitedResponses;
      await broker.controls.clearRequests();
      let ups = 0;
      let failedResources = KEYS;
      let seconds = 0;
      let held = 0;
      while (ups < MAX_UPS && held < KEYS) {
        ups++;
        ctx.log(
          `rateLimitedFaults: up ${ups} of ${KEYS} keys at ${FAULTS_LIMIT_RPS} requests/s, ${FAULT_RATE * 100}% faults`,
        );
        const run = await up(project);
        if (run.failure !== undefined) ctx.log(`rateLimitedFaults: up ${ups} failed:\n${run.failure}`);
        held = await keysInStack(project);
        if (ups === 1) {
          seconds = run.seconds;
          failedResources = KEYS - held;
        }
      }
      const log = await broker.controls.requests();
      const refused = (await broker.controls.rateLimit()).rateLimitedResponses - refusedBefore;
      await broker.controls.clearFaults();
      await broker.controls.clearRateLimit();
      return {
        failedResources,
        duplicates: await duplicatesOnBroker(broker),
        ups: held < KEYS ? MAX_UPS + 1 : ups,
        seconds: round(seconds),
        requests: log.length,
        rateLimitedResponses: refused,
        faultedResponses: log.filter((entry) => entry.fault !== undefined).length,
      };
    }),
  );
}

/** `latency`: 100 keys with 50 ms latency and no limit, against the no-op floor and the latency bound. */
export async function measureLatency(ctx: BenchContext): Promise<LatencyFigures> {
  const floorRuns: number[] = [];
  for (let r = 1; r <= LATENCY_REPEATS; r++) {
    ctx.log(`latency: no-op provider, ${KEYS} resources (run ${r} of ${LATENCY_REPEATS})`);
    floorRuns.push(
      await withProject(
        ctx,
        "latency-noop",
        "noop",
        undefined,
        async (project) => (await up(project)).seconds,
      ),
    );
  }
  return withEmulator(ctx, async (broker) => {
    await broker.controls.injectFault({ kind: "latency", latencyMs: LATENCY_MS });
    const runs: { seconds: number; failed: number }[] = [];
    for (let r = 1; r <= LATENCY_REPEATS; r++) {
      ctx.log(`latency: up of ${KEYS} keys with ${LATENCY_MS} ms latency (run ${r} of ${LATENCY_REPEATS})`);
      runs.push(
        await withProject(ctx, "latency", "keys", broker, async (project) => {
          const run = await up(project);
          return { seconds: run.seconds, failed: KEYS - (await keysInStack(project)) };
        }),
      );
    }
    const seconds = Math.min(...runs.map((r) => r.seconds));
    const floorSeconds = Math.min(...floorRuns);
    const latencyBoundSeconds = (minimumUpRequests() * LATENCY_MS) / 1000 / CLIENT_CONCURRENCY;
    const idealSeconds = Math.max(floorSeconds, latencyBoundSeconds);
    return {
      seconds: round(seconds),
      floorSeconds: round(floorSeconds),
      latencyBoundSeconds: round(latencyBoundSeconds),
      idealSeconds: round(idealSeconds),
      ratio: round(seconds / idealSeconds),
      failedResources: Math.max(...runs.map((r) => r.failed)),
    };
  });
}

/** The sections of this file, by their name in results.json. */
export const LIMIT_SECTIONS = {
  rateLimited: measureRateLimited,
  rateLimitedParallel: measureRateLimitedParallel,
  rateLimitedFaults: measureRateLimitedFaults,
  latency: measureLatency,
} as const;
