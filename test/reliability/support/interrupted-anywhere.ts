import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../../src/emulator";
import { brokerConfigCli, installBrokerPlugin } from "../../../harness/broker-native.mts";
import { CliError, PulumiProject } from "../../../harness/pulumi-project.mts";
import { CLI_TEST_SOURCES, SecretScan } from "../../../harness/secret-scan.mts";
import { listKeys } from "./broker-api";
import { expectDeclaredState, stackView } from "./declared-state";
import { killHard, processesIn, waitFor } from "./processes";
import { brokerConfig, numberedKeysSpec, resourceCount, specConfig, type Spec } from "./spec";

// Issue #20's acceptance, through the real CLI: an `up` of 60 keys, a key pair and two nested
// workspaces, interrupted at three moments, by SIGTERM (a cancelled CI job's first signal) or by
// SIGKILL of the CLI's process group (a dead runner), for a door (each door is a test file of its own). No resource sets `adopt`.
//
// - SIGTERM: the CLI cancels, and must leave no pending operation; the next `up` converges.
// - SIGINT (Ctrl-C) while every request waits on a 60 s Retry-After: back within seconds, with every
//   key the run created in the state.
// - SIGKILL: the documented recovery (`broker-config recover --cancel`), then `up` and
//   `preview --expect-no-changes`.
// Either way the broker ends with exactly one key per declared name, each one tracked by the stack,
// and the recorded pair is the key's current one. The broker limits requests, so a run takes seconds
// and each moment can be caught.

/** Requests per second the emulator admits: an `up` of this stack takes several seconds. */
const REQUESTS_PER_SECOND = 30;
const KEYS = 60;

const spec = numberedKeysSpec(KEYS);

/** When the signal is sent: how many declared keys the broker holds by then. */
const MOMENTS = [
  { name: "right after the first create", keysCreated: 1 },
  { name: "about half-way", keysCreated: KEYS / 2 },
  { name: "after the last create", keysCreated: KEYS },
] as const;

/** A door under test: its name, its program under `test/programs/`, and whether it runs the plugin. */
export interface InterruptedDoor {
  readonly name: string;
  readonly program: string;
  readonly plugin: boolean;
}

type Signal = "SIGINT" | "SIGTERM" | "SIGKILL";

/** What each case measured, for the summary at the end (and BENCHMARKS.md). */
interface CaseFigures {
  door: string;
  moment: string;
  signal: Signal;
  /** Seconds from the signal to the CLI's exit. */
  exitSeconds: number;
  /** Declared names the broker held more than one key of, after convergence. */
  duplicates: number;
  /** Keys on the broker under a declared name that the stack does not track, after convergence. */
  orphans: number;
  /** Commands run between the interruption and the converging `up`. */
  recoveryCommands: number;
  /** What `broker-config recover` reported: creates recorded and dropped. */
  recorded: number;
  dropped: number;
}

/** Starts `pulumi up` with the CLI leading its own process group, as a CI job's step does. */
export function startUp(
  project: PulumiProject,
  stackName: string,
): { pid: Promise<number>; done: Promise<unknown> } {
  let started: (pid: number) => void = () => undefined;
  const pid = new Promise<number>((resolve) => (started = resolve));
  const done = project
    .run(
      ["up", "--yes", "--skip-preview", "--stack", stackName],
      {},
      (p) => {
        started(p);
      },
      {
        ownProcessGroup: true,
      },
    )
    .then(
      (run) => run,
      (error: unknown) => error,
    );
  return { pid, done };
}

/** The pending operations of the stack's state. */
export async function pendingOperations(project: PulumiProject, stackName: string): Promise<unknown[]> {
  const { stdout } = await project.cli(["stack", "export", "--stack", stackName]);
  const exported = JSON.parse(stdout) as { deployment: { pending_operations?: unknown[] } };
  return exported.deployment.pending_operations ?? [];
}

/**
 * The ids of the access keys the stack's state records (either door), by resource name: what the
 * engine wrote, whether or not the program reached its stack outputs.
 */
export async function recordedKeyIds(
  project: PulumiProject,
  stackName: string,
): Promise<Record<string, number>> {
  const { stdout } = await project.cli(["stack", "export", "--stack", stackName]);
  const exported = JSON.parse(stdout) as {
    deployment: { resources?: { urn: string; type: string; id?: string; delete?: boolean }[] };
  };
  const keys = (exported.deployment.resources ?? []).filter(
    (r) =>
      /(?:^broker:index|dynamic\/\w+):AccessKey$/u.test(r.type) && r.id !== undefined && r.delete !== true,
  );
  return Object.fromEntries(keys.map((r) => [r.urn.split("::").pop() ?? r.urn, Number(r.id)]));
}

/** Declared names (of `declaredSpec`) held more than once, and held keys the stack does not track. */
export async function duplicatesAndOrphans(
  emulator: EmulatorHandle,
  tracked: Record<string, number>,
  declaredSpec: Spec = spec,
): Promise<{ duplicates: number; orphans: number }> {
  const declared = new Set(declaredSpec.keys.map((k) => k.name));
  const held = (await listKeys(emulator)).filter((k) => declared.has(k.name));
  const perName = new Map<string, number>();
  for (const key of held) perName.set(key.name, (perName.get(key.name) ?? 0) + 1);
  const trackedIds = new Set(Object.values(tracked));
  return {
    duplicates: [...perName.values()].filter((n) => n > 1).length,
    orphans: held.filter((k) => !trackedIds.has(k.id)).length,
  };
}

/**
 * The cases of one door, as one test file's suites: every signal at every moment, the Ctrl-C during a
 * Retry-After, and the secret scan of everything the door's runs wrote. Each door is a file of its
 * own (`interrupted-anywhere-<door>.test.ts`) so the two run beside each other.
 */
export function describeInterruptedAnywhere(door: InterruptedDoor): void {
  const figures: CaseFigures[] = [];
  const scan = new SecretScan();
  const cleanups: (() => unknown)[] = [];

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    if (figures.length > 0) {
      const lines = figures.map(
        (f) =>
          `  ${f.door.padEnd(8)} ${f.signal} ${f.moment.padEnd(30)} exit ${f.exitSeconds.toFixed(1)} s, duplicates ${f.duplicates}, orphans ${f.orphans}, recovery commands ${f.recoveryCommands} (recorded ${f.recorded}, dropped ${f.dropped})`,
      );
      process.stdout.write(`interrupted-anywhere: ${figures.length} cases\n${lines.join("\n")}\n`);
    }
  });

  describe(`${door.name} door: an up interrupted anywhere`, () => {
    let project: PulumiProject;
    let recoverCli: string;

    beforeAll(async () => {
      project = await PulumiProject.create({
        name: `anywhere-${door.name}`,
        programDir: path.join(__dirname, "..", "..", "programs", door.program),
        fixture: inject("packageFixture"),
        pulumiBin: inject("pulumiBin"),
      });
      if (door.plugin) installBrokerPlugin(project);
      recoverCli = brokerConfigCli(project);
      cleanups.push(() => {
        for (const p of processesIn(project.dir, /./u)) killHard(p.pid);
        scan.project(`${door.name} project`, project);
        for (const text of project.transcript) scan.text(`${door.name} transcript`, text, "cli output");
        project.remove();
      });
    });

    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      for (const [index, moment] of MOMENTS.entries()) {
        it(`${signal} ${moment.name}: no duplicate, no orphan, no adopt`, async () => {
          const emulator = await startEmulator({
            controls: true,
            rateLimit: { requestsPerSecond: REQUESTS_PER_SECOND, scope: "overall" },
          });
          cleanups.push(() => emulator.close());
          scan.secrets(emulator.adminKey);
          const stackName = `${signal.toLowerCase()}-${index}`;
          await project.initStack(stackName, { ...specConfig(spec), ...brokerConfig(emulator) });

          const up = startUp(project, stackName);
          const pid = await up.pid;
          await waitFor(
            `the broker to hold ${moment.keysCreated} declared key(s)`,
            async () =>
              (await emulator.controls!.stats()).accessKeys >= moment.keysCreated + 1 ? true : undefined,
            120_000,
          );
          const signalled = performance.now();
          if (signal === "SIGTERM") process.kill(pid, "SIGTERM");
          else process.kill(-pid, "SIGKILL");
          const outcome = await up.done;
          const exitSeconds = (performance.now() - signalled) / 1000;
          if (outcome instanceof CliError)
            scan.text(`${stackName}: interrupted up`, outcome.stdout + outcome.stderr, "cli output");
          // The limit was there to make each moment catchable; recovery and convergence run at the
          // broker's full speed: under the limit each converging up of 60 keys waited on it for seconds.
          await emulator.controls!.clearRateLimit();

          let recoveryCommands = 0;
          let recorded = 0;
          let dropped = 0;
          if (signal === "SIGTERM") {
            // A cancelled update finishes what it started and records it: nothing is pending.
            // A bound against a hang, not a speed figure: wide enough for a loaded 2-core machine.
            expect(exitSeconds, "the CLI exits soon after SIGTERM").toBeLessThan(30);
            expect(await pendingOperations(project, stackName)).toEqual([]);
          } else {
            // The provider processes run in process groups of their own, so the kill does not reach
            // them: the plugin and the dynamic provider host notice their engine is gone and exit on
            // their own, with the API key they held. The language host is Pulumi's and stays; it is
            // ended here, as a dead runner would have ended it.
            await waitFor(
              "the provider processes to exit on their own",
              () =>
                processesIn(project.dir, /resource-broker|dynamic-provider/u).length === 0 ? true : undefined,
              20_000,
            );
            for (const leftover of processesIn(project.dir, /./u)) killHard(leftover.pid);
            const recovered = await project.exec(process.execPath, [
              recoverCli,
              "recover",
              "--cancel",
              "--stack",
              stackName,
            ]);
            scan.text(`${stackName}: recover`, recovered.output, "cli output");
            expect(recovered.output, "nothing is left for the user").not.toMatch(/^ {2}left /mu);
            expect(recovered.code, recovered.output).toBe(0);
            recoveryCommands = 1;
            recorded = recovered.output.match(/^ {2}recorded /gmu)?.length ?? 0;
            dropped = recovered.output.match(/^ {2}dropped /gmu)?.length ?? 0;
            expect(await pendingOperations(project, stackName)).toEqual([]);
          }

          const converge = await project.run(["up", "--yes", "--skip-preview", "--stack", stackName]);
          scan.text(`${stackName}: converging up`, converge.stdout + converge.stderr, "cli output");
          await project.run(["preview", "--expect-no-changes", "--stack", stackName]);

          const stack = await project.stack(stackName);
          const view = await stackView(stack);
          scan.secrets(...Object.values(view.keyValues), ...Object.values(view.privateKeys));
          expect(Object.keys(view.keyIds)).toHaveLength(KEYS);
          const { duplicates, orphans } = await duplicatesAndOrphans(emulator, view.keyIds);
          figures.push({
            door: door.name,
            moment: moment.name,
            signal,
            exitSeconds,
            duplicates,
            orphans,
            recoveryCommands,
            recorded,
            dropped,
          });
          await expectDeclaredState(emulator, spec, view, (id) => emulator.controls!.publicKeyOf(id));
          expect({ duplicates, orphans }).toEqual({ duplicates: 0, orphans: 0 });
          expect(resourceCount(spec)).toBe(KEYS + 3);
        }, 300_000);
      }
    }

    it("Ctrl-C while every request waits on a 60 s Retry-After: back within seconds, everything created recorded", async () => {
      const emulator = await startEmulator({ controls: true });
      cleanups.push(() => emulator.close());
      scan.secrets(emulator.adminKey);
      const controls = emulator.controls!;
      const stackName = "ctrl-c-retry-after";
      await project.initStack(stackName, { ...specConfig(spec), ...brokerConfig(emulator) });
      const up = startUp(project, stackName);
      const pid = await up.pid;
      await waitFor(
        "the broker to hold 10 declared keys",
        async () => ((await controls.stats()).accessKeys >= 11 ? true : undefined),
        120_000,
      );
      // The broker refuses the next create for a minute; every request of the run then waits it out.
      await controls.injectFault({ kind: "429", retryAfter: 60, routes: ["POST /access-key"], count: 1 });
      await waitFor(
        "the 60 s Retry-After to be answered",
        async () => ((await controls.requests()).some((r) => r.status === 429) ? true : undefined),
        60_000,
      );
      const signalled = performance.now();
      process.kill(pid, "SIGINT");
      const outcome = await up.done;
      const exitSeconds = (performance.now() - signalled) / 1000;
      if (outcome instanceof CliError)
        scan.text(`${stackName}: cancelled up`, outcome.stdout + outcome.stderr, "cli output");
      // Waiting out the Retry-After would take 60 s; 40 s leaves a loaded machine its margin.
      expect(exitSeconds, "the CLI is back long before the minute is over").toBeLessThan(40);
      expect(await pendingOperations(project, stackName)).toEqual([]);
      // Every key the run created is in the state, before anything else runs.
      const recorded = await recordedKeyIds(project, stackName);
      expect(await duplicatesAndOrphans(emulator, recorded)).toEqual({ duplicates: 0, orphans: 0 });
      expect(Object.keys(recorded).length).toBeGreaterThanOrEqual(10);

      const converge = await project.run(["up", "--yes", "--skip-preview", "--stack", stackName]);
      scan.text(`${stackName}: converging up`, converge.stdout + converge.stderr, "cli output");
      await project.run(["preview", "--expect-no-changes", "--stack", stackName]);
      const view = await stackView(await project.stack(stackName));
      scan.secrets(...Object.values(view.keyValues), ...Object.values(view.privateKeys));
      const { duplicates, orphans } = await duplicatesAndOrphans(emulator, view.keyIds);
      figures.push({
        door: door.name,
        moment: "waiting on a 60 s Retry-After",
        signal: "SIGINT",
        exitSeconds,
        duplicates,
        orphans,
        recoveryCommands: 0,
        recorded: 0,
        dropped: 0,
      });
      await expectDeclaredState(emulator, spec, view, (id) => controls.publicKeyOf(id));
      expect({ duplicates, orphans }).toEqual({ duplicates: 0, orphans: 0 });
    }, 300_000);
  });

  describe("after every interruption", () => {
    it("leaves no credential in state, backups, history, CLI output or recovery reports", async () => {
      // The projects are scanned as they are removed (afterAll of this file runs the cleanups).
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      expect(scan.size).toBeGreaterThan(20);
      expect(scan.unread([...CLI_TEST_SOURCES]), "sources the scan read nothing from").toEqual([]);
      expect(scan.leaks()).toEqual([]);
    });
  });
}
