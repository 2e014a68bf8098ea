/**
 * review: the access review's time and peak memory from the text of `pulumi preview --json` to the
 * Markdown comment (issue #47), for generated previews of 1,000 and 10,000 changed keys, each size
 * in a fresh `node` process on the built package of the fixture (as `broker-config review` runs),
 * the fastest of three runs (the least disturbed by the shared machine).
 */
import { execFileSync } from "node:child_process";
import * as os from "node:os";
import * as path from "node:path";
import type { BenchContext } from "../lib/context.mts";

/** The sizes measured: changed keys in the preview. */
export const REVIEW_SIZES = [1_000, 10_000] as const;

/** One size's figures. */
export interface ReviewRun {
  keys: number;
  /** The preview's JSON, in bytes. */
  bytes: number;
  parseAndAnalyzeMs: number;
  renderMs: number;
  totalMs: number;
  /** CPU time of the same span (user + system), less disturbed than wall time by a busy machine. */
  cpuMs: number;
  /** The process's peak resident memory (VmHWM), MiB: Node's own ~40 MiB included. */
  peakMiB: number | null;
  markdownChars: number;
  reviewedKeys: number;
  /** The machine's 1-minute load average when the size was measured: the figures' context. */
  loadAverage: number;
}

/** Runs each size three times in fresh processes; keeps the fastest run of each. */
export function measureReview(ctx: BenchContext): ReviewRun[] {
  const script = path.join(ctx.repoRoot, "bench", "programs", "review.cjs");
  const packageDir = path.join(ctx.fixture, "node_modules", "pulumi-broker-config");
  return REVIEW_SIZES.map((keys) => {
    ctx.log(`review: ${keys} changed keys, preview JSON to Markdown`);
    const loadAverage = Math.round((os.loadavg()[0] ?? 0) * 100) / 100;
    const runs = [0, 1, 2].map(
      () =>
        ({
          ...(JSON.parse(
            execFileSync(process.execPath, [script, packageDir, String(keys)], { encoding: "utf8" }),
          ) as Omit<ReviewRun, "loadAverage">),
          loadAverage,
        }) satisfies ReviewRun,
    );
    return runs.reduce((best, run) => (run.totalMs < best.totalMs ? run : best));
  });
}
