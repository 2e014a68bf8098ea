import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../../src/emulator";
import { installBrokerPlugin } from "../../../harness/broker-native.mts";
import { CliError, PulumiProject } from "../../../harness/pulumi-project.mts";
import { CLI_TEST_SOURCES, SecretScan } from "../../../harness/secret-scan.mts";
import { listKeys, listWorkspaces } from "./broker-api";
import { expectDeclaredState, stackView } from "./declared-state";
import {
  duplicatesAndOrphans,
  pendingOperations,
  recordedKeyIds,
  startUp,
  type InterruptedDoor,
} from "./interrupted-anywhere";
import { killHard, processesIn, processesWithEnv, waitFor } from "./processes";
import { brokerConfig, numberedKeysSpec, specConfig } from "./spec";

// Issue #39's acceptance, through the real CLI: an `up` of 30 keys, a key pair and two nested
// workspaces under a rate limit, during which only the provider process (the `broker` plugin, or
// Pulumi's dynamic provider host) is killed with SIGKILL while creates are on the wire, as an
// out-of-memory kill would. The CLI lives on and records the creates as failed. Then a plain
// `pulumi up` and `pulumi preview --expect-no-changes`: one key per name, no orphan, the pair matching
// the broker, no intent left behind. No `adopt`, no `broker-config recover`.
//
// Which creates die on the wire is decided by the broker, not by a clock: the emulator lets the
// first N key creates (and the first workspace create) through and holds every later one after
// processing it (a latency fault of ten minutes, phase "after"), so the objects exist and their
// answers never come back. The provider is killed once the broker holds at least one such object.

/** Requests per second the broker admits: the measurement ran under a limit of 10. */
const REQUESTS_PER_SECOND = 10;
const KEYS = 30;

const spec = numberedKeysSpec(KEYS);

/**
 * When the provider dies: the key creates the broker answers before it holds the rest, and whether
 * the nested workspace's create is held too. Held key creates take the engine's operations (8 at once
 * on two cores) one by one, so before the last key the engine may never get to the nested workspace.
 */
const MOMENTS = [
  { name: "at the first key", answered: 0, holdWorkspace: false },
  { name: "half-way", answered: KEYS / 2, holdWorkspace: false },
  { name: "at the last key", answered: KEYS - 1, holdWorkspace: true },
] as const;

/** The longest hold the emulator accepts: far longer than any run here. */
const HOLD_MS = 600_000;

/** What a case measured, for the summary (and BENCHMARKS.md). */
interface CaseFigures {
  door: string;
  moment: string;
  /** Keys and workspaces the broker held, unanswered, when the provider was killed (at least). */
  heldKeys: number;
  heldWorkspaces: number;
  /** Keys on the broker that the state did not track after the failed up: what the next up must take over. */
  orphansAfterCrash: number;
  /** Intent records on disk after the kill. */
  intents: number;
  duplicates: number;
  orphans: number;
}

/** Every file under `dir`, with its mode, and every directory's mode. */
function walk(dir: string): {
  files: { file: string; mode: number }[];
  dirs: { dir: string; mode: number }[];
} {
  const files: { file: string; mode: number }[] = [];
  const dirs: { dir: string; mode: number }[] = [];
  const visit = (current: string): void => {
    if (!fs.existsSync(current)) return;
    dirs.push({ dir: current, mode: fs.statSync(current).mode & 0o777 });
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) visit(full);
      else files.push({ file: full, mode: fs.statSync(full).mode & 0o777 });
    }
  };
  visit(dir);
  return { files, dirs };
}

/** Key creates the broker answered with success so far (its request log records a request once answered). */
async function answeredKeyCreates(emulator: EmulatorHandle): Promise<number> {
  return (await emulator.controls!.requests()).filter((r) => r.route === "POST /access-key" && r.status < 300)
    .length;
}

/** The cases of one door, as one test file's suites. */
export function describeProviderCrash(door: InterruptedDoor): void {
  const figures: CaseFigures[] = [];
  const scan = new SecretScan();
  const cleanups: (() => unknown)[] = [];

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    if (figures.length > 0) {
      const lines = figures.map(
        (f) =>
          `  ${f.door.padEnd(8)} ${f.moment.padEnd(18)} held ${f.heldKeys} key(s) and ${f.heldWorkspaces} workspace(s), untracked keys after the crash ${f.orphansAfterCrash}, intents ${f.intents}; after up: duplicates ${f.duplicates}, orphans ${f.orphans}`,
      );
      process.stdout.write(`provider-crash: ${figures.length} cases\n${lines.join("\n")}\n`);
    }
  });

  describe(`${door.name} door: only the provider is killed mid-up`, () => {
    let project: PulumiProject;
    let intentsDir: string;
    // The project's name in Pulumi.yaml, and so in every URN: intents are kept per project and stack.
    const projectName = `provider-crash-${door.name}`;

    beforeAll(async () => {
      project = await PulumiProject.create({
        name: projectName,
        programDir: path.join(__dirname, "..", "..", "programs", door.program),
        fixture: inject("packageFixture"),
        pulumiBin: inject("pulumiBin"),
      });
      if (door.plugin) installBrokerPlugin(project);
      intentsDir = path.join(project.homeDir, "broker-config", "intents");
      cleanups.push(() => {
        for (const p of processesIn(project.dir, /./u)) killHard(p.pid);
        scan.project(`${door.name} project`, project);
        for (const text of project.transcript) scan.text(`${door.name} transcript`, text, "cli output");
        project.remove();
      });
    });

    for (const [index, moment] of MOMENTS.entries()) {
      it(`${moment.name}: a plain up repairs it, one key per name, no orphan, no intent left`, async () => {
        const emulator = await startEmulator({
          controls: true,
          rateLimit: { requestsPerSecond: REQUESTS_PER_SECOND, scope: "overall" },
        });
        cleanups.push(() => emulator.close());
        const controls = emulator.controls!;
        scan.secrets(emulator.adminKey);
        // The nested workspace's create and every key create after the first `answered` are held.
        await controls.injectFault({
          kind: "latency",
          latencyMs: HOLD_MS,
          phase: "after",
          skip: moment.answered,
          routes: ["POST /access-key"],
        });
        if (moment.holdWorkspace) {
          await controls.injectFault({
            kind: "latency",
            latencyMs: HOLD_MS,
            phase: "after",
            skip: 1,
            routes: ["POST /workspace"],
          });
        }
        const stackName = `crash-${index}`;
        await project.initStack(stackName, {
          ...specConfig(spec),
          ...brokerConfig(emulator),
          // Paced just under the limit, so that no create the broker holds was refused instead; and no
          // request times out while held, so the provider cannot learn what a held create made.
          "broker:maxRequestsPerSecond": { value: String(REQUESTS_PER_SECOND - 1) },
          "broker:timeoutMs": { value: String(HOLD_MS) },
        });

        const up = startUp(project, stackName);
        await up.pid;
        // A key (and the nested workspace) exist whose creates were never answered.
        const heldWorkspaces = moment.holdWorkspace ? 1 : 0;
        const held = await waitFor(
          "the broker to hold objects whose creates are unanswered",
          async () => {
            const stats = await controls.stats();
            const heldKeys = stats.accessKeys - 1 - (await answeredKeyCreates(emulator));
            return heldKeys >= 1 && (!moment.holdWorkspace || stats.workspaces === 2) ? heldKeys : undefined;
          },
          240_000,
        );
        // Found by the project's own PULUMI_HOME, which the engine passes to the providers it starts:
        // the plugin's node process, or the dynamic provider host's.
        const providers = processesWithEnv(
          "PULUMI_HOME",
          project.homeDir,
          door.plugin ? /dist\/native\/main\.js/u : /dynamic-provider/u,
        );
        expect(providers.length, "the provider process to kill").toBeGreaterThan(0);
        for (const provider of providers) killHard(provider.pid);
        const outcome = await up.done;
        expect(outcome, "the up fails: its provider died").toBeInstanceOf(CliError);
        if (outcome instanceof CliError)
          scan.text(`${stackName}: interrupted up`, outcome.stdout + outcome.stderr, "cli output");
        // What the issue measured: the CLI forgets the failed creates, nothing is pending, and the
        // broker holds keys nobody tracks.
        expect(await pendingOperations(project, stackName)).toEqual([]);
        const afterCrash = await duplicatesAndOrphans(
          emulator,
          await recordedKeyIds(project, stackName),
          spec,
        );
        expect(afterCrash.orphans, "keys the failed up left untracked").toBeGreaterThanOrEqual(held);

        // The intents the dead provider left: private, and nothing secret in them.
        const onDisk = walk(intentsDir);
        const stackDir = path.join(intentsDir, projectName, stackName);
        const ofStack = (files: { file: string }[]): string[] =>
          files.map((f) => f.file).filter((f) => path.dirname(f) === stackDir);
        const intentFiles = ofStack(onDisk.files).filter((f) => f.endsWith(".json"));
        expect(intentFiles.length, "an intent per create on the wire").toBeGreaterThanOrEqual(
          held + heldWorkspaces,
        );
        for (const { file, mode } of onDisk.files) expect(mode, file).toBe(0o600);
        for (const { dir, mode } of onDisk.dirs) expect(mode, dir).toBe(0o700);
        const keysNow = await listKeys(emulator);
        scan.secrets(...keysNow.map((k) => k.key));
        for (const { file } of onDisk.files)
          scan.text(`${stackName}: intent`, fs.readFileSync(file, "utf8"), "file");
        expect(scan.leaks(), "no secret in an intent").toEqual([]);

        await controls.clearFaults();
        await controls.clearRateLimit();
        const converge = await project.run(["up", "--yes", "--skip-preview", "--stack", stackName]);
        scan.text(`${stackName}: converging up`, converge.stdout + converge.stderr, "cli output");
        await project.run(["preview", "--expect-no-changes", "--stack", stackName]);

        const view = await stackView(await project.stack(stackName));
        scan.secrets(...Object.values(view.keyValues), ...Object.values(view.privateKeys));
        expect(Object.keys(view.keyIds)).toHaveLength(KEYS);
        const { duplicates, orphans } = await duplicatesAndOrphans(emulator, view.keyIds, spec);
        figures.push({
          door: door.name,
          moment: moment.name,
          heldKeys: held,
          heldWorkspaces,
          orphansAfterCrash: afterCrash.orphans,
          intents: intentFiles.length,
          duplicates,
          orphans,
        });
        await expectDeclaredState(emulator, spec, view, (id) => controls.publicKeyOf(id));
        expect({ duplicates, orphans }).toEqual({ duplicates: 0, orphans: 0 });
        expect(await listWorkspaces(emulator)).toHaveLength(2);
        expect(ofStack(walk(intentsDir).files), "no intent (or half-written one) left behind").toEqual([]);
      }, 400_000);
    }
  });

  describe("after every crash", () => {
    it("leaves no credential in state, backups, history, CLI output or intents", async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      expect(scan.unread([...CLI_TEST_SOURCES, "file"]), "sources the scan read nothing from").toEqual([]);
      expect(scan.leaks()).toEqual([]);
    });
  });
}
