/**
 * The one stack and one broker per file that the interrupted-run files (`interrupted-anywhere-*`,
 * `provider-crash-*`) run their cases on, one cycle per case (spec.ts, `cycleSpec`): how the stack is
 * opened and removed (scanned for secrets as it goes), how a cycle ends once it was checked, and how
 * the broker is brought back to what a passed cycle leaves after every cycle, passed or failed.
 */
import * as path from "node:path";
import { afterEach, expect, inject } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../../src/emulator";
import { brokerConfigCli, installBrokerPlugin } from "../../../harness/broker-native.mts";
import { PulumiProject, type StackConfig } from "../../../harness/pulumi-project.mts";
import type { SecretScan } from "../../../harness/secret-scan.mts";
import { listKeys, listWorkspaces } from "./broker-api";
import { debrisOf } from "./debris";
import { expectRevoked } from "./declared-state";
import { declareSpec, storedKeyIds, storedPendingOperations, storedWorkspaceIds } from "./one-stack";
import { killHard, processesIn, processesWithEnv } from "./processes";
import { brokerConfig, cyclesSpec, specConfig, type Spec } from "./spec";

/** A door under test: its name, its program under `test/programs/`, and whether it runs the plugin. */
export interface InterruptedDoor {
  readonly name: string;
  readonly program: string;
  readonly plugin: boolean;
}

/** The dynamic resources' door: the `broker` program, its providers run by Pulumi's dynamic provider host. */
export const DYNAMIC_DOOR: InterruptedDoor = { name: "dynamic", program: "broker", plugin: false };

/** The native door: the `native` program, its provider the `broker` plugin. */
export const NATIVE_DOOR: InterruptedDoor = { name: "native", program: "native", plugin: true };

/** A door's broker and project, its stack created and configured. */
export interface CycleStack {
  readonly emulator: EmulatorHandle;
  readonly project: PulumiProject;
  readonly stackName: string;
}

/**
 * Starts an emulator with its controls and a project of `door`'s program named `projectName`, and
 * creates stack `stackName` pointed at the emulator (plus `config`). `cleanups` gets what undoes
 * each, in order: the project's cleanup ends its leftover processes, then scans its files (state,
 * backups, history) and its CLI transcript with `scan` before it removes them.
 */
export async function openCycleStack(
  door: InterruptedDoor,
  names: { projectName: string; stackName: string },
  config: StackConfig,
  scan: SecretScan,
  cleanups: (() => unknown)[],
): Promise<CycleStack> {
  const emulator = await startEmulator({ controls: true });
  cleanups.push(() => emulator.close());
  scan.secrets(emulator.adminKey);
  const project = await PulumiProject.create({
    name: names.projectName,
    programDir: path.join(__dirname, "..", "..", "programs", door.program),
    fixture: inject("packageFixture"),
    pulumiBin: inject("pulumiBin"),
  });
  if (door.plugin) installBrokerPlugin(project);
  cleanups.push(() => {
    for (const p of processesIn(project.dir, /./u)) killHard(p.pid);
    scan.project(`${door.name} project`, project);
    for (const text of project.transcript) scan.text(`${door.name} transcript`, text, "cli output");
    project.remove();
  });
  await project.initStack(names.stackName, {
    ...specConfig(cyclesSpec(0, 0)),
    ...brokerConfig(emulator),
    ...config,
  });
  return { emulator, project, stackName: names.stackName };
}

/**
 * Ends a cycle after its converging `up` dropped `dropped` (spec.ts, `droppedAt`): every key value
 * on the broker goes to `scan` first (the dropped keys' values stay in the state's history and
 * backups), the dropped keys must be revoked (the API cannot delete keys, so a revoke is what a
 * delete does), and then the dropped keys and workspaces are removed behind the API's back, so the
 * broker holds what the stack declares and nothing the stack let go.
 */
export async function endCycle(
  emulator: EmulatorHandle,
  dropped: { keys: readonly string[]; workspaces: readonly string[] },
  scan: SecretScan,
): Promise<void> {
  const keys = await listKeys(emulator);
  scan.secrets(...keys.map((k) => k.key));
  await expectRevoked(emulator, dropped.keys);
  const controls = emulator.controls!;
  for (const key of keys.filter((k) => dropped.keys.includes(k.name))) await controls.removeAccessKey(key.id);
  const workspaces = (await listWorkspaces(emulator)).filter((w) => dropped.workspaces.includes(w.name));
  expect(workspaces, "each dropped workspace was made once").toHaveLength(dropped.workspaces.length);
  for (const workspace of workspaces) await controls.removeWorkspace(workspace.id);
}

/**
 * Brings `stack` and its broker back to what a passed cycle leaves, whatever the cycle did: the next
 * cycle then starts from a known broker, and one failed cycle fails alone instead of every later
 * cycle of its file failing `expectDeclaredState` on the objects it left (issue #50). After a passed
 * cycle (its own checks and `endCycle` saw to the broker) this finds nothing to remove; after a
 * failed one:
 *
 * - the cycle's processes still running (its `up`, the providers, the language host) are ended;
 * - the broker's faults and rate limit are cleared (a held request would hold the next cycle), as
 *   they are after a passed cycle (where there are none);
 * - if processes were ended, or the checkpoint holds pending operations, `broker-config recover
 *   --cancel` frees the stack's lock and records what the dead run made, as the documented recovery
 *   does;
 * - `declared` is declared and one `up` converges the stack to it, as the cycle's own converging `up`
 *   would have (it makes what the cycle did not, and takes over through its intents what a killed
 *   provider made);
 * - every key value on the broker goes to `scan` first, then every key and workspace that `declared`
 *   does not name, or that the stack does not track, is removed behind the API's back (debris.ts,
 *   `debrisOf`). The stack forgets what was removed on its next `up`: a revoke of a missing key and
 *   a workspace's delete succeed.
 *
 * `declared` is what the cycle's converging `up` declares (`cycleSpec(cycle, keys, "converged")`),
 * not what the stack's config held when the cycle failed: before its converging `up`, that is still
 * the whole cycle before, which the next cycle would then drop and leave revoked on the broker, and
 * the next cycle's `endCycle` expects every object of this cycle to exist.
 */
export async function settleCycle(
  stack: CycleStack,
  declared: Spec,
  scan: SecretScan,
  failed: boolean,
): Promise<void> {
  const { emulator, project, stackName } = stack;
  const controls = emulator.controls!;
  // The processes go first: a run still going would carry on once its held request is let go.
  const running = failed
    ? [...processesIn(project.dir, /./u), ...processesWithEnv("PULUMI_HOME", project.homeDir, /./u)]
    : [];
  for (const p of running) killHard(p.pid);
  await controls.clearFaults();
  await controls.clearRateLimit();
  if (failed) await convergeFailedCycle(stack, declared, scan, running.length > 0);
  const keys = (await listKeys(emulator)).filter((k) => k.key !== emulator.adminKey);
  scan.secrets(...keys.map((k) => k.key));
  const debris = debrisOf({ keys, workspaces: await listWorkspaces(emulator) }, declared, {
    keys: storedKeyIds(project, stackName),
    workspaces: storedWorkspaceIds(project, stackName),
  });
  for (const id of debris.keys) await controls.removeAccessKey(id);
  for (const id of debris.workspaces) await controls.removeWorkspace(id);
}

/**
 * Converges the stack of a failed cycle to `declared` with one `up`, as the cycle's own converging
 * `up` would have: the next cycle's checks take the cycle before as converged (its objects made, the
 * one before it dropped). A run that was `killed` (or pending operations in the checkpoint) is first
 * recovered as the documented recovery does. Output joins the project's transcript (scanned when the
 * file ends) and `scan`.
 */
async function convergeFailedCycle(
  { project, stackName }: CycleStack,
  declared: Spec,
  scan: SecretScan,
  killed: boolean,
): Promise<void> {
  if (killed || storedPendingOperations(project, stackName).length > 0) {
    const recovered = await project.exec(process.execPath, [
      brokerConfigCli(project),
      "recover",
      "--cancel",
      "--stack",
      stackName,
    ]);
    scan.text("settling a failed cycle: recover", recovered.output, "cli output");
    if (recovered.code !== 0) throw new Error(`recover after a failed cycle: ${recovered.output}`);
  }
  await declareSpec(project, stackName, declared);
  await project.run(["up", "--yes", "--skip-preview", "--stack", stackName]);
}

/**
 * Settles every cycle of the calling suite after its test, passed or failed ({@link settleCycle}):
 * `stack` and `declared` are read then, so they name the stack the suite opened and the cycle that
 * ran last.
 */
export function settleEachCycle(stack: () => CycleStack, declared: () => Spec, scan: SecretScan): void {
  afterEach(async ({ task }) => {
    await settleCycle(stack(), declared(), scan, task.result?.state === "fail");
  }, 180_000);
}
