/**
 * Processes a test run must not leave behind: emulators, Pulumi CLIs, language and provider hosts.
 *
 * Every process a run starts inherits {@link RUN_MARKER} from the test process (vitest's global setup
 * sets it), so leftovers are found by that marker and their command line, never confused with the
 * processes of another run or another user on the same machine.
 */
import * as fs from "node:fs";

/** The environment variable that marks the processes of one test run. */
export const RUN_MARKER = "PULUMI_BROKER_CONFIG_TEST_RUN";

/**
 * Command lines of the processes tests start: the emulator (bin or `dist/emulator/cli.js`), the
 * `pulumi` CLI, its language host and the program it runs, and resource provider hosts (the
 * dynamic-provider script `pulumi-resource-pulumi-nodejs` runs `cmd/dynamic-provider`).
 */
export const TEST_PROCESS_PATTERN =
  /broker-config-emulator|emulator\/cli\.js|pulumi-resource-|pulumi-language-|bin\/pulumi |cmd\/dynamic-provider|@pulumi\/pulumi\/cmd\/run/u;

/** A process: its id and command line. */
export interface LeftoverProcess {
  pid: number;
  args: string;
}

/** The running processes marked with run id `runId` whose command line matches {@link TEST_PROCESS_PATTERN}. */
export function processesOfRun(runId: string): LeftoverProcess[] {
  const marker = `${RUN_MARKER}=${runId}`;
  const found: LeftoverProcess[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/u.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = fs.readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
      if (!environ.includes(marker)) continue;
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").trim();
      if (TEST_PROCESS_PATTERN.test(args)) found.push({ pid: Number(entry), args });
    } catch {
      // Exited while we looked, or not ours to read.
    }
  }
  return found;
}

/**
 * The processes of run `runId` still running after they had up to `graceMs` to exit (a process a
 * test has just stopped may need a moment to go). Each check is one look at /proc.
 */
export async function leftoverProcesses(runId: string, graceMs = 10_000): Promise<LeftoverProcess[]> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const left = processesOfRun(runId);
    if (left.length === 0 || Date.now() >= deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
