import { spawn } from "node:child_process";
import { once } from "node:events";
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { leftoverProcesses, processesOfRun, RUN_MARKER } from "../support/leftover-processes";

// The check that `npm test` leaves no process behind (test/global-setup.ts) must find a leftover of
// its own run, by its marker and command line, and nothing of another run.

/** A process that looks like an emulator (by its arguments) and waits until killed. */
function fakeEmulator(runId: string): ReturnType<typeof spawn> {
  return spawn(process.execPath, ["-e", "setInterval(() => {}, 60_000)", "dist/emulator/cli.js"], {
    env: { ...process.env, [RUN_MARKER]: runId },
    stdio: "ignore",
  });
}

describe("the leftover process check", () => {
  it("finds a running process of its run, and none once it exited", async () => {
    const runId = randomUUID();
    const child = fakeEmulator(runId);
    try {
      await once(child, "spawn");
      expect(processesOfRun(runId)).toEqual([
        { pid: child.pid, args: expect.stringContaining("dist/emulator/cli.js") as unknown },
      ]);
    } finally {
      child.kill("SIGKILL");
    }
    await once(child, "exit");
    expect(await leftoverProcesses(runId, 0)).toEqual([]);
  });

  it("ignores the processes of another run", async () => {
    const child = fakeEmulator(randomUUID());
    try {
      await once(child, "spawn");
      expect(processesOfRun(randomUUID())).toEqual([]);
    } finally {
      child.kill("SIGKILL");
      await once(child, "exit");
    }
  });
});
