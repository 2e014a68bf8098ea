/** The goals of issues #6, #11 and #38, checked against the figures. A goal whose figures were not measured is left out. */
import type { Goal } from "./lib/report.mts";
import { MAX_RATE_LIMITED_REQUESTS } from "./sections/rate-limit.mts";

type Figures = Record<string, unknown>;

/** Read and update operations: these must send exactly the minimum. */
export const EXACT_OPERATIONS = /\.(read|update)(\(|$)/u;

/** The largest serialized provider we accept, in bytes. */
export const MAX_PROVIDER_BYTES = 1024;
/** How much slower than raw undici our client may be. */
export const MAX_CLIENT_RATIO = 1.15;
/** How much slower than the engine's floor `pulumi up` of 100 keys may be. */
export const MAX_UP_RATIO = 1.5;
/** How much slower than the least time a 10 requests/s limit allows `pulumi up` of 100 keys may be. */
export const MAX_RATE_LIMITED_RATIO = 1.25;
/**
 * Issue #38: how much time five stacks sharing one quota may take, against their requests ÷ the
 * limit. Counted beyond the same five `up`s without the limit: five engines on the bench's two cores
 * take seconds of their own that no pacing can win back.
 */
export const MAX_SHARED_QUOTA_RATIO = 1.3;
/**
 * How much steeper refresh may get from 100→300 resources than from 10→100 (marginal seconds per
 * resource) and still count as about linear; jitter of a shared 2-core machine needs the slack.
 */
export const MAX_REFRESH_SLOPE_GROWTH = 1.5;

/**
 * How much slower `pulumi preview` of the YAML quickstart may be with the single-executable plugin
 * than with the Node-script plugin: not at all (issue #17); the fastest of 5 runs each is compared.
 */
export const MAX_PLUGIN_PREVIEW_RATIO = 1.0;
/** Issue #38: the native resources' state per resource against the dynamic resources'. */
export const MAX_NATIVE_STATE_RATIO = 0.7;
/** Issue #48: the native `pulumi up` of 100 keys against the floor's, in the same round. */
export const MAX_NATIVE_UP_RATIO = 0.85;

/** Issue #47: the access review of 10,000 changed keys, preview JSON to Markdown, in milliseconds. */
export const MAX_REVIEW_10K_MS = 1000;
/**
 * Issue #47: ten times the keys may take at most this many times as long and still count as linear
 * (10, with slack for the shared machine's jitter and the garbage collector's larger heaps).
 */
export const MAX_REVIEW_GROWTH = 15;

/** Evaluates every goal whose figures are present. */
export function evaluateGoals(results: Figures): Goal[] {
  const goals: Goal[] = [];
  const bytes = results["providerBytes"] as Record<string, number | null> | undefined;
  if (bytes !== undefined) {
    const ours = ["Workspace", "AccessKey", "ServiceKeyPair"].map((t) => [t, bytes[t] ?? Infinity] as const);
    goals.push({
      goal: `providerBytes < ${MAX_PROVIDER_BYTES} per type`,
      met: ours.every(([, n]) => n < MAX_PROVIDER_BYTES),
      detail: ours.map(([t, n]) => `${t} ${n}`).join(", "),
    });
  }
  if (typeof results["previewRequests"] === "number") {
    goals.push({
      goal: "previewRequests = 0",
      met: results["previewRequests"] === 0,
      detail: `${results["previewRequests"]} request(s)`,
    });
  }
  const perOp = results["requestsPerOp"] as Record<string, number> | undefined;
  const minimum = results["minimumPerOp"] as Record<string, number> | undefined;
  if (perOp !== undefined && minimum !== undefined) {
    const above = Object.entries(perOp).filter(([op, n]) => EXACT_OPERATIONS.test(op) && n !== minimum[op]);
    goals.push({
      goal: "read/update requests = minimum",
      met: above.length === 0,
      detail:
        above.length === 0
          ? "all at minimum"
          : above.map(([op, n]) => `${op} ${n} vs ${minimum[op]}`).join(", "),
    });
    const others = Object.entries(perOp).filter(
      ([op, n]) => !EXACT_OPERATIONS.test(op) && n > (minimum[op] ?? n),
    );
    goals.push({
      goal: "create/delete requests = minimum",
      met: others.length === 0,
      detail:
        others.length === 0
          ? "all at minimum"
          : others.map(([op, n]) => `${op} ${n} vs ${minimum[op]}`).join(", "),
    });
  }
  const cli = results["cliRequests"] as Record<string, number> | undefined;
  if (cli !== undefined) {
    goals.push({
      goal: "no request when nothing changes",
      met: cli["previewExisting"] === 0 && cli["upNoChanges"] === 0,
      detail: `preview ${cli["previewExisting"]}, up ${cli["upNoChanges"]}`,
    });
  }
  const client = results["client"] as Record<string, number> | undefined;
  if (client !== undefined) {
    goals.push({
      goal: `client.ratio <= ${MAX_CLIENT_RATIO}`,
      met: (client["ratio"] ?? Infinity) <= MAX_CLIENT_RATIO,
      detail: `ratio ${client["ratio"]}`,
    });
  }
  const plugin = results["plugin"] as
    { previewRatio: number; previewSeconds: Record<string, number> } | undefined;
  if (plugin !== undefined) {
    goals.push({
      goal: `plugin preview ratio (single executable / Node script) <= ${MAX_PLUGIN_PREVIEW_RATIO}`,
      met: plugin.previewRatio <= MAX_PLUGIN_PREVIEW_RATIO,
      detail: `${plugin.previewSeconds["singleExecutable"]} s vs ${plugin.previewSeconds["nodeScript"]} s`,
    });
  }
  const native = results["native"] as Record<string, Record<string, number> | number> | undefined;
  if (native !== undefined) {
    const bytes = (which: string): number => {
      const figures = native[which];
      return typeof figures === "object" ? (figures["stateBytesPerResource"] ?? Infinity) : Infinity;
    };
    goals.push({
      goal: "native state bytes per resource <= dynamic",
      met: bytes("native") <= bytes("dynamic"),
      detail: `native ${bytes("native")}, dynamic ${bytes("dynamic")}, floor ${bytes("floor")} B/resource`,
    });
    const ratio = native["upRatioToFloor"];
    if (typeof ratio === "number")
      // Issue #48: the intent records must not cost the time the native door saves.
      goals.push({
        goal: `native up <= ${MAX_NATIVE_UP_RATIO} x the floor's (median of the rounds)`,
        met: ratio <= MAX_NATIVE_UP_RATIO,
        detail: `ratio ${ratio}`,
      });
    // Issue #38.
    goals.push({
      goal: `native state bytes per resource <= ${MAX_NATIVE_STATE_RATIO} x dynamic`,
      met: bytes("native") <= MAX_NATIVE_STATE_RATIO * bytes("dynamic"),
      detail: `${bytes("native")} / ${bytes("dynamic")} = ${(bytes("native") / bytes("dynamic")).toFixed(3)}`,
    });
  }
  const up = results["up"] as Record<string, Record<string, number>> | undefined;
  if (up?.["100"] !== undefined) {
    goals.push({
      goal: `up ratio <= ${MAX_UP_RATIO} at N=100`,
      met: (up["100"]["ratio"] ?? Infinity) <= MAX_UP_RATIO,
      detail: `ratio ${up["100"]["ratio"]}`,
    });
  }
  if (up !== undefined && minimum !== undefined) {
    const perKey = Object.entries(up).map(
      ([n, f]) => `N=${n}: ${f["upRequestsPerResource"]}+${f["refreshRequestsPerResource"]}`,
    );
    goals.push({
      goal: "requests per key stay at the minimum at every N",
      met: Object.values(up).every(
        (f) =>
          f["upRequestsPerResource"] === minimum["AccessKey.create"] &&
          f["refreshRequestsPerResource"] === minimum["AccessKey.read"],
      ),
      detail: `up+refresh ${perKey.join(", ")}`,
    });
  }
  goals.push(...limitGoals(results));
  const slopes = refreshSlopes(up);
  if (slopes !== undefined) {
    goals.push({
      goal: "refresh grows about linearly with N",
      met: slopes.high <= slopes.low * MAX_REFRESH_SLOPE_GROWTH,
      detail: `marginal ${slopes.low} ms/resource for 10→100, ${slopes.high} for 100→300`,
    });
  }
  return goals;
}

/** A run under the limit: what the limit cost beyond the same run without it, against its floor. */
function beyondUnlimitedGoal(name: string, figures: Record<string, number>): Goal {
  return {
    goal: `${name}.ratioBeyondUnlimited <= ${MAX_RATE_LIMITED_RATIO}`,
    met: (figures["ratioBeyondUnlimited"] ?? Infinity) <= MAX_RATE_LIMITED_RATIO,
    detail: `${figures["seconds"]} s − ${figures["unlimitedSeconds"]} s without the limit, vs ${figures["floorSeconds"]} s floor`,
  };
}

/** The goals of issue #11: a rate-limited, flaky API costs time, never resources or a second `up`. */
function limitGoals(results: Figures): Goal[] {
  const goals: Goal[] = [];
  const parallel = results["rateLimitedParallel"] as Record<string, unknown> | undefined;
  const ups: [string, unknown][] = [
    ["rateLimited", results["rateLimited"]],
    ["rateLimited.native", (results["rateLimited"] as Record<string, unknown> | undefined)?.["native"]],
    [
      "rateLimited.knownQuota",
      (results["rateLimited"] as Record<string, unknown> | undefined)?.["knownQuota"],
    ],
    ["rateLimitedParallel", parallel],
    ["rateLimitedParallel.knownQuota", parallel?.["knownQuota"]],
  ];
  for (const [name, figures] of ups) {
    const limited = figures as Record<string, number> | undefined;
    if (limited === undefined) continue;
    goals.push({
      goal: `${name}.ratio <= ${MAX_RATE_LIMITED_RATIO}`,
      met: (limited["ratio"] ?? Infinity) <= MAX_RATE_LIMITED_RATIO,
      detail: `${limited["seconds"]} s vs ${limited["floorSeconds"]} s floor: ratio ${limited["ratio"]}`,
    });
    goals.push(beyondUnlimitedGoal(name, limited));
    goals.push({
      goal: `${name}.failedResources = 0`,
      met: limited["failedResources"] === 0,
      detail: `${limited["failedResources"]} failed, ${limited["rateLimitedResponses"]} 429s in ${limited["requests"]} requests`,
    });
    goals.push({
      goal: `${name}.requests <= ${MAX_RATE_LIMITED_REQUESTS}`,
      met: (limited["requests"] ?? Infinity) <= MAX_RATE_LIMITED_REQUESTS,
      detail: `${limited["requests"]} requests: ${limited["pages"]} pages, ${limited["singleReads"]} single reads`,
    });
  }
  const coalesced = results["coalescedReads"] as Record<string, Record<string, number>> | undefined;
  for (const [name, figures] of Object.entries(coalesced ?? {})) {
    goals.push({
      goal: `coalescedReads.${name}.requests <= maxRequests`,
      met: (figures["requests"] ?? Infinity) <= (figures["maxRequests"] ?? -1),
      detail: `${figures["requests"]} requests (${figures["pages"]} pages, ${figures["singleReads"]} single reads) for ${figures["stackKeys"]} keys of ${figures["brokerKeys"]}; bound ${figures["maxRequests"]}`,
    });
    goals.push(beyondUnlimitedGoal(`coalescedReads.${name}`, figures));
  }
  // Issue #38: with the staleness bound, a refresh at the default parallelism within the same bound.
  const stale = results["staleReads"] as Record<string, Record<string, number>> | undefined;
  for (const name of ["native", "dynamic"]) {
    const figures = stale?.[name];
    if (figures === undefined) continue;
    goals.push({
      goal: `staleReads.${name}.requests <= maxRequests`,
      met: (figures["requests"] ?? Infinity) <= (figures["maxRequests"] ?? -1),
      detail: `${figures["requests"]} requests (${stale?.[`${name}WithoutStaleness`]?.["requests"]} with readStalenessMs 0); bound ${figures["maxRequests"]}`,
    });
  }
  // Issue #38: `refresh` and `preview --refresh` of 1000 keys at the default parallelism, each door:
  // within the pages' bound, and the limit costing at most 1.25 × requests ÷ limit beyond the time of
  // the same command without it.
  const previewRefresh = results["previewRefresh"] as
    Record<string, Record<string, Record<string, number>>> | undefined;
  for (const door of ["native", "dynamic"]) {
    for (const command of ["refresh", "previewRefresh"]) {
      const figures = previewRefresh?.[door]?.[command];
      if (figures === undefined) continue;
      const name = `previewRefresh.${door}.${command}`;
      goals.push({
        goal: `${name}.requests <= maxRequests`,
        met: (figures["requests"] ?? Infinity) <= (figures["maxRequests"] ?? -1),
        detail: `${figures["requests"]} requests (${figures["pages"]} pages, ${figures["singleReads"]} single reads) for ${figures["stackKeys"]} keys of ${figures["brokerKeys"]}; bound ${figures["maxRequests"]}`,
      });
      goals.push(beyondUnlimitedGoal(name, figures));
    }
  }
  const shared = results["sharedQuota"] as Record<string, number> | undefined;
  if (shared !== undefined) {
    goals.push({
      goal: "sharedQuota: every stack's up completes",
      met: shared["failures"] === 0,
      detail: `${shared["failures"]} failed; ${shared["rateLimitedResponses"]} 429s in ${shared["requests"]} requests; ${shared["seconds"]} s (${shared["unlimitedSeconds"]} s without the limit, requests ÷ limit ${shared["floorSeconds"]} s)`,
    });
    const known = (results["sharedQuota"] as { knownShare?: Record<string, number> }).knownShare;
    for (const [name, round] of [
      ["sharedQuota (pace learned from 429s)", shared],
      ["sharedQuota (each stack its known share)", known],
    ] as const) {
      if (round === undefined) continue;
      goals.push({
        goal: `${name}: ratioBeyondUnlimited <= ${MAX_SHARED_QUOTA_RATIO}`,
        met: (round["ratioBeyondUnlimited"] ?? Infinity) <= MAX_SHARED_QUOTA_RATIO,
        detail: `${round["seconds"]} s − ${shared["unlimitedSeconds"]} s without the limit, vs ${round["floorSeconds"]} s of requests ÷ limit; ${round["rateLimitedResponses"]} 429s`,
      });
    }
  }
  // Issue #50: a program that imports the package to declare resources loads no library it needs
  // only to make requests, read YAML or check a schema (src/on-demand.ts).
  const importCost = results["importCost"] as
    { onDemandLoadedAtImport: string[]; beyondSdkCpuMs: number; onDemandCpuMs: number } | undefined;
  if (importCost !== undefined) {
    goals.push({
      goal: "importCost: no on-demand library loaded by importing the package",
      met: importCost.onDemandLoadedAtImport.length === 0,
      detail: `${importCost.onDemandLoadedAtImport.join(", ") || "none"} loaded; the package adds ${importCost.beyondSdkCpuMs} ms of CPU to @pulumi/pulumi's (loading them would add ${importCost.onDemandCpuMs} ms)`,
    });
  }
  const review = results["review"] as { keys: number; totalMs: number; peakMiB: number | null }[] | undefined;
  const small = review?.find((run) => run.keys === 1_000);
  const large = review?.find((run) => run.keys === 10_000);
  if (small !== undefined && large !== undefined) {
    goals.push({
      goal: `review of 10,000 changed keys < ${MAX_REVIEW_10K_MS} ms`,
      met: large.totalMs < MAX_REVIEW_10K_MS,
      detail: `${large.totalMs} ms, peak ${large.peakMiB} MiB`,
    });
    const growth = large.totalMs / Math.max(1, small.totalMs);
    goals.push({
      goal: `review: 10x the keys takes <= ${MAX_REVIEW_GROWTH}x the time (linear)`,
      met: growth <= MAX_REVIEW_GROWTH,
      detail: `${small.totalMs} ms -> ${large.totalMs} ms (x${growth.toFixed(1)})`,
    });
  }
  const faults = results["rateLimitedFaults"] as Record<string, number> | undefined;
  if (faults !== undefined) {
    goals.push({
      goal: "rateLimitedFaults: 0 failed, 0 duplicates, 1 up",
      met: faults["failedResources"] === 0 && faults["duplicates"] === 0 && faults["ups"] === 1,
      detail: `${faults["failedResources"]} failed, ${faults["duplicates"]} duplicates, ${faults["ups"]} up(s)`,
    });
  }
  return goals;
}

/** Marginal refresh milliseconds per resource between the measured sizes. */
export function refreshSlopes(
  up: Record<string, Record<string, number>> | undefined,
): { low: number; high: number } | undefined {
  const at = (n: number): number | undefined => up?.[String(n)]?.["refreshSeconds"];
  const [a, b, c] = [at(10), at(100), at(300)];
  if (a === undefined || b === undefined || c === undefined) return undefined;
  return { low: Math.round(((b - a) * 1000) / 90), high: Math.round(((c - b) * 1000) / 200) };
}
