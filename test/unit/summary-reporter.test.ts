import { afterEach, describe, expect, it, vi } from "vitest";
import type { TestModule } from "vitest/node" with { "resolution-mode": "import" };
import SummaryReporter, {
  budgetWarnings,
  costliestFiles,
  FILE_TIME_BUDGET_SECONDS,
  slowestFiles,
  unlistedWarnings,
} from "../support/summary-reporter.mts";

/** The little of a vitest TestModule the reporter reads: its tests' states, its times, its leg and path. */
function fakeModule(file: string, seconds: number, states: readonly string[]): TestModule {
  return {
    relativeModuleId: file,
    project: { name: "main" },
    // Split as vitest does: importing the file, then running its tests and hooks.
    diagnostic: () => ({ collectDuration: 1000, duration: seconds * 1000 - 1000 }),
    // What test/support/file-cpu.mts records: a file here spent half its time on the CPU.
    meta: () => ({ cpuSeconds: seconds / 2 }),
    children: {
      *allTests() {
        for (const state of states) yield { result: () => ({ state }) };
      },
    },
  } as unknown as TestModule;
}

describe("the test-time budget", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("is 180 s a file", () => {
    expect(FILE_TIME_BUDGET_SECONDS).toBe(180);
  });

  it("warns once for each file over it, slowest first, and for none at or under it", () => {
    const times = [
      { seconds: 180, leg: "main", file: "test/e2e/at.test.ts" },
      { seconds: 181.04, leg: "main", file: "test/e2e/over.test.ts" },
      { seconds: 12, leg: "main", file: "test/unit/fast.test.ts" },
      { seconds: 531, leg: "cli-3.143", file: "test/e2e/release.test.ts" },
    ];
    expect(budgetWarnings(times)).toEqual([
      "WARNING: test/e2e/release.test.ts (cli-3.143) took 531.0 s, over the 180 s budget for one test file: share its work across cases or split it",
      "WARNING: test/e2e/over.test.ts (main) took 181.0 s, over the 180 s budget for one test file: share its work across cases or split it",
    ]);
    expect(budgetWarnings(times.slice(0, 1))).toEqual([]);
  });

  it("warns once for a long file the sequencer does not start first, and for none it lists or under the bound", () => {
    const times = [
      { seconds: 61, leg: "main", file: "test/e2e/unlisted.test.ts" },
      { seconds: 75, leg: "cli-3.143", file: "test/e2e/unlisted.test.ts" },
      { seconds: 60, leg: "main", file: "test/e2e/at-bound.test.ts" },
      { seconds: 200, leg: "main", file: "test/e2e/listed.test.ts" },
    ];
    expect(unlistedWarnings(times, ["test/e2e/listed.test.ts"], 60)).toEqual([
      "WARNING: test/e2e/unlisted.test.ts took 75.0 s but is not in LONGEST_FILES (test/support/longest-files.mts): on a fresh clone it may start last and run alone; list it by its time",
    ]);
  });

  it("lists the slowest files with their CPU time and the sums over all of them", () => {
    const text = slowestFiles([
      { seconds: 2, cpuSeconds: 3.5, leg: "main", file: "b.test.ts" },
      { seconds: 5.25, cpuSeconds: 1.25, leg: "main", file: "a.test.ts" },
      { seconds: 1, leg: "main", file: "c.test.ts" },
    ]);
    expect(text.split("\n")).toEqual([
      "Slowest 3 of 3 test files (8 s in all files, 5 s of CPU):",
      `      5.3 s      1.3 s CPU  ${"main".padEnd(28)} a.test.ts`,
      `      2.0 s      3.5 s CPU  ${"main".padEnd(28)} b.test.ts`,
      `      1.0 s        - s CPU  ${"main".padEnd(28)} c.test.ts`,
      "",
    ]);
  });

  it("lists the files that spent the most CPU, most first, with their share of all files' CPU", () => {
    const text = costliestFiles([
      { seconds: 9, cpuSeconds: 1, leg: "main", file: "waits.test.ts" },
      { seconds: 2, cpuSeconds: 3, leg: "main", file: "busy.test.ts" },
      { seconds: 1, leg: "main", file: "unknown.test.ts" },
    ]);
    expect(text.split("\n")).toEqual([
      "Most CPU: 2 test files spent 4 s of CPU, 100% of all files' 4 s:",
      `      2.0 s      3.0 s CPU  ${"main".padEnd(28)} busy.test.ts`,
      `      9.0 s      1.0 s CPU  ${"main".padEnd(28)} waits.test.ts`,
      "",
    ]);
    // Of 20 files of 1 s each, the 15 shown hold 75%.
    const many = Array.from({ length: 20 }, (_, i) => ({
      seconds: 1,
      cpuSeconds: 1,
      leg: "main",
      file: `${i}`,
    }));
    expect(costliestFiles(many).split("\n")[0]).toBe(
      "Most CPU: 15 test files spent 15 s of CPU, 75% of all files' 20 s:",
    );
    expect(costliestFiles([{ seconds: 1, leg: "main", file: "a.test.ts" }])).toBe("");
  });

  it("reads each file's CPU time from the meta its setup file recorded", () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    new SummaryReporter().onTestRunEnd([fakeModule("test/e2e/some.test.ts", 30, ["passed"])]);
    expect(written.join("")).toContain(
      `     30.0 s     15.0 s CPU  ${"main".padEnd(28)} test/e2e/some.test.ts`,
    );
  });

  it("ends a run with the warnings before the counts line, which stays last", () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    new SummaryReporter().onTestRunEnd([
      fakeModule("test/e2e/slow.test.ts", 200, ["passed", "failed"]),
      fakeModule("test/unit/quick.test.ts", 3, ["passed", "skipped"]),
    ]);
    const lines = written.join("").trimEnd().split("\n");
    expect(lines.at(-1)).toBe("2 passed, 1 failed, 1 skipped");
    const warnings = lines.filter((line) => line.startsWith("WARNING:"));
    expect(warnings).toEqual([
      "WARNING: test/e2e/slow.test.ts (main) took 200.0 s, over the 180 s budget for one test file: share its work across cases or split it",
      "WARNING: test/e2e/slow.test.ts took 200.0 s but is not in LONGEST_FILES (test/support/longest-files.mts): on a fresh clone it may start last and run alone; list it by its time",
    ]);
  });
});
