/**
 * up: `pulumi up` of N access keys through the real CLI, against the same program served by a no-op
 * dynamic provider (the engine's own floor), the state each resource costs, and `pulumi refresh` of
 * the same stacks, and the peak memory of the CLI during the up. Each N gets a fresh emulator process
 * and fresh stacks.
 */
import * as path from "node:path";
import type * as EmulatorModule from "../../src/emulator/index.ts";
import { startEmulatorProcess } from "../../harness/emulator-process.mts";
import { PulumiProject } from "../../harness/pulumi-project.mts";
import type { BenchContext } from "../lib/context.mts";
import { PeakMemorySampler } from "../lib/peak-memory.mts";
import { dist, PROGRAMS_DIR } from "../lib/repo.mts";
import { round } from "../lib/stats.mts";
import { listKeyValues } from "./cli-requests.mts";

/** The stack sizes measured. */
export const SIZES = [10, 100, 300, 1000] as const;
/** Runs per program and size; the fastest counts (the least disturbed by other load on the machine). */
export const REPEATS = 3;
/** From this size on, one run per program: an `up` of 1000 keys alone takes over a minute. */
export const SINGLE_RUN_FROM = 1000;

/** Figures for one N. */
export interface UpFigures {
  /** `pulumi up --yes --skip-preview` of N access keys. */
  seconds: number;
  /** The same with the no-op provider. */
  floorSeconds: number;
  /** seconds / floorSeconds. */
  ratio: number;
  /** Checkpoint bytes / N (the stack's own entries included). */
  stateBytesPerResource: number;
  /** The same for the no-op resources with the same inputs. */
  floorStateBytesPerResource: number;
  /** `pulumi refresh --yes --skip-preview` of the N keys. */
  refreshSeconds: number;
  /** The same for the no-op resources. */
  floorRefreshSeconds: number;
  /** refreshSeconds / N, in milliseconds: flat when refresh grows linearly. */
  refreshMsPerResource: number;
  /** Requests the emulator saw during the up, per key. */
  upRequestsPerResource: number;
  /** Requests the emulator saw during the refresh, per key. */
  refreshRequestsPerResource: number;
  /** Peak resident memory of the `pulumi` process during the up, in MiB. */
  cliPeakMiB: number;
  /** The same for the no-op up. */
  floorCliPeakMiB: number;
  /** Peak resident memory of the CLI with its language host and provider processes, in MiB. */
  treePeakMiB: number;
  /** The same for the no-op up. */
  floorTreePeakMiB: number;
}

interface Timed {
  upSeconds: number;
  refreshSeconds: number;
  stateBytes: number;
  upRequests: number;
  refreshRequests: number;
  cliPeakMiB: number;
  treePeakMiB: number;
}

/** Counts the emulator's requests. */
interface RequestCounter {
  clearRequests(): Promise<void>;
  requests(): Promise<unknown[]>;
}

async function upAndRefresh(
  ctx: BenchContext,
  program: "keys" | "noop",
  n: number,
  broker: { url: string; adminKey: string },
  counter: RequestCounter,
): Promise<Timed> {
  const project = await PulumiProject.create({
    parent: ctx.workDir,
    name: `bench-${program}-${n}`,
    programDir: path.join(PROGRAMS_DIR, program),
    fixture: ctx.fixture,
    pulumiBin: ctx.pulumiBin,
  });
  try {
    await project.initStack("bench", {
      count: { value: String(n) },
      "broker:baseUrl": { value: broker.url },
      "broker:apiKey": { value: broker.adminKey, secret: true },
    });
    await counter.clearRequests();
    const memory = new PeakMemorySampler();
    const up = await project.run(["up", "--yes", "--skip-preview"], {}, (pid) => {
      memory.start(pid);
    });
    const peak = memory.stop();
    const upRequests = (await counter.requests()).length;
    const stateBytes = project.stateBytes("bench");
    await counter.clearRequests();
    const refresh = await project.run(["refresh", "--yes", "--skip-preview"]);
    const refreshRequests = (await counter.requests()).length;
    return {
      upSeconds: up.seconds,
      refreshSeconds: refresh.seconds,
      stateBytes,
      upRequests,
      refreshRequests,
      cliPeakMiB: peak.processMiB,
      treePeakMiB: peak.treeMiB,
    };
  } finally {
    ctx.produced.push({
      source: `up: ${program} N=${n}: CLI output and backend files`,
      text: project.producedText(),
    });
    project.remove();
  }
}

function fastest(runs: readonly Timed[]): Timed {
  return {
    upSeconds: Math.min(...runs.map((r) => r.upSeconds)),
    refreshSeconds: Math.min(...runs.map((r) => r.refreshSeconds)),
    stateBytes: runs.at(-1)?.stateBytes ?? Number.NaN,
    upRequests: Math.max(...runs.map((r) => r.upRequests)),
    refreshRequests: Math.max(...runs.map((r) => r.refreshRequests)),
    cliPeakMiB: Math.max(...runs.map((r) => r.cliPeakMiB)),
    treePeakMiB: Math.max(...runs.map((r) => r.treePeakMiB)),
  };
}

/** Measures every N in {@link SIZES}; the floor runs first, so a cold disk cache penalises it, not us. */
export async function measureUp(
  ctx: BenchContext,
  sizes: readonly number[] = SIZES,
): Promise<Record<string, UpFigures>> {
  const { EmulatorControls } = await dist<typeof EmulatorModule>("emulator/index.js");
  const results: Record<string, UpFigures> = {};
  for (const n of sizes) {
    const emulator = await startEmulatorProcess();
    ctx.secrets.add(emulator.adminKey);
    const controls = new EmulatorControls(emulator.controlUrl);
    try {
      const floorRuns: Timed[] = [];
      const ourRuns: Timed[] = [];
      const repeats = n >= SINGLE_RUN_FROM ? 1 : REPEATS;
      for (let r = 1; r <= repeats; r++) {
        ctx.log(`up: N=${n}, no-op provider (run ${r} of ${repeats})`);
        floorRuns.push(await upAndRefresh(ctx, "noop", n, emulator, controls));
        ctx.log(`up: N=${n}, access keys (run ${r} of ${repeats})`);
        ourRuns.push(await upAndRefresh(ctx, "keys", n, emulator, controls));
      }
      const floor = fastest(floorRuns);
      const ours = fastest(ourRuns);
      for (const key of await listKeyValues(emulator.url, emulator.adminKey)) ctx.secrets.add(key);
      results[String(n)] = {
        seconds: round(ours.upSeconds),
        floorSeconds: round(floor.upSeconds),
        ratio: round(ours.upSeconds / floor.upSeconds),
        stateBytesPerResource: Math.round(ours.stateBytes / n),
        floorStateBytesPerResource: Math.round(floor.stateBytes / n),
        refreshSeconds: round(ours.refreshSeconds),
        floorRefreshSeconds: round(floor.refreshSeconds),
        refreshMsPerResource: round((ours.refreshSeconds * 1000) / n, 1),
        upRequestsPerResource: round(ours.upRequests / n, 2),
        refreshRequestsPerResource: round(ours.refreshRequests / n, 2),
        cliPeakMiB: ours.cliPeakMiB,
        floorCliPeakMiB: floor.cliPeakMiB,
        treePeakMiB: ours.treePeakMiB,
        floorTreePeakMiB: floor.treePeakMiB,
      };
    } finally {
      await emulator.stop();
    }
  }
  return results;
}
