/**
 * A setup file of every test file (vitest.config.mts): it records the CPU time the file cost, its
 * worker's and that of every process the file started and waited for (the Pulumi CLI with the
 * language hosts, programs and providers it ran), in the file's task meta, where the summary reporter
 * (test/support/summary-reporter.mts) reads it. Wall time depends on what ran beside a file; its CPU
 * time does not, so it says which files cost the run its time on a machine whose cores are all busy.
 */
import * as fs from "node:fs";
import { afterAll } from "vitest";

declare module "vitest" {
  interface TaskMeta {
    /** The CPU seconds (user and system) the file's worker and its waited-for processes spent on it. */
    cpuSeconds?: number;
  }
}

/** Clock ticks per second in `/proc`'s figures (`USER_HZ`, 100 on every Linux that Node runs on). */
const TICKS_PER_SECOND = 100;

/**
 * The CPU seconds of a process and of its children that it has waited for, from the text of its
 * `/proc/<pid>/stat`: `utime`, `stime`, `cutime` and `cstime`, fields 14 to 17 (proc(5)). A child
 * counts once it and the processes it waited for have ended, so a CLI's language host and program
 * count when the CLI has waited for them and the test for the CLI. The command name, field 2, may
 * hold spaces and parentheses, so fields are counted after its closing parenthesis.
 */
export function cpuSecondsOf(stat: string): number {
  const afterName = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // afterName[0] is field 3 (the state), so field n is afterName[n - 3].
  const ticks = [14, 15, 16, 17].reduce((sum, field) => sum + Number(afterName[field - 3]), 0);
  if (!Number.isFinite(ticks)) throw new Error(`not a /proc/<pid>/stat line: ${stat.slice(0, 80)}`);
  return ticks / TICKS_PER_SECOND;
}

/** This process's CPU seconds with its waited-for children's, or undefined where `/proc` is not. */
export function ownAndChildrenCpuSeconds(): number | undefined {
  try {
    return cpuSecondsOf(fs.readFileSync("/proc/self/stat", "utf8"));
  } catch {
    return undefined;
  }
}

// Read as the setup file loads, before the test file is imported, so its import counts too.
const atStart = ownAndChildrenCpuSeconds();
// After hooks run in reverse order of registration: this one, registered first, runs after the file's own.
// Vitest reads a hook's first parameter as fixtures, which it requires destructured: none is used.
// eslint-disable-next-line no-empty-pattern
afterAll(({}, file) => {
  const atEnd = ownAndChildrenCpuSeconds();
  if (atStart !== undefined && atEnd !== undefined) file.meta.cpuSeconds = atEnd - atStart;
});
