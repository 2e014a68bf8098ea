/**
 * up: `pulumi up` of N access keys through the real CLI, against the same program served by a no-op
 * dynamic provider (the engine's own floor), the state each resource costs, and `pulumi refresh` of
 * the same stacks. Each N gets a fresh emulator process and fresh stacks.
 */
import * as path from "node:path";
import type * as EmulatorModule from "../../src/emulator/index.ts";
import { startEmulatorProcess } from "../../harness/emulator-process.mts";
import { PulumiProject } from "../../harness/pulumi-project.mts";
import type { BenchContext } from "../lib/context.mts";
import { dist, PROGRAMS_DIR } from "../lib/repo.mts";
import { round } from "../lib/stats.mts";
import { listKeyValues } from "./cli-requests.mts";

/** The stack sizes measured. */
export const SIZES = [10, 100, 300] as const;
/** Runs per program and size; the fastest counts (the least disturbed by other load on the machine). */
export const REPEATS = 3;

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
}

interface Timed {
  upSeconds: number;
  refreshSeconds: number;
  stateBytes: number;
  upRequests: number;
  refreshRequests: number;
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
    const up = await project.run(["up", "--yes", "--skip-preview"]);
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
      for (let r = 1; r <= REPEATS; r++) {
        ctx.log(`up: N=${n}, no-op provider (run ${r} of ${REPEATS})`);
        floorRuns.push(await upAndRefresh(ctx, "noop", n, emulator, controls));
        ctx.log(`up: N=${n}, access keys (run ${r} of ${REPEATS})`);
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
      };
    } finally {
      await emulator.stop();
    }
  }
  return results;
}
