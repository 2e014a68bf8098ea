import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { allKeys, installBrokerPlugin } from "../../harness/broker-native.mts";
import type { PulumiProject, StackConfig } from "../../harness/pulumi-project.mts";
import { PROGRAMS_DIR, testProject } from "../support/projects";
import { CLI_TEST_SOURCES, errorText, SecretScan } from "../../harness/secret-scan.mts";
import { isRunning, killHard, processesWithEnv, waitFor } from "../reliability/support/processes";

// The `broker` plugin's lifetime under the real CLI. The engine starts each plugin in a process
// group of its own, so killing the CLI's group (what a cancelled CI job does after its grace period)
// does not kill the plugin: the plugin must notice the engine is gone and exit, and must never exit
// while the engine lives, however long it stays idle. The program creates one key, then keeps the
// engine idle for PAUSE_MS before declaring a second (test/programs/native-pause).

/** Longer than the 10 s within which a plugin whose engine died must exit. */
const PAUSE_MS = 12_000;
/** The command line of the plugin as `broker-config plugin install` runs it. */
const PLUGIN = /dist\/native\/main\.js/u;

let emulator: EmulatorHandle;
let project: PulumiProject;
const scan = new SecretScan();

function config(target: EmulatorHandle): StackConfig {
  return {
    pauseMs: { value: String(PAUSE_MS) },
    "broker:baseUrl": { value: target.url },
    "broker:apiKey": { value: target.adminKey, secret: true },
  };
}

/** The broker plugin processes this project's CLI started (they carry its PULUMI_HOME). */
function plugins(): number[] {
  return processesWithEnv("PULUMI_HOME", project.homeDir, PLUGIN).map((p) => p.pid);
}

/** Waits until the broker holds a key named `name`, then returns the one plugin process serving the up. */
async function pluginOnceKeyExists(name: string): Promise<number> {
  await waitFor(`key ${name} on the broker`, async () =>
    (await allKeys(emulator)).some((k) => k["name"] === name) ? true : undefined,
  );
  const found = plugins();
  expect(found, "one broker plugin serves the up").toHaveLength(1);
  return found[0]!;
}

beforeAll(async () => {
  emulator = await startEmulator();
  scan.secrets(emulator.adminKey);
  project = await testProject("plugin-lifetime", path.join(PROGRAMS_DIR, "native-pause"));
  installBrokerPlugin(project);
}, 120_000);

afterAll(async () => {
  // What the killed CLI left running (its language host and program) was started by this file.
  for (const orphan of processesWithEnv("PULUMI_HOME", project.homeDir, /./u)) killHard(orphan.pid);
  await emulator.close();
  project.remove();
});

describe("the broker plugin's lifetime", () => {
  it("stays while the engine lives, idle for longer than it takes to notice a dead one", async () => {
    await project.initStack("idle", config(emulator));
    const up = project.run(["up", "--yes", "--skip-preview", "--stack", "idle"]);
    const plugin = await pluginOnceKeyExists("first");
    const result = await up;
    scan.text("up", result.stdout + result.stderr, "cli output");
    // The second key came after the pause, from the same plugin: it had not exited meanwhile.
    expect((await allKeys(emulator)).map((k) => k["name"])).toContain("second");
    expect(result.stdout).toMatch(/\+ 3 created/u);
    expect(plugins()).not.toContain(plugin);
    expect(isRunning(plugin), "the engine stops its plugins when the up ends").toBe(false);
  }, 120_000);

  it("exits on its own within 10 s of its CLI's whole process group being killed", async () => {
    const keys = (await allKeys(emulator)).length;
    await project.initStack("killed", config(emulator));
    let cli = 0;
    const up = project
      .run(["up", "--yes", "--skip-preview", "--stack", "killed"], {}, (pid) => (cli = pid), {
        ownProcessGroup: true,
      })
      .then(
        () => new Error("the killed up succeeded"),
        (error: unknown) => error,
      );
    await waitFor("the first key of the killed up", async () =>
      (await allKeys(emulator)).length > keys ? true : undefined,
    );
    const plugin = plugins()[0];
    expect(plugin).toBeDefined();
    process.kill(-cli, "SIGKILL");
    scan.text("killed up", errorText(await up), "error");
    expect(isRunning(plugin!), "the kill of the CLI's group did not reach the plugin").toBe(true);
    await waitFor("the orphaned plugin to exit", () => (isRunning(plugin!) ? undefined : true), 10_000);
    // The engine never declared the second key: nothing outlived the kill to create it.
    expect((await allKeys(emulator)).length).toBe(keys + 1);
  }, 120_000);

  it("leaves no credential in CLI output, state or error messages", async () => {
    scan.secrets(...(await allKeys(emulator)).map((k) => k["key"] as string | undefined));
    scan.project("project", project);
    expect(scan.unread([...CLI_TEST_SOURCES, "error"]), "sources the scan read nothing from").toEqual([]);
    expect(scan.leaks()).toEqual([]);
  });
});
