import type { Reporter, TestModule } from "vitest/node" with { "resolution-mode": "import" };

/** How many of the slowest test files the summary lists. */
const SLOWEST_SHOWN = 15;

/**
 * Ends a run with the slowest test files (per leg of the engine matrix), so a test that starts
 * costing minutes is seen in the run that made it so, then one plain line,
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
    process.stdout.write(`\n${slowestFiles(testModules)}`);
    process.stdout.write(`\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}

/**
 * The {@link SLOWEST_SHOWN} slowest files, each with its leg, the time its tests and hooks took
 * and the time to import it (vitest's `duration` and `collectDuration`), and the sum over all files:
 * files run in parallel, so the sum is more than the run's wall time.
 */
function slowestFiles(testModules: readonly TestModule[]): string {
  const rows = testModules.map((module) => {
    const diagnostic = module.diagnostic();
    return {
      seconds: (diagnostic.duration + diagnostic.collectDuration) / 1000,
      leg: module.project.name,
      file: module.relativeModuleId,
    };
  });
  rows.sort((a, b) => b.seconds - a.seconds);
  const total = rows.reduce((sum, row) => sum + row.seconds, 0);
  const lines = rows
    .slice(0, SLOWEST_SHOWN)
    .map((row) => `  ${row.seconds.toFixed(1).padStart(7)} s  ${row.leg.padEnd(28)} ${row.file}`);
  return [
    `Slowest ${Math.min(SLOWEST_SHOWN, rows.length)} of ${rows.length} test files (${total.toFixed(0)} s in all files):`,
    ...lines,
    "",
  ].join("\n");
}
