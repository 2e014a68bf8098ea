/**
 * Issue #38, through the real CLI against an emulator process limited to 10 requests/s with 50 ms
 * latency, at the engine's default parallelism:
 *
 * - staleReads: `pulumi refresh` of 200 keys with `broker:readStalenessMs` 0 (only pages sent after a
 *   read began answer it: the rule before the staleness bound) and with its default, in each door;
 * - sharedQuota: 5 stacks (5 CLI processes, each with its own provider process) running `pulumi up`
 *   at once with one API key against the one limit: every run must complete; the total time is set
 *   against the total requests ÷ the limit, and each stack's 429s are counted (each stack reaches
 *   the emulator through a counting proxy of its own).
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import type * as EmulatorModule from "../../src/emulator/index.ts";
import { installBrokerPlugin } from "../../harness/broker-native.mts";
import { startEmulatorProcess } from "../../harness/emulator-process.mts";
import { CliError, PulumiProject } from "../../harness/pulumi-project.mts";
import type { BenchContext } from "../lib/context.mts";
import { dist, PROGRAMS_DIR } from "../lib/repo.mts";
import { ratioBeyondUnlimited, round } from "../lib/stats.mts";
import { listKeyValues } from "./cli-requests.mts";
import {
  PREVIEW_REFRESH,
  REFRESH,
  REFRESH_KEYS,
  refreshesUnderLimit,
  wholeRefreshBound,
  type RefreshFigures,
} from "./coalesced-reads.mts";
import { LATENCY_MS, LIMIT_RPS } from "./rate-limit.mts";

/** Keys of the refreshed stack in `staleReads`. */
export const STALE_READS_KEYS = 200;

/** `staleReads`: each door's refresh with S = 0 and with the default S. */
export interface StaleReadsFigures {
  nativeWithoutStaleness: RefreshFigures;
  native: RefreshFigures;
  dynamicWithoutStaleness: RefreshFigures;
  dynamic: RefreshFigures;
}

/** Measures `staleReads`. */
export async function measureStaleReads(ctx: BenchContext): Promise<StaleReadsFigures> {
  const stack = { keys: STALE_READS_KEYS, otherKeys: 0, maxRequests: wholeRefreshBound };
  // A stack each: a refresh uses the settings its provider had at the last `up`.
  const without = { ...stack, config: { "broker:readStalenessMs": "0" } };
  const refresh = async (label: string, program: "native-keys" | "keys", of: typeof stack) => {
    const [figures] = await refreshesUnderLimit(ctx, label, program, of, [REFRESH]);
    if (figures === undefined) throw new Error(`staleReads: ${label} was not measured`);
    return figures;
  };
  return {
    nativeWithoutStaleness: await refresh("stale-native-0", "native-keys", without),
    native: await refresh("stale-native", "native-keys", stack),
    dynamicWithoutStaleness: await refresh("stale-dynamic-0", "keys", without),
    dynamic: await refresh("stale-dynamic", "keys", stack),
  };
}

/**
 * Runs of each command in `previewRefresh`, without the limit and under it; the fastest of each
 * count. A `preview --refresh` of 1000 keys spends 20 to 33 s in the engine here (its preview of
 * every resource), and one run of it varied by 5 s either way on this shared machine: more than the
 * 1.5 s the bound allows the limit for 12 requests.
 */
export const PREVIEW_REFRESH_REPEATS = 3;

/** `previewRefresh`: each door's `refresh` and `preview --refresh` of the same stack. */
export interface PreviewRefreshFigures {
  native: { refresh: RefreshFigures; previewRefresh: RefreshFigures };
  dynamic: { refresh: RefreshFigures; previewRefresh: RefreshFigures };
}

/**
 * Measures `previewRefresh`: a stack of {@link REFRESH_KEYS} keys in each door, then its `pulumi
 * refresh` and its `pulumi preview --refresh`, each without the limit and then under it (issue #38:
 * both within ⌈T/100⌉ + 5 requests, and within 1.25 × requests ÷ limit of their unlimited time).
 */
export async function measurePreviewRefresh(ctx: BenchContext): Promise<PreviewRefreshFigures> {
  const stack = { keys: REFRESH_KEYS, otherKeys: 0, maxRequests: wholeRefreshBound };
  const door = async (label: string, program: "native-keys" | "keys") => {
    const [refresh, previewRefresh] = await refreshesUnderLimit(
      ctx,
      label,
      program,
      stack,
      [REFRESH, PREVIEW_REFRESH],
      PREVIEW_REFRESH_REPEATS,
    );
    if (refresh === undefined || previewRefresh === undefined)
      throw new Error(`previewRefresh: ${label} was not measured`);
    return { refresh, previewRefresh };
  };
  return {
    native: await door("preview-refresh-native", "native-keys"),
    dynamic: await door("preview-refresh-dynamic", "keys"),
  };
}

/** Stacks running at once in `sharedQuota`. */
export const STACKS = 5;
/** Keys each stack creates. */
export const KEYS_PER_STACK = 20;

/** One stack of `sharedQuota`. */
export interface StackFigures {
  /** Its `up`, in seconds. */
  seconds: number;
  /** Requests it sent (429s included), and of those how many the limit refused. */
  requests: number;
  rateLimitedResponses: number;
  /** Why the `up` failed, if it did. */
  failure?: string;
}

/** `sharedQuota`: with the pace learned from 429s, and with each stack given its share of the quota. */
export interface SharedQuotaFigures extends SharedQuotaRound {
  /**
   * The same stacks' `up`s at once without the limit and the latency, just before: the engines' and
   * the providers' own time on this machine (five CLIs share its cores), which no request count explains.
   */
  unlimitedSeconds: number;
  /** The seconds of every run without the limit. */
  unlimitedRunSeconds: number[];
  /** (seconds − unlimitedSeconds) ÷ floorSeconds: what the shared limit cost against the least it can. */
  ratioBeyondUnlimited: number;
  /**
   * The same with `broker:maxRequestsPerSecond` set to the limit ÷ the stacks in each (what a team
   * that knows its quota and runs N stacks at once sets): paced from the start, no 429 to learn from.
   */
  knownShare: SharedQuotaRound;
}

/** One round of `sharedQuota`: every stack's `up` at once. */
export interface SharedQuotaRound {
  stacks: number;
  keysPerStack: number;
  /** `up`s that failed. */
  failures: number;
  /** From the first `up`'s start to the last one's end, in seconds. */
  seconds: number;
  /** Requests of every stack, 429s included. */
  requests: number;
  /** requests ÷ the limit: the least time they allow. */
  floorSeconds: number;
  /** seconds / floorSeconds. */
  ratio: number;
  /** 429s of every stack. */
  rateLimitedResponses: number;
  perStack: StackFigures[];
  /** (seconds − the unlimited round's seconds) ÷ floorSeconds, for the limited rounds. */
  ratioBeyondUnlimited?: number;
  /** The seconds of every run of the round ({@link SHARED_QUOTA_REPEATS}); the figures are the fastest's. */
  runSeconds?: number[];
}

/** A proxy to `target` that counts what passes through it: every request, and the 429s. */
async function countingProxy(
  target: URL,
): Promise<{ url: string; counts: { requests: number; refused: number }; close: () => Promise<void> }> {
  const counts = { requests: 0, refused: 0 };
  const server = http.createServer((req, res) => {
    counts.requests++;
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        if (answer.statusCode === 429) counts.refused++;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** The share of the quota each stack is given in `sharedQuota`'s `knownShare`, in requests/s. */
export const SHARE_RPS = LIMIT_RPS / STACKS;

/**
 * Runs of each `sharedQuota` round; the fastest is kept, and every run's time recorded. Five CLIs on
 * two cores take 7 to 24 s of their own, and the same known-share round took 18 to 24 s in four
 * runs on one evening: one run says more about the machine than about the pacer.
 */
export const SHARED_QUOTA_REPEATS = 2;

/** The fastest of {@link SHARED_QUOTA_REPEATS} runs of a round, with every run's seconds. */
async function fastestRound(
  ctx: BenchContext,
  label: string,
  config: Record<string, { value: string }>,
  limited: boolean,
): Promise<SharedQuotaRound> {
  const rounds: SharedQuotaRound[] = [];
  for (let i = 0; i < SHARED_QUOTA_REPEATS; i++)
    rounds.push(await sharedQuotaRound(ctx, `${label}-${i}`, config, limited));
  const fastest = rounds.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  return { ...fastest, runSeconds: rounds.map((r) => r.seconds) };
}

/** Measures `sharedQuota`. */
export async function measureSharedQuota(ctx: BenchContext): Promise<SharedQuotaFigures> {
  const unlimited = await fastestRound(ctx, "unlimited", {}, false);
  const learned = await fastestRound(ctx, "learned", {}, true);
  const knownShare = await fastestRound(
    ctx,
    "known-share",
    { "broker:maxRequestsPerSecond": { value: String(SHARE_RPS) } },
    true,
  );
  return {
    ...learned,
    unlimitedSeconds: unlimited.seconds,
    unlimitedRunSeconds: unlimited.runSeconds ?? [unlimited.seconds],
    ratioBeyondUnlimited: ratioBeyondUnlimited(learned.seconds, unlimited.seconds, learned.floorSeconds),
    knownShare: {
      ...knownShare,
      ratioBeyondUnlimited: ratioBeyondUnlimited(
        knownShare.seconds,
        unlimited.seconds,
        knownShare.floorSeconds,
      ),
    },
  };
}

/** {@link STACKS} stacks' `up` at once against one emulator at the limit, each with `config`. */
async function sharedQuotaRound(
  ctx: BenchContext,
  label: string,
  config: Record<string, { value: string }>,
  limited: boolean,
): Promise<SharedQuotaRound> {
  const { EmulatorControls } = await dist<typeof EmulatorModule>("emulator/index.js");
  const emulator = await startEmulatorProcess();
  ctx.secrets.add(emulator.adminKey);
  const controls = new EmulatorControls(emulator.controlUrl);
  const proxies = await Promise.all(
    Array.from({ length: STACKS }, () => countingProxy(new URL(emulator.url))),
  );
  const projects: PulumiProject[] = [];
  try {
    for (const [i, proxy] of proxies.entries()) {
      const project = await PulumiProject.create({
        parent: ctx.workDir,
        name: `bench-shared-quota-${label}-${i}`,
        programDir: path.join(PROGRAMS_DIR, "native-keys"),
        fixture: ctx.fixture,
        pulumiBin: ctx.pulumiBin,
      });
      projects.push(project);
      installBrokerPlugin(project);
      await project.initStack("bench", {
        count: { value: String(KEYS_PER_STACK) },
        "broker:baseUrl": { value: proxy.url },
        "broker:apiKey": { value: emulator.adminKey, secret: true },
        ...config,
      });
    }
    if (limited) {
      await controls.injectFault({ kind: "latency", latencyMs: LATENCY_MS });
      await controls.setRateLimit({ requestsPerSecond: LIMIT_RPS });
    }
    ctx.log(
      `sharedQuota (${label}): ${STACKS} stacks' up of ${KEYS_PER_STACK} keys at once, one key, ${limited ? `${LIMIT_RPS} requests/s` : "no limit"}`,
    );
    const started = performance.now();
    const ups = await Promise.all(
      projects.map(async (project) => {
        const began = performance.now();
        try {
          await project.run(["up", "--yes", "--skip-preview"]);
          return { seconds: (performance.now() - began) / 1000 };
        } catch (error) {
          if (!(error instanceof CliError)) throw error;
          const lines = `${error.stdout}\n${error.stderr}`.split("\n").filter((l) => /\berror:/u.test(l));
          return { seconds: (performance.now() - began) / 1000, failure: lines.slice(0, 3).join("\n") };
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    await controls.clearRateLimit();
    await controls.clearFaults();
    const perStack: StackFigures[] = ups.map((up, i) => ({
      seconds: round(up.seconds),
      requests: proxies[i]?.counts.requests ?? 0,
      rateLimitedResponses: proxies[i]?.counts.refused ?? 0,
      ...(up.failure === undefined ? {} : { failure: up.failure }),
    }));
    const requests = perStack.reduce((sum, s) => sum + s.requests, 0);
    const floorSeconds = requests / LIMIT_RPS;
    return {
      stacks: STACKS,
      keysPerStack: KEYS_PER_STACK,
      failures: perStack.filter((s) => s.failure !== undefined).length,
      seconds: round(seconds),
      requests,
      floorSeconds: round(floorSeconds),
      ratio: round(seconds / floorSeconds),
      rateLimitedResponses: perStack.reduce((sum, s) => sum + s.rateLimitedResponses, 0),
      perStack,
    };
  } finally {
    await controls.clearRateLimit();
    await controls.clearFaults();
    // Every key value the broker holds is a credential the output must not show.
    for (const key of await listKeyValues(emulator.url, emulator.adminKey)) ctx.secrets.add(key);
    for (const project of projects) {
      ctx.produced.push({
        source: `sharedQuota: CLI output and backend files`,
        text: project.producedText(),
      });
      project.remove();
    }
    await Promise.all(proxies.map((proxy) => proxy.close()));
    await emulator.stop();
  }
}
