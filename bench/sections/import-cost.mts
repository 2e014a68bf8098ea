/**
 * importCost: the CPU time a fresh Node process spends requiring the package, as every user's
 * program does on every `pulumi preview` and `up` (it imports the package only to declare
 * resources), against requiring `@pulumi/pulumi` alone, and what the libraries that the package
 * loads on first use (src/on-demand.ts) would add if it loaded them on import. Each figure is the
 * median of 7 rounds that alternate the three, without a V8 code cache (as a user's program runs).
 */
import { execFileSync } from "node:child_process";
import * as os from "node:os";
import * as path from "node:path";
import type { BenchContext } from "../lib/context.mts";

/** The libraries the package loads on first use, as `node_modules` names (src/on-demand.ts). */
const ON_DEMAND = ["undici", "yaml", "ajv/dist/2020"] as const;

/** What the section measured. */
export interface ImportCostResult {
  /** Requiring `@pulumi/pulumi` alone, CPU milliseconds (median). */
  sdkCpuMs: number;
  /** Requiring the package (which requires `@pulumi/pulumi`), CPU milliseconds (median). */
  packageCpuMs: number;
  /** The package beyond the SDK: what it adds to every program run. */
  beyondSdkCpuMs: number;
  /** Requiring the on-demand libraries after the package: what loading them on import would add. */
  onDemandCpuMs: number;
  /** On-demand libraries found loaded after requiring the package: none is the goal. */
  onDemandLoadedAtImport: string[];
  /** The machine's 1-minute load average at the start, the figures' context. */
  loadAverage: number;
}

const ROUNDS = 7;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Requires each target in fresh processes inside the fixture, rounds alternating between them. */
export function measureImportCost(ctx: BenchContext): ImportCostResult {
  const script = path.join(ctx.repoRoot, "bench", "programs", "import-cost.cjs");
  const env = { ...process.env };
  delete env["NODE_COMPILE_CACHE"];
  const run = (...targets: string[]): { cpuMs: number; loaded: string[] } =>
    JSON.parse(
      execFileSync(process.execPath, [script, ...targets], { cwd: ctx.fixture, encoding: "utf8", env }),
    ) as { cpuMs: number; loaded: string[] };
  const loadAverage = Math.round((os.loadavg()[0] ?? 0) * 100) / 100;
  const sdk: number[] = [];
  const pkg: number[] = [];
  const eager: number[] = [];
  let loaded: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    sdk.push(run("@pulumi/pulumi").cpuMs);
    const ours = run("pulumi-broker-config");
    pkg.push(ours.cpuMs);
    loaded = ours.loaded;
    // The package's own copies: the fixture installs its dependencies beside it.
    eager.push(run("pulumi-broker-config", ...ON_DEMAND).cpuMs);
  }
  const packageCpuMs = median(pkg);
  return {
    sdkCpuMs: Math.round(median(sdk)),
    packageCpuMs: Math.round(packageCpuMs),
    beyondSdkCpuMs: Math.round(packageCpuMs - median(sdk)),
    onDemandCpuMs: Math.round(median(eager) - packageCpuMs),
    onDemandLoadedAtImport: ON_DEMAND.filter((name) => loaded.includes(name.split("/")[0] ?? name)),
    loadAverage,
  };
}
