import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
import { cpuSecondsOf, ownAndChildrenCpuSeconds } from "../support/file-cpu.mts";

describe("a test file's CPU time (test/support/file-cpu.mts)", () => {
  it("adds its own user and system time to its waited-for children's, from /proc/<pid>/stat", () => {
    // Fields 14-17 of proc(5): utime 150, stime 50, cutime 1000, cstime 200 ticks of 1/100 s.
    const stat = "4242 (node (worker) 1) S 1 4242 4242 0 -1 4194304 10 0 0 0 150 50 1000 200 20 0 11 0 99 0";
    expect(cpuSecondsOf(stat)).toBe(14);
    expect(() => cpuSecondsOf("not a stat line")).toThrow(/not a \/proc\/<pid>\/stat line/u);
  });

  it.skipIf(!fs.existsSync("/proc/self/stat"))(
    "counts a child process's CPU once the child has ended",
    () => {
      const before = ownAndChildrenCpuSeconds()!;
      // The child spins until its own clock says it used 0.5 s of CPU: however busy the machine is.
      execFileSync(process.execPath, [
        "-e",
        "const s = process.cpuUsage(); while (true) { const u = process.cpuUsage(s); if (u.user + u.system > 5e5) break; }",
      ]);
      expect(ownAndChildrenCpuSeconds()! - before).toBeGreaterThanOrEqual(0.5);
    },
  );
});
