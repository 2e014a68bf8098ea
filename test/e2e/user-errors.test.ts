import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { installBrokerPlugin } from "../../harness/broker-native.mts";
import { CliError, PulumiProject } from "../../harness/pulumi-project.mts";
import { brokerSettingsArgs } from "../support/projects";

// Issue #32: an error either door raises for a user reaches the Pulumi CLI as Pulumi's own errors
// do: its message, with no "unhandled exception" wrapper and no stack frames. Through the real CLI,
// offline, against the emulator, for the same program on each door (test/programs/user-errors):
// a look-up during a preview without settings, a look-up that finds nothing (Output and plain
// forms), a create the API refuses for a wrong key (401), a create the API refuses for its
// arguments, and a `check` rule violation.

const WRONG_KEY = "bka_wrong_key_for_the_user_errors_test";
/**
 * The time one case's CLI runs may take with every core busy. Generous: the cases share their door's
 * stack, so a case cut short would leave its CLI run holding the stack's lock for the next.
 */
const CASE_TIMEOUT_MS = 180_000;
/** The one stack of each door's project. */
const STACK = "errors";

let emulator: EmulatorHandle;

beforeAll(async () => {
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator.close();
});

/**
 * Asserts that `output` (a failed command's stdout and stderr) shows an error as Pulumi shows its
 * own: no "unhandled exception" wrapper, no stack frame (`    at fn (file:1:2)`), and no path
 * into this package's code, shipped (`dist/`) or not (`src/`).
 */
function expectPlainError(output: string): void {
  expect(output).not.toMatch(/unhandled exception/iu);
  expect(output).not.toMatch(/^\s+at .*(?:\(.*:\d+:\d+\)|:\d+:\d+)$/mu);
  expect(output).not.toMatch(/pulumi-broker-config[\\/](?:dist|src)[\\/]/u);
  expect(output).not.toMatch(/\bsrc[\\/](?:core|dynamic|native|client|settings)[\\/]/u);
  expect(output).not.toContain(WRONG_KEY);
  expect(output).not.toContain(emulator.adminKey);
}

const DOORS = [
  { name: "dynamic door", door: "dynamic", plugin: false },
  { name: "native SDK and plugin", door: "native", plugin: true },
] as const;

describe.each(DOORS)("errors a user meets, $name", (door) => {
  let project: PulumiProject;

  beforeAll(async () => {
    project = await PulumiProject.create({
      name: `user-errors-${door.door}`,
      // One program for both doors: its stack config `door` picks the package it requires.
      programDir: path.join(__dirname, "..", "programs", "user-errors"),
      fixture: inject("packageFixture"),
      pulumiBin: inject("pulumiBin"),
    });
    if (door.plugin) installBrokerPlugin(project);
    // One stack per door (CLI runs are the file's cost: issue #50); each case's run sets `door` and `mode`.
    await project.run(["stack", "init", STACK]);
  }, 120_000);

  afterAll(() => {
    project.remove();
  });

  /**
   * Runs `pulumi <args>` on the door's stack with `door` and `mode` (set by the command's own
   * `--config`, which saves them: no `pulumi config` command of their own); it must fail: its output.
   */
  async function failure(mode: string, args: readonly string[]): Promise<string> {
    try {
      await project.run([
        ...args,
        "--config",
        `door=${door.door}`,
        "--config",
        `mode=${mode}`,
        "--stack",
        STACK,
      ]);
    } catch (error) {
      if (error instanceof CliError) return `${error.stdout}\n${error.stderr}`;
      throw error;
    }
    throw new Error(`pulumi ${args.join(" ")} in mode ${mode} succeeded, but it should have failed`);
  }

  /** A preview of `mode`'s look-up of a path that does not exist fails, naming the path and the base URL. */
  async function expectLookupMiss(mode: string): Promise<void> {
    const output = await failure(mode, ["preview"]);
    expect(output).toContain(`no workspace with path "/nowhere/at-all" at ${emulator.url}`);
    expectPlainError(output);
  }

  /** Sets the stack's broker settings: the emulator's URL and `apiKey` (a secret). */
  async function settings(apiKey: string): Promise<void> {
    await project.run(["config", "set-all", "--stack", STACK, ...brokerSettingsArgs(emulator, apiKey)]);
  }

  // The cases without settings first, then the one with a wrong key, then those with the admin key:
  // each `pulumi config` command is a CLI run (issue #50). A failed run leaves nothing in state.
  it(
    "a look-up in a preview without settings: the missing settings, as a message",
    async () => {
      const output = await failure("lookup", ["preview"]);
      expect(output).toMatch(/broker:index:getWorkspace reads the broker API, also during `pulumi preview`/u);
      expect(output).toContain("broker:baseUrl");
      expect(output).toContain("BROKER_API_KEY");
      expectPlainError(output);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    "a `check` rule violation: the property and the rule, as a message",
    async () => {
      const output = await failure("invalid", ["preview"]);
      expect(output).toMatch(/name/u);
      expect(output).toMatch(/\//u);
      expectPlainError(output);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    "a create the API refuses with 401: the status and where the key came from, as a message",
    async () => {
      await settings(WRONG_KEY);
      const output = await failure("create", ["up", "--yes", "--skip-preview"]);
      expect(output).toMatch(/401/u);
      expect(output).toMatch(/check that broker:apiKey \(or BROKER_API_KEY\) holds an ACCOUNT access key/u);
      expectPlainError(output);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    "a look-up that finds nothing (Output form): the path and the base URL, as a message",
    async () => {
      await settings(emulator.adminKey);
      await expectLookupMiss("lookup");
    },
    CASE_TIMEOUT_MS,
  );

  it(
    "a look-up that finds nothing (plain form, awaited): the same message",
    async () => {
      await expectLookupMiss("lookup-plain");
    },
    CASE_TIMEOUT_MS,
  );

  it(
    "a create that fails: the API's reason, as a message",
    async () => {
      const output = await failure("create", ["up", "--yes", "--skip-preview"]);
      expect(output).toMatch(/Workspace \(orphan\):/u);
      expect(output).toContain(
        "POST /workspace failed: 404 Not Found: body.parentId does not name an existing workspace",
      );
      expectPlainError(output);
    },
    CASE_TIMEOUT_MS,
  );
});
