/**
 * Finding the processes a test started, by what they run and where: the provider host and CLI of a
 * test's own project are told apart from everyone else's by their working directory, so a test only
 * ever signals processes it started.
 */
import * as fs from "node:fs";

/** A process, as /proc shows it. */
export interface ProcessInfo {
  pid: number;
  /** Its arguments, joined with spaces. */
  commandLine: string;
  /** Its working directory (resolved). */
  cwd: string;
}

/** Every process this user can inspect. Processes that exit while we look are skipped. */
export function listProcesses(): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/u.test(entry)) continue;
    try {
      const commandLine = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").trim();
      const cwd = fs.realpathSync(`/proc/${entry}/cwd`);
      found.push({ pid: Number(entry), commandLine, cwd });
    } catch {
      // Gone already, or not ours to inspect.
    }
  }
  return found;
}

/** The processes running in `dir` (resolved) whose command line matches `pattern`. */
export function processesIn(dir: string, pattern: RegExp): ProcessInfo[] {
  const real = fs.realpathSync(dir);
  return listProcesses().filter((p) => p.cwd === real && pattern.test(p.commandLine));
}

/**
 * The processes whose environment holds `name=value` and whose command line matches `pattern`: a
 * project's own `PULUMI_HOME` finds every process its CLI started, wherever their working directory.
 */
export function processesWithEnv(name: string, value: string, pattern: RegExp): ProcessInfo[] {
  return listProcesses().filter((p) => {
    try {
      return (
        pattern.test(p.commandLine) &&
        fs.readFileSync(`/proc/${p.pid}/environ`, "utf8").split("\0").includes(`${name}=${value}`)
      );
    } catch {
      return false; // Gone meanwhile.
    }
  });
}

/** Whether process `pid` still runs (a zombie no longer counts: it has exited). */
export function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/u.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Polls `condition` every 100 ms until it returns a value other than undefined; fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  condition: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Sends SIGKILL to `pid` if it still runs. */
export function killHard(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}
