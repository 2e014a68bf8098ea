/**
 * The one stack and one broker per door that the interrupted-run files (`interrupted-anywhere-*`,
 * `provider-crash-*`) run their cases on, one cycle per case (spec.ts, `cycleSpec`): how the stack is
 * opened and removed (scanned for secrets as it goes), and how a cycle ends once it was checked.
 */
import * as path from "node:path";
import { expect, inject } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../../src/emulator";
import { installBrokerPlugin } from "../../../harness/broker-native.mts";
import { PulumiProject, type StackConfig } from "../../../harness/pulumi-project.mts";
import type { SecretScan } from "../../../harness/secret-scan.mts";
import { listKeys, listWorkspaces } from "./broker-api";
import { expectRevoked } from "./declared-state";
import { initStack } from "./one-stack";
import { killHard, processesIn } from "./processes";
import { brokerConfig, cyclesSpec, specConfig } from "./spec";

/** A door under test: its name, its program under `test/programs/`, and whether it runs the plugin. */
export interface InterruptedDoor {
  readonly name: string;
  readonly program: string;
  readonly plugin: boolean;
}

/** A door's broker and project, its stack created and configured. */
export interface CycleStack {
  readonly emulator: EmulatorHandle;
  readonly project: PulumiProject;
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
  await initStack(project, names.stackName, {
    ...specConfig(cyclesSpec(0, 0)),
    ...brokerConfig(emulator),
    ...config,
  });
  return { emulator, project };
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
