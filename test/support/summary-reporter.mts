import type { Reporter, TestModule } from "vitest/node";
import { LISTED_FROM_SECONDS, LONGEST_FILES } from "./longest-files.mts";

/** How many of the slowest test files the summary lists. */
const SLOWEST_SHOWN = 15;

/**
 * The most one test file may take, in seconds (its tests, hooks and import), before the run warns
 * about it. The whole run's time is the sum of its files' over the cores, so one file that grows
 * past this is where a slower CI starts; the warning shows it in the run that made it so.
 * @default 180
 */
export const FILE_TIME_BUDGET_SECONDS = 180;

/** One test file's time in a run. */
export interface FileTime {
  /** Its tests, hooks and import, in seconds. */
  seconds: number;
  /**
   * The CPU seconds its worker and the processes it waited for spent (test/support/file-cpu.mts),
   * where the platform tells them.
   */
  cpuSeconds?: number | undefined;
  /** The vitest project (leg of the engine matrix) it ran in. */
  leg: string;
  /** Its path from the repository's root. */
  file: string;
}

/**
 * Ends a run with the slowest test files (per leg of the engine matrix), those that spent the most
 * CPU, a warning line for each file over {@link FILE_TIME_BUDGET_SECONDS}, then one plain line,
 * `N passed, N failed, N skipped`, that CI systems and people can read without parsing vitest's
 * colourful summary. That line stays the last one.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[]): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") counts.passed++;
        else if (state === "failed") counts.failed++;
        else counts.skipped++;
      }
    }
    const times = fileTimes(testModules);
    process.stdout.write(`\n${slowestFiles(times)}`);
    const costliest = costliestFiles(times);
    if (costliest !== "") process.stdout.write(`\n${costliest}`);
    const warnings = [...budgetWarnings(times), ...unlistedWarnings(times)];
    if (warnings.length > 0) process.stdout.write(`\n${warnings.join("\n")}\n`);
    process.stdout.write(`\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}

/**
 * Each file's time: vitest's `duration` (tests and hooks) and `collectDuration` (import), and the CPU
 * time its setup file recorded.
 */
function fileTimes(testModules: readonly TestModule[]): FileTime[] {
  return testModules.map((module) => {
    const diagnostic = module.diagnostic();
    return {
      seconds: (diagnostic.duration + diagnostic.collectDuration) / 1000,
      cpuSeconds: module.meta().cpuSeconds,
      leg: module.project.name,
      file: module.relativeModuleId,
    };
  });
}

/** A file's line in the summary's lists: its time, its CPU time ("-" where unknown), its leg and path. */
function fileLine(row: FileTime): string {
  const cpu = row.cpuSeconds === undefined ? "-" : row.cpuSeconds.toFixed(1);
  return `  ${row.seconds.toFixed(1).padStart(7)} s  ${cpu.padStart(7)} s CPU  ${row.leg.padEnd(28)} ${row.file}`;
}

/**
 * The {@link SLOWEST_SHOWN} slowest files, each with its time, its CPU time, its leg and its path,
 * and the sums over all files: files run in parallel, so the sum of times is more than the run's wall
 * time. The CPU time does not depend on what ran beside a file, so it ranks what a file costs the run
 * on a busy machine (the suite is bound by the CPU); "-" where the platform does not tell it.
 */
export function slowestFiles(times: readonly FileTime[]): string {
  const rows = [...times].sort((a, b) => b.seconds - a.seconds);
  const total = rows.reduce((sum, row) => sum + row.seconds, 0);
  const cpuTotal = rows.reduce((sum, row) => sum + (row.cpuSeconds ?? 0), 0);
  return [
    `Slowest ${Math.min(SLOWEST_SHOWN, rows.length)} of ${rows.length} test files (${total.toFixed(0)} s in all files, ${cpuTotal.toFixed(0)} s of CPU):`,
    ...rows.slice(0, SLOWEST_SHOWN).map(fileLine),
    "",
  ].join("\n");
}

/**
 * The {@link SLOWEST_SHOWN} files that spent the most CPU, most first, with the share of all files'
 * CPU they hold together: where fewer engine commands would make the whole run shorter, whatever ran
 * beside them (a file that waits, on a rate limit or a killed process, is slow and cheap). Empty when
 * the platform tells no file's CPU time.
 */
export function costliestFiles(times: readonly FileTime[]): string {
  const rows = times
    .filter((row): row is FileTime & { cpuSeconds: number } => row.cpuSeconds !== undefined)
    .sort((a, b) => b.cpuSeconds - a.cpuSeconds);
  if (rows.length === 0) return "";
  const cpuTotal = rows.reduce((sum, row) => sum + row.cpuSeconds, 0);
  const shown = rows.slice(0, SLOWEST_SHOWN);
  const shownCpu = shown.reduce((sum, row) => sum + row.cpuSeconds, 0);
  const share = cpuTotal > 0 ? Math.round((100 * shownCpu) / cpuTotal) : 0;
  return [
    `Most CPU: ${shown.length} test files spent ${shownCpu.toFixed(0)} s of CPU, ${share}% of all files' ${cpuTotal.toFixed(0)} s:`,
    ...shown.map(fileLine),
    "",
  ].join("\n");
}

/**
 * One line per file over `budget` seconds, slowest first, each starting `WARNING:` so a log search
 * finds it; none when every file is within it.
 */
export function budgetWarnings(
  times: readonly FileTime[],
  budget: number = FILE_TIME_BUDGET_SECONDS,
): string[] {
  return times
    .filter((row) => row.seconds > budget)
    .sort((a, b) => b.seconds - a.seconds)
    .map(
      (row) =>
        `WARNING: ${row.file} (${row.leg}) took ${row.seconds.toFixed(1)} s, over the ${budget} s budget for one test file: share its work across cases or split it`,
    );
}

/**
 * One line per file that took longer than `from` seconds but is not among `listed`, the files the
 * sequencer starts first: on a fresh clone (no earlier run's durations) it would start by its size
 * and could run alone at the end of the run. Each file once, whatever its legs.
 */
export function unlistedWarnings(
  times: readonly FileTime[],
  listed: readonly string[] = LONGEST_FILES,
  from: number = LISTED_FROM_SECONDS,
): string[] {
  const slowest = new Map<string, number>();
  for (const row of times) {
    if (row.seconds > from && !listed.includes(row.file))
      slowest.set(row.file, Math.max(row.seconds, slowest.get(row.file) ?? 0));
  }
  return [...slowest]
    .sort((a, b) => b[1] - a[1])
    .map(
      ([file, seconds]) =>
        `WARNING: ${file} took ${seconds.toFixed(1)} s but is not in LONGEST_FILES (test/support/longest-files.mts): on a fresh clone it may start last and run alone; list it by its time`,
    );
}
