/**
 * native: `pulumi up` of N access keys through the real CLI with the native resources
 * (`pulumi-broker-config/native`, the `broker` plugin), the same keys with the dynamic resources,
 * and the engine's floor (the same inputs served by a no-op dynamic provider), with the state each
 * resource costs. Each program gets a fresh emulator process and a fresh stack per run.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { installBrokerPlugin } from "../../harness/broker-native.mts";
import { startEmulatorProcess } from "../../harness/emulator-process.mts";
import { PulumiProject } from "../../harness/pulumi-project.mts";
import type { BenchContext } from "../lib/context.mts";
import { PROGRAMS_DIR } from "../lib/repo.mts";
import { median, round } from "../lib/stats.mts";
import { listKeyValues } from "./cli-requests.mts";

/** The stack size measured. */
export const NATIVE_SIZE = 100;
/**
 * Rounds: each runs the floor, the dynamic and the native program once, one after the other. Each
 * program's fastest run gives its `upSeconds` (the least disturbed by other load on the machine);
 * the ratios to the floor are taken within a round, where load weighs on all three alike.
 */
export const NATIVE_REPEATS = 5;

/** The figures of one program. */
export interface ProgramFigures {
  /** `pulumi up --yes --skip-preview` of N access keys, the fastest run. */
  upSeconds: number;
  /** Checkpoint bytes / N (the stack's own entries, providers included). */
  stateBytesPerResource: number;
  /**
   * What one access key's entry of the checkpoint holds, in bytes as the file stores them (compact
   * JSON, averaged over the keys): each top-level member (`inputs`, `outputs`, `provider`,
   * `propertyDependencies`, `stackTrace`, …) with its name, and the inputs' and outputs' own members.
   */
  entryBytes?: EntryBytes;
}

/** An access key's checkpoint entry, member by member (see {@link ProgramFigures.entryBytes}). */
export interface EntryBytes {
  /** The whole entry. */
  total: number;
  members: Record<string, number>;
  inputs: Record<string, number>;
  outputs: Record<string, number>;
}

/** Bytes of `"name":value` as compact JSON writes it, the comma included. */
const memberBytes = (name: string, value: unknown): number =>
  JSON.stringify(name).length + 1 + JSON.stringify(value).length + 1;

/** Averages each member's bytes over `entries`. */
function averageMembers(entries: readonly Record<string, unknown>[]): Record<string, number> {
  const sums = new Map<string, number>();
  for (const entry of entries)
    for (const [name, value] of Object.entries(entry))
      sums.set(name, (sums.get(name) ?? 0) + memberBytes(name, value));
  return Object.fromEntries([...sums].map(([name, sum]) => [name, Math.round(sum / entries.length)]));
}

/** What the access keys' entries of a checkpoint file hold, member by member. */
export function accessKeyEntryBytes(checkpointText: string): EntryBytes | undefined {
  const checkpoint = JSON.parse(checkpointText) as {
    checkpoint?: { latest?: { resources?: Record<string, unknown>[] } };
  };
  const keys = (checkpoint.checkpoint?.latest?.resources ?? []).filter((r) =>
    String(r["type"]).endsWith("AccessKey"),
  );
  if (keys.length === 0) return undefined;
  const part = (name: string) => keys.map((r) => (r[name] ?? {}) as Record<string, unknown>);
  return {
    total: Math.round(keys.reduce((sum, r) => sum + JSON.stringify(r).length, 0) / keys.length),
    members: averageMembers(keys),
    inputs: averageMembers(part("inputs")),
    outputs: averageMembers(part("outputs")),
  };
}

/** The `native` section of bench/results.json. */
export interface NativeFigures {
  /** N. */
  resources: number;
  /** The native resources. */
  native: ProgramFigures;
  /** The dynamic resources. */
  dynamic: ProgramFigures;
  /** The no-op dynamic provider: the engine's floor. */
  floor: ProgramFigures;
  /** native.upSeconds / dynamic.upSeconds. */
  upRatioToDynamic: number;
  /**
   * native's up over the floor's in the same round, the median of the rounds: runs a minute apart on
   * a shared machine differ by a tenth and more, runs seconds apart much less.
   */
  upRatioToFloor: number;
  /** Each round's native up over its floor up, in order. */
  roundRatiosToFloor: number[];
  /** native.upSeconds / floor.upSeconds: the fastest of each, from any round. */
  fastestRatioToFloor: number;
}

/** The bench programs measured, by name in bench/programs. */
const PROGRAMS = { floor: "noop", dynamic: "keys", native: "native-keys" } as const;

async function upOnce(
  ctx: BenchContext,
  program: string,
  n: number,
): Promise<{ seconds: number; stateBytes: number; entryBytes: EntryBytes | undefined }> {
  const emulator = await startEmulatorProcess({ controls: false });
  ctx.secrets.add(emulator.adminKey);
  const project = await PulumiProject.create({
    parent: ctx.workDir,
    name: `bench-${program}-${n}`,
    programDir: path.join(PROGRAMS_DIR, program),
    fixture: ctx.fixture,
    pulumiBin: ctx.pulumiBin,
  });
  try {
    if (program === PROGRAMS.native) {
      // The plugin goes into the project's own Pulumi home, with the command users run.
      installBrokerPlugin(project);
    }
    await project.initStack("bench", {
      count: { value: String(n) },
      "broker:baseUrl": { value: emulator.url },
      "broker:apiKey": { value: emulator.adminKey, secret: true },
    });
    const up = await project.run(["up", "--yes", "--skip-preview"]);
    for (const key of await listKeyValues(emulator.url, emulator.adminKey)) ctx.secrets.add(key);
    return {
      seconds: up.seconds,
      stateBytes: project.stateBytes("bench"),
      entryBytes: accessKeyEntryBytes(fs.readFileSync(project.stateFile("bench"), "utf8")),
    };
  } finally {
    ctx.produced.push({
      source: `native: ${program} N=${n}: CLI output and backend files`,
      text: project.producedText(),
    });
    project.remove();
    await emulator.stop();
  }
}

/**
 * Measures the three programs, interleaved run by run so that load on the machine spreads over all
 * of them; the floor runs first in each round, so a cold disk cache penalises it, not us.
 */
export async function measureNative(ctx: BenchContext, n: number = NATIVE_SIZE): Promise<NativeFigures> {
  const runs: Record<
    keyof typeof PROGRAMS,
    { seconds: number; stateBytes: number; entryBytes: EntryBytes | undefined }[]
  > = {
    floor: [],
    dynamic: [],
    native: [],
  };
  for (let r = 1; r <= NATIVE_REPEATS; r++) {
    for (const which of ["floor", "dynamic", "native"] as const) {
      ctx.log(`native: N=${n}, ${which} (run ${r} of ${NATIVE_REPEATS})`);
      runs[which].push(await upOnce(ctx, PROGRAMS[which], n));
    }
  }
  const figures = (which: keyof typeof PROGRAMS): ProgramFigures => {
    const entryBytes = runs[which].at(-1)?.entryBytes;
    return {
      upSeconds: round(Math.min(...runs[which].map((run) => run.seconds))),
      stateBytesPerResource: Math.round((runs[which].at(-1)?.stateBytes ?? Number.NaN) / n),
      ...(which === "floor" || entryBytes === undefined ? {} : { entryBytes }),
    };
  };
  const native = figures("native");
  const dynamic = figures("dynamic");
  const floor = figures("floor");
  const roundRatiosToFloor = runs.native.map((run, r) =>
    round(run.seconds / (runs.floor[r]?.seconds ?? NaN)),
  );
  return {
    resources: n,
    native,
    dynamic,
    floor,
    upRatioToDynamic: round(native.upSeconds / dynamic.upSeconds),
    upRatioToFloor: median(roundRatiosToFloor),
    roundRatiosToFloor,
    fastestRatioToFloor: round(native.upSeconds / floor.upSeconds),
  };
}
