/**
 * The Pulumi CLI of a leg of the engine matrix other than the main one, prepared while the tests run.
 *
 * On a new machine that CLI is a Go build of several minutes (`scripts/ensure-pulumi-cli.sh`), and
 * only the leg's few files need it. So the leg's global setup starts it in the background
 * ({@link startLegCli}) and every test file of the leg waits for it before its first line
 * (`test/support/leg-cli-ready.mts`, the leg's setup file, through {@link awaitLegCli}): the other
 * files run meanwhile, rather than every test waiting for a build most of them do not use. Once the
 * CLI is cached the job ends in seconds.
 *
 * The job tells the waiting files how it ended through a status file it writes once, at its end
 * (renamed into place, so a reader never sees half of it); the global setup provides the file's path.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { REPO_ROOT } from "../../harness/repo.mts";

/** What the background job wrote when it ended. */
interface LegCliStatus {
  /** Whether the CLI and its hosts are ready. */
  ok: boolean;
  /** When it failed: why, and the end of the scripts' output. */
  detail: string;
}

/** The lines of the scripts' output kept in a failure's message. */
const FAILURE_LINES = 40;

/**
 * How long a test file waits for the CLI at most: a bound against a build that hangs, not a speed
 * figure.
 */
const WAIT_BOUND_MS = 45 * 60_000;

/** How often a waiting file looks for the status file. */
const POLL_MS = 500;

/**
 * Starts preparing CLI `version` with its language hosts (`scripts/ensure-pulumi-cli.sh` and
 * `scripts/ensure-yaml-host.sh`) in the background. Returns the status file that
 * {@link awaitLegCli} waits for, and a promise of one line saying how the job ended and after how
 * long (the global setup's teardown awaits it, so no build outlives the run, and prints it). The
 * scripts' output goes to a log beside the status file.
 */
export function startLegCli(
  version: string,
  statusDir: string,
): { statusFile: string; ended: Promise<string> } {
  const statusFile = path.join(statusDir, `cli-${version}.json`);
  const logFile = path.join(statusDir, `cli-${version}.log`);
  const log = fs.openSync(logFile, "w");
  const job = spawn(
    "bash",
    [
      "-c",
      'set -e; bash scripts/ensure-pulumi-cli.sh "$1" >/dev/null; bash scripts/ensure-yaml-host.sh "$1" >/dev/null',
      "leg-cli",
      version,
    ],
    { cwd: REPO_ROOT, stdio: ["ignore", log, log] },
  );
  fs.closeSync(log);
  const startedAt = performance.now();
  const ended = new Promise<string>((resolve) => {
    let settled = false;
    const finish = (ok: boolean, why: string) => {
      if (settled) return; // 'error' and 'exit' may both come
      settled = true;
      const output = fs.readFileSync(logFile, "utf8").trimEnd().split("\n");
      const built = output.some((line) => line.startsWith("ensure-pulumi-cli: building"));
      const status: LegCliStatus = {
        ok,
        detail: ok ? "" : [why, ...output.slice(-FAILURE_LINES)].join("\n"),
      };
      fs.writeFileSync(`${statusFile}.tmp`, JSON.stringify(status));
      fs.renameSync(`${statusFile}.tmp`, statusFile);
      const seconds = Math.round((performance.now() - startedAt) / 1000);
      const how = built ? "built beside the tests" : "from the cache";
      resolve(
        `CLI ${version} ${ok ? `ready after ${String(seconds)} s, ${how}` : `failed after ${String(seconds)} s`}`,
      );
    };
    job.on("error", (error) => {
      finish(false, `could not start bash: ${error.message}`);
    });
    job.on("exit", (code, signal) => {
      finish(code === 0, `preparing CLI ${version} ended with ${signal ?? `exit code ${String(code)}`}:`);
    });
  });
  return { statusFile, ended };
}

/**
 * Waits until the job {@link startLegCli} started has ended, then fails with its output if it
 * failed, or if `pulumiBin` then holds another CLI than `version` (the leg would mean nothing if its
 * tests drove another CLI than it names).
 */
export async function awaitLegCli(statusFile: string, pulumiBin: string, version: string): Promise<void> {
  const waitedFrom = performance.now();
  while (!fs.existsSync(statusFile)) {
    if (performance.now() - waitedFrom > WAIT_BOUND_MS)
      throw new Error(
        `CLI ${version} was not ready after ${String(WAIT_BOUND_MS / 60_000)} minutes (${statusFile})`,
      );
    await sleep(POLL_MS);
  }
  const status = JSON.parse(fs.readFileSync(statusFile, "utf8")) as LegCliStatus;
  if (!status.ok)
    throw new Error(`the engine matrix's CLI ${version} could not be prepared: ${status.detail}`);
  const actual = await new Promise<string>((resolve, reject) => {
    const child = spawn(path.join(pulumiBin, "pulumi"), ["version"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.on("error", reject);
    child.on("close", () => {
      resolve(out.trim());
    });
  });
  if (actual !== `v${version}`) throw new Error(`${pulumiBin}/pulumi is ${actual}, not v${version}`);
}
