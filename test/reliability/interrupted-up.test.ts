import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import { NO_BROKER_ENV, PROGRAMS_DIR, testProject } from "../support/projects";
import { listKeys, listWorkspaces } from "./support/broker-api";
import { expectDeclaredState, viewOf } from "./support/declared-state";
import { latestDeployment, type PendingOperation } from "../support/state";
import { killHard, processesIn, waitFor } from "./support/processes";
import { CLI_TEST_SOURCES, errorText, SecretScan } from "../../harness/secret-scan.mts";
import { brokerConfig, resourceCount, specConfig, type Spec } from "./support/spec";

// An `up` interrupted while the broker is creating objects: the creates are committed on the broker
// (a latency fault holds back their responses), then the provider process, or the CLI itself, is
// killed. What the real CLI then needs, found by running it (and written down in BENCHMARKS.md):
//
// - provider killed: the engine records the creates as failed, holds no pending operation and no
//   lock; `pulumi refresh` then `pulumi up` converge, and `adopt: true` takes over the objects the
//   interrupted creates made instead of duplicating them;
// - CLI killed: the file backend keeps the dead CLI's lock and the creates as pending operations.
//   `pulumi cancel` removes the lock, `pulumi refresh --clear-pending-creates` drops the pending
//   creates (a non-interactive refresh keeps them, and dynamic resources cannot be imported), then
//   `pulumi up` with `adopt: true` converges without duplicates.

/** How long the broker holds back create responses: the kill lands well within it. */
const HELD_MS = 25_000;

const spec: Spec = {
  workspaces: [{ name: "team", adopt: true }],
  keys: [0, 1, 2, 3].map((i) => ({
    name: `svc-${i}`,
    type: i === 3 ? "ACCOUNT" : "SERVICE",
    permissions: { send: [`orders/${i}`], receive: ["payments/*"] },
    adopt: true,
  })),
  pairs: [{ key: "svc-0", rotationTriggers: { v: "1" } }],
};

const grown: Spec = {
  ...spec,
  keys: [
    ...spec.keys,
    ...[4, 5, 6].map((i) => ({
      name: `svc-${i}`,
      type: "SERVICE" as const,
      permissions: { send: [`orders/${i}`], receive: [] },
      adopt: true,
    })),
  ],
};

let emulator: EmulatorHandle;
let project: PulumiProject;
let stack: Stack;
const scan = new SecretScan();
const cleanups: (() => unknown)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Holds back the responses of creates (after committing them) so a kill lands while they are in flight. */
async function holdCreates(): Promise<void> {
  await emulator.controls!.injectFault({
    kind: "latency",
    latencyMs: HELD_MS,
    phase: "after",
    routes: ["POST /access-key", "POST /workspace"],
  });
}

/**
 * Starts `up` and waits until the broker holds `keys` access keys and `workspaces` workspaces; returns
 * the running up (wrapped: an async function would otherwise wait for it), which settles with its error.
 */
async function upUntilCommitted(keys: number, workspaces: number): Promise<{ failure: Promise<unknown> }> {
  const running = stack.up().then(
    () => {
      throw new Error("the interrupted up succeeded");
    },
    (error: unknown) => error,
  );
  await waitFor("the creates to be committed", async () => {
    const stats = await emulator.controls!.stats();
    return stats.accessKeys >= keys + 1 && stats.workspaces >= workspaces ? true : undefined;
  });
  return { failure: running };
}

/** The operations the stack's checkpoint holds as begun and never finished (read without a CLI start). */
function pendingOperations(): PendingOperation[] {
  return latestDeployment(project, "dev").pending_operations ?? [];
}

/** `pulumi refresh` of the stack as one CLI run (the Automation API adds a `stack history` no step reads). */
async function refresh(...flags: string[]): Promise<string> {
  const run = await project.run(["refresh", "--yes", "--skip-preview", ...flags, "--stack", "dev"]);
  return run.stdout + run.stderr;
}

describe("an up interrupted while creating", () => {
  it("provider process killed: refresh then up converge, and adopt takes over what the interrupted creates made", async () => {
    emulator = await startEmulator({ controls: true });
    cleanups.push(() => emulator.close());
    scan.secrets(emulator.adminKey);
    project = await testProject("interrupted", path.join(PROGRAMS_DIR, "broker"), NO_BROKER_ENV);
    cleanups.push(() => {
      // Whatever a killed CLI left running in the project directory was started by this test.
      for (const p of processesIn(project.dir, /./u)) killHard(p.pid);
      project.remove();
    });
    stack = await project.stack("dev", { ...specConfig(spec), ...brokerConfig(emulator) });

    await holdCreates();
    const interrupted = await upUntilCommitted(spec.keys.length, 1);
    const providers = await waitFor("the provider process", () => {
      const found = processesIn(project.dir, /dynamic-provider/u).filter((p) =>
        p.commandLine.startsWith("node "),
      );
      return found.length > 0 ? found : undefined;
    });
    for (const provider of providers) killHard(provider.pid);
    scan.text("interrupted up", errorText(await interrupted.failure), "error");
    await emulator.controls!.clearFaults();
    const orphans = {
      keys: (await listKeys(emulator))
        .filter((k) => k.key !== emulator.adminKey)
        .map((k) => k.id)
        .sort(),
      workspaces: (await listWorkspaces(emulator)).map((w) => w.id),
    };
    expect(orphans.keys).toHaveLength(spec.keys.length);

    // Nothing pending, no lock: the engine saw the provider fail and recorded the creates as failed.
    expect(pendingOperations()).toEqual([]);
    scan.text("refresh", await refresh(), "cli output");
    const up = await stack.up();
    scan.text("recovering up", up.stdout + up.stderr, "cli output");
    expect(up.summary.resourceChanges).toMatchObject({ create: resourceCount(spec) });

    const view = viewOf(up.outputs);
    scan.secrets(...Object.values(view.keyValues), ...Object.values(view.privateKeys));
    await expectDeclaredState(emulator, spec, view, (id) => emulator.controls!.publicKeyOf(id));
    expect(
      Object.values(view.keyIds).sort(),
      "the stack adopted the keys the interrupted up created",
    ).toEqual(orphans.keys);
    expect(Object.values(view.workspaceIds)).toEqual(orphans.workspaces);
    expect((await stack.preview()).changeSummary).toEqual({ same: resourceCount(spec) + 1 });
  }, 240_000);

  it("CLI killed: cancel, refresh --clear-pending-creates, then up converge without duplicates", async () => {
    await stack.setAllConfig(specConfig(grown));
    await holdCreates();
    const interrupted = await upUntilCommitted(grown.keys.length, 1);
    const [cli] = await waitFor("the CLI process", () => {
      const found = processesIn(project.dir, /\/pulumi up /u);
      return found.length > 0 ? found : undefined;
    });
    killHard(cli!.pid);
    scan.text("killed up", errorText(await interrupted.failure), "error");
    // The CLI's children (language host, program, provider) lose their parent; they are ours to stop.
    for (const orphan of processesIn(project.dir, /./u)) killHard(orphan.pid);
    await emulator.controls!.clearFaults();

    const pending = pendingOperations();
    expect(pending.map((p) => p.type)).toEqual(["creating", "creating", "creating"]);
    const locked = await stack.refresh().catch((error: unknown) => error);
    expect(String(locked)).toMatch(/locked/u);
    scan.text("refresh while locked", errorText(locked), "error");

    await stack.cancel();
    scan.text("refresh --clear-pending-creates", await refresh("--clear-pending-creates"), "cli output");
    expect(pendingOperations()).toEqual([]);
    const up = await stack.up();
    scan.text("recovering up", up.stdout + up.stderr, "cli output");
    expect(up.summary.resourceChanges).toMatchObject({ create: 3 });

    const view = viewOf(up.outputs);
    scan.secrets(...Object.values(view.keyValues), ...Object.values(view.privateKeys));
    await expectDeclaredState(emulator, grown, view, (id) => emulator.controls!.publicKeyOf(id));
    expect((await stack.preview()).changeSummary).toEqual({ same: resourceCount(grown) + 1 });
  }, 240_000);

  it("leaves no credential in state, backups, CLI output or error messages", () => {
    scan.project("project", project);
    expect(scan.size).toBeGreaterThan(5);
    expect(scan.unread([...CLI_TEST_SOURCES, "error"]), "sources the scan read nothing from").toEqual([]);
    expect(scan.leaks()).toEqual([]);
  });
});
