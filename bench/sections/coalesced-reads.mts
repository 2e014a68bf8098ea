/**
 * coalescedReads: what a refresh costs under the API's rate limit now that reads made together are
 * answered from the lists' pages (src/client/read-coalescer.ts). Through the real CLI, against an
 * emulator process limited to 10 requests/s with 50 ms latency:
 *
 * - refresh of 1000 keys, with the native resources and with the dynamic ones (the stack is made by
 *   an `up` without the limit first), at the engine's default parallelism (8 on 2 cores: at most 8
 *   reads wait at once, and a page may only answer reads that began before it was sent) and with
 *   `--parallel 1000`: requests against `⌈T/100⌉ + 5`, T the keys on the broker;
 * - refresh of a stack of 5 keys on a broker holding 2000 other keys: single reads must win.
 */
import * as path from "node:path";
import type * as EmulatorModule from "../../src/emulator/index.ts";
import { installBrokerPlugin } from "../../harness/broker-native.mts";
import { startEmulatorProcess } from "../../harness/emulator-process.mts";
import { PulumiProject } from "../../harness/pulumi-project.mts";
import type { BenchContext } from "../lib/context.mts";
import { dist, PROGRAMS_DIR } from "../lib/repo.mts";
import { ratioBeyondUnlimited, round } from "../lib/stats.mts";
import { listKeyValues } from "./cli-requests.mts";
import { LATENCY_MS, LIMIT_RPS } from "./rate-limit.mts";

/** Keys in the refreshed stack. */
export const REFRESH_KEYS = 1000;
/** The small stack, and the keys of others beside it. */
export const SMALL_STACK_KEYS = 5;
export const OTHER_KEYS = 2000;

/** One refresh under the limit. */
export interface RefreshFigures {
  /** Keys in the stack. */
  stackKeys: number;
  /** Keys on the broker (T), the admin key included. */
  brokerKeys: number;
  /** Requests the refresh sent. */
  requests: number;
  /** Of those, pages of the key list and single reads of a key. */
  pages: number;
  singleReads: number;
  /** Of those, how many the limit refused with 429. */
  rateLimitedResponses: number;
  /** The bound: ⌈T/100⌉ + 5 for a whole refresh, stack keys + 1 for the small stack. */
  maxRequests: number;
  /** The refresh, in seconds (the CLI's whole run). */
  seconds: number;
  /** requests ÷ the limit: the least time those requests allow. */
  floorSeconds: number;
  /** seconds / floorSeconds. */
  ratio: number;
  /**
   * The same refresh without the limit and the latency, just before: the engine's and the
   * provider's own time, which no request count explains.
   */
  unlimitedSeconds: number;
  /** What the limit cost against the least it can (see `ratioBeyondUnlimited` in bench/lib/stats.mts). */
  ratioBeyondUnlimited: number;
  /** With repeats: each run's seconds without the limit and under it (the fastest of each count). */
  runs?: { unlimited: number; limited: number }[];
}

/** The `--parallel` of the second refresh of each big stack. */
export const RAISED_PARALLELISM = 1000;

/** The `coalescedReads` section. */
export interface CoalescedReadsFigures {
  /** At the engine's default parallelism. */
  refreshNative: RefreshFigures;
  refreshDynamic: RefreshFigures;
  /** The same stacks refreshed with `--parallel` {@link RAISED_PARALLELISM}. */
  refreshNativeParallel: RefreshFigures;
  refreshDynamicParallel: RefreshFigures;
  smallStackAmongOthers: RefreshFigures;
}

type Controls = InstanceType<typeof EmulatorModule.EmulatorControls>;
type EmulatorRequests = Awaited<ReturnType<Controls["requests"]>>;

/** Makes `others` keys that belong to no stack, with the client, before the stack exists. */
async function createOtherKeys(url: string, adminKey: string, others: number): Promise<void> {
  const { BrokerClient } = await dist<typeof import("../../src/client/index.ts")>("client/index.js");
  const client = new BrokerClient({ baseUrl: url, apiKey: adminKey, maxConcurrency: 16 });
  try {
    for (let i = 0; i < others; i += 100) {
      const batch = Array.from({ length: Math.min(100, others - i) }, (_, j) =>
        client.createAccessKey({
          name: `other-${i + j}`,
          type: "ACCOUNT",
          permissions: { send: [], receive: [] },
        }),
      );
      await Promise.all(batch);
    }
  } finally {
    await client.close();
  }
}

/** `pulumi refresh` without its prompt and preview: the command of most measured refreshes. */
export const REFRESH: readonly string[] = ["refresh", "--yes", "--skip-preview"];
/** `pulumi preview --refresh`: a refresh's reads, then a preview, nothing written. */
export const PREVIEW_REFRESH: readonly string[] = ["preview", "--refresh"];

/**
 * `up` of a stack of `stackKeys` keys without a limit, then each of `refreshes` (CLI arguments
 * after `pulumi`, such as {@link REFRESH} or {@link PREVIEW_REFRESH}) without a limit and then at
 * {@link LIMIT_RPS} requests/s with {@link LATENCY_MS} ms latency, counting what each sent.
 */
export async function refreshesUnderLimit(
  ctx: BenchContext,
  label: string,
  program: "native-keys" | "keys",
  stack: {
    keys: number;
    otherKeys: number;
    maxRequests: (brokerKeys: number) => number;
    /**
     * Stack config of the stack, set before its `up`: a refresh reads the provider's settings from
     * the state the last `up` wrote, not from the stack config of the moment.
     */
    config?: Readonly<Record<string, string>>;
  },
  refreshes: readonly (readonly string[])[],
  repeats = 1,
): Promise<RefreshFigures[]> {
  const { EmulatorControls } = await dist<typeof EmulatorModule>("emulator/index.js");
  const emulator = await startEmulatorProcess();
  ctx.secrets.add(emulator.adminKey);
  const controls: Controls = new EmulatorControls(emulator.controlUrl);
  const project = await PulumiProject.create({
    parent: ctx.workDir,
    name: `bench-coalesced-${label}`,
    programDir: path.join(PROGRAMS_DIR, program),
    fixture: ctx.fixture,
    pulumiBin: ctx.pulumiBin,
  });
  try {
    if (program === "native-keys") installBrokerPlugin(project);
    await createOtherKeys(emulator.url, emulator.adminKey, stack.otherKeys);
    await project.initStack("bench", {
      count: { value: String(stack.keys) },
      "broker:baseUrl": { value: emulator.url },
      "broker:apiKey": { value: emulator.adminKey, secret: true },
      ...Object.fromEntries(Object.entries(stack.config ?? {}).map(([key, value]) => [key, { value }])),
    });
    ctx.log(
      `coalescedReads: ${label}: up of ${stack.keys} keys without a limit (${stack.otherKeys} other keys)`,
    );
    await project.run(["up", "--yes", "--skip-preview"]);
    const values = await listKeyValues(emulator.url, emulator.adminKey);
    for (const key of values) ctx.secrets.add(key);
    const figures: RefreshFigures[] = [];
    for (const command of refreshes) {
      const shown = command.filter((arg) => arg !== "--yes" && arg !== "--skip-preview").join(" ");
      // Each repeat runs the command without the limit, then under it; the fastest of each counts
      // (the runs least disturbed by other load on the machine), and the most requests any sent.
      const runs: { unlimited: number; limited: number; log: EmulatorRequests; refused: number }[] = [];
      for (let r = 1; r <= repeats; r++) {
        const of = repeats > 1 ? ` (run ${r} of ${repeats})` : "";
        ctx.log(`coalescedReads: ${label}: ${shown} without a limit${of}`);
        const unlimited = await project.run([...command]);
        await controls.injectFault({ kind: "latency", latencyMs: LATENCY_MS });
        await controls.setRateLimit({ requestsPerSecond: LIMIT_RPS });
        const refusedBefore = (await controls.rateLimit()).rateLimitedResponses;
        await controls.clearRequests();
        ctx.log(
          `coalescedReads: ${label}: ${shown} at ${LIMIT_RPS} requests/s, ${LATENCY_MS} ms latency${of}`,
        );
        const limited = await project.run([...command]);
        const log = await controls.requests();
        const refused = (await controls.rateLimit()).rateLimitedResponses - refusedBefore;
        await controls.clearRateLimit();
        await controls.clearFaults();
        runs.push({ unlimited: unlimited.seconds, limited: limited.seconds, log, refused });
      }
      const most = runs.reduce((a, b) => (b.log.length > a.log.length ? b : a));
      const seconds = Math.min(...runs.map((run) => run.limited));
      const unlimitedSeconds = Math.min(...runs.map((run) => run.unlimited));
      const requests = most.log.length;
      const floorSeconds = requests / LIMIT_RPS;
      figures.push({
        stackKeys: stack.keys,
        brokerKeys: values.length,
        requests,
        pages: most.log.filter((entry) => entry.route === "GET /access-key").length,
        singleReads: most.log.filter((entry) => entry.route === "GET /access-key/{accessKey}/permissions")
          .length,
        rateLimitedResponses: most.refused,
        maxRequests: stack.maxRequests(values.length),
        seconds: round(seconds),
        floorSeconds: round(floorSeconds),
        ratio: round(seconds / floorSeconds),
        unlimitedSeconds: round(unlimitedSeconds),
        ratioBeyondUnlimited: ratioBeyondUnlimited(seconds, unlimitedSeconds, floorSeconds),
        ...(repeats > 1
          ? { runs: runs.map((run) => ({ unlimited: round(run.unlimited), limited: round(run.limited) })) }
          : {}),
      });
    }
    return figures;
  } finally {
    ctx.produced.push({
      source: `coalescedReads ${label}: CLI output and backend files`,
      text: project.producedText(),
    });
    project.remove();
    await emulator.stop();
  }
}

/** The bound of a whole refresh: the pages of the key list, and 5 requests to spare. */
export const wholeRefreshBound = (brokerKeys: number): number => Math.ceil(brokerKeys / 100) + 5;

/** Measures the refreshes. */
export async function measureCoalescedReads(ctx: BenchContext): Promise<CoalescedReadsFigures> {
  const big = { keys: REFRESH_KEYS, otherKeys: 0, maxRequests: wholeRefreshBound };
  const both = [REFRESH, [...REFRESH, "--parallel", String(RAISED_PARALLELISM)]] as const;
  const [refreshNative, refreshNativeParallel] = await refreshesUnderLimit(
    ctx,
    "native",
    "native-keys",
    big,
    both,
  );
  const [refreshDynamic, refreshDynamicParallel] = await refreshesUnderLimit(
    ctx,
    "dynamic",
    "keys",
    big,
    both,
  );
  const small = { keys: SMALL_STACK_KEYS, otherKeys: OTHER_KEYS, maxRequests: () => SMALL_STACK_KEYS + 1 };
  const [smallStackAmongOthers] = await refreshesUnderLimit(ctx, "small-stack", "native-keys", small, [
    REFRESH,
  ]);
  if (
    refreshNative === undefined ||
    refreshNativeParallel === undefined ||
    refreshDynamic === undefined ||
    refreshDynamicParallel === undefined ||
    smallStackAmongOthers === undefined
  )
    throw new Error("coalescedReads: a refresh was not measured");
  return {
    refreshNative,
    refreshDynamic,
    refreshNativeParallel,
    refreshDynamicParallel,
    smallStackAmongOthers,
  };
}
