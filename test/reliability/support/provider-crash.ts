import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../../src/emulator";
import { CliError, type PulumiProject } from "../../../harness/pulumi-project.mts";
import { CLI_TEST_SOURCES, SecretScan } from "../../../harness/secret-scan.mts";
import { listKeys, listWorkspaces, type KeyRecord } from "./broker-api";
import { expectDeclaredState } from "./declared-state";
import { endCycle, openCycleStack, settleEachCycle, type InterruptedDoor } from "./cycle-stack";
import { duplicatesAndOrphans, startUp } from "./interrupted-anywhere";
import { declareSpec, privateKeysOf, storedKeyIds, storedPendingOperations, storedView } from "./one-stack";
import { killHard, processesWithEnv, waitFor } from "./processes";
import { cycleSpec, droppedAt, type Spec } from "./spec";

// Issue #39's acceptance, and #48's "ten different moments per door", through the real CLI: an `up`
// of new keys, a key pair and a nested workspace under a rate limit, during which only the provider
// process (the `broker` plugin, or Pulumi's dynamic provider host) is killed with SIGKILL, as an
// out-of-memory kill would. The CLI lives on and records the creates as failed. Then a plain
// `pulumi up` and `pulumi preview --expect-no-changes`: one key per name, no orphan, the pair matching
// the broker, no intent left behind. No `adopt`, no `broker-config recover`.
//
// The moment is decided by the broker, not by a clock: the emulator holds one request of the run
// for ten minutes (a latency fault), before processing it (the create is on the wire and never
// made) or after (the object exists and its answer never comes back), and the provider is killed
// once that request arrived. Each door is two test files (issue #50: one was 164-266 s), each with
// its stack and broker: the moments whose held request the broker never processed
// ({@link HELD_BEFORE_PROCESSING}: the next `up` makes what it asked for, once), and those it
// processed and never answered ({@link HELD_AFTER_PROCESSING}: the next `up` takes over what it made
// through the intent). One stack and one broker per file: each moment is a cycle that
// declares new names (spec.ts, cycleAdditions) beside the converged names of the moment before, and
// its converging `up` drops the moment before but for its pair (spec.ts, cycleSpec), so a moment
// costs three commands (the killed `up`, the converging `up`, the preview) on a stack two cycles big.

/** Requests per second the broker admits: the issue's measurement ran under a limit of 10. */
const REQUESTS_PER_SECOND = 10;
/** New keys per cycle: a first, a middle and a last create. */
const KEYS = 6;

/**
 * The requests the broker holds: which routes, the matching requests it lets through first, and
 * when. Every matching request from the first held one on is held (the fault has no count).
 */
interface Hold {
  routes: string[];
  skip: number;
  /** "before": the request is never processed; "after": processed, never answered. */
  phase: "before" | "after";
}

/** A moment of the kill: the request held, and the intent records it leaves on disk at least. */
interface Moment {
  name: string;
  hold: Hold;
  intents: number;
}

/**
 * The ten moments. Each holds one request; the engine's other operations go on until the kill, so
 * the keys and workspaces of the cycle are, at the kill, any mix of answered, held and not started.
 */
const MOMENTS: readonly Moment[] = [
  {
    name: "a key create on the wire, never made",
    hold: { routes: ["POST /access-key"], skip: 0, phase: "before" },
    intents: 1,
  },
  {
    name: "the first key made, unanswered",
    hold: { routes: ["POST /access-key"], skip: 0, phase: "after" },
    intents: 1,
  },
  {
    name: "half the keys answered, one made unanswered",
    hold: { routes: ["POST /access-key"], skip: KEYS / 2, phase: "after" },
    intents: 1,
  },
  {
    name: "the last key made, unanswered",
    hold: { routes: ["POST /access-key"], skip: KEYS - 1, phase: "after" },
    intents: 1,
  },
  {
    name: "the workspace create on the wire, never made",
    hold: { routes: ["POST /workspace"], skip: 0, phase: "before" },
    intents: 1,
  },
  {
    name: "the workspace made, unanswered",
    hold: { routes: ["POST /workspace"], skip: 0, phase: "after" },
    intents: 1,
  },
  // The workspace create lists the name before and after the POST: the second list is how its id is learnt.
  {
    name: "the workspace answered, its id lookup held",
    hold: { routes: ["GET /workspace"], skip: 1, phase: "before" },
    intents: 1,
  },
  // The pair's create reads its key's record first (is it a SERVICE key?). The client's read
  // coalescer answers that read with its own request or with a page of the key list, whichever the
  // timing favours (the emulator's request log shows both, in either door): both are held, and
  // nothing else of a cycle lists or reads keys.
  {
    name: "the key answered, its pair's key read held",
    hold: {
      routes: ["GET /access-key/{accessKey}/permissions", "GET /access-key"],
      skip: 0,
      phase: "before",
    },
    intents: 0,
  },
  {
    name: "a key pair create on the wire, never made",
    hold: { routes: ["PUT /access/service-key-pair"], skip: 0, phase: "before" },
    intents: 0,
  },
  {
    name: "a key pair made, unanswered",
    hold: { routes: ["PUT /access/service-key-pair"], skip: 0, phase: "after" },
    intents: 0,
  },
];

/**
 * Which moments one test file runs: `name` is the file's half of its door's moments, in its describe
 * title and project name.
 */
export interface CrashMoments {
  readonly name: string;
  readonly moments: readonly Moment[];
}

/**
 * The moments whose held request the broker never processes (phase "before"): a create never made,
 * the workspace's id lookup, the pair's key read. Five of the ten.
 */
export const HELD_BEFORE_PROCESSING: CrashMoments = {
  name: "held before processing",
  moments: MOMENTS.filter((m) => m.hold.phase === "before"),
};

/**
 * The moments whose held request the broker processes and never answers (phase "after"): a key,
 * the workspace or the pair made, its answer lost. The other five of the ten.
 */
export const HELD_AFTER_PROCESSING: CrashMoments = {
  name: "held after processing",
  moments: MOMENTS.filter((m) => m.hold.phase === "after"),
};

/** The longest hold the emulator accepts: far longer than any run here. */
const HOLD_MS = 600_000;

/** What a case measured, for the summary (and BENCHMARKS.md). */
interface CaseFigures {
  door: string;
  moment: string;
  /** Keys and workspaces made whose creates were never answered. */
  heldKeys: number;
  heldWorkspaces: number;
  /** Keys on the broker that the state did not track after the failed up: what the next up must take over. */
  orphansAfterCrash: number;
  /** Intent records on disk after the kill. */
  intents: number;
  duplicates: number;
  orphans: number;
}

/** What an intent file says, secrets aside (it holds none): for a failure's message. */
function intentSummary(file: string): string {
  try {
    const intent = JSON.parse(fs.readFileSync(file, "utf8")) as {
      urn?: string;
      sentAt?: string;
      createdId?: number;
    };
    return `${intent.urn?.split("::").pop() ?? "?"} sent ${intent.sentAt ?? "?"} id ${intent.createdId ?? "none"}`;
  } catch {
    return `${path.basename(file)} unreadable`;
  }
}

/**
 * The keys behind a duplicate or an orphan, for the failure's message: every key of a name held more
 * than once or untracked (id, creation time, whether the state tracks it), and what the intents said
 * at the kill. Ids and times only: never a key value.
 */
function duplicateEvidence(
  keys: readonly KeyRecord[],
  tracked: Record<string, number>,
  declared: Spec,
  intentsAtKill: readonly string[],
): string {
  const names = new Set(declared.keys.map((k) => k.name));
  const trackedIds = new Set(Object.values(tracked));
  const ofName = (name: string): KeyRecord[] => keys.filter((k) => k.name === name);
  const suspects = [...names].filter(
    (name) => ofName(name).length > 1 || ofName(name).some((k) => !trackedIds.has(k.id)),
  );
  const lines = suspects.map(
    (name) =>
      `${name}: ${ofName(name)
        .map((k) => `id ${k.id} made ${k.createdAt}${trackedIds.has(k.id) ? " (tracked)" : ""}`)
        .join(", ")}`,
  );
  return [...lines, `intents at the kill: ${intentsAtKill.join("; ") || "none"}`].join("\n");
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

/**
 * The cases of one door's `crashes`, as one test file's suites: each of its moments, and the secret
 * scan of everything the file's runs wrote. Each door's two halves are files of their own
 * (`provider-crash-{before,after}-processing-<door>.test.ts`), on stacks and brokers of their own, so
 * they run beside each other.
 */
export function describeProviderCrash(door: InterruptedDoor, crashes: CrashMoments): void {
  const figures: CaseFigures[] = [];
  const scan = new SecretScan();
  const cleanups: (() => unknown)[] = [];
  const stackName = "crash";
  let project: PulumiProject;
  let emulator: EmulatorHandle;

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    if (figures.length > 0) {
      const lines = figures.map(
        (f) =>
          `  ${f.door.padEnd(8)} ${f.moment.padEnd(46)} held ${f.heldKeys} key(s) and ${f.heldWorkspaces} workspace(s), untracked keys after the crash ${f.orphansAfterCrash}, intents ${f.intents}; after up: duplicates ${f.duplicates}, orphans ${f.orphans}`,
      );
      process.stdout.write(`provider-crash: ${figures.length} cases\n${lines.join("\n")}\n`);
    }
  });

  describe(`${door.name} door: only the provider is killed mid-up, the request ${crashes.name}`, () => {
    let intentsDir: string;
    // The project's name in Pulumi.yaml, and so in every URN: intents are kept per project and stack.
    const projectName = `provider-crash-${crashes.name.replaceAll(" ", "-")}-${door.name}`;
    /** The cycle the next moment runs: each declares new names on top of the ones before. */
    let cycle = 0;

    beforeAll(async () => {
      ({ emulator, project } = await openCycleStack(
        door,
        { projectName, stackName },
        {
          // Paced just under the limit, so that no create the broker holds was refused instead; and
          // no request times out while held, so the provider cannot learn what a held create made.
          "broker:maxRequestsPerSecond": { value: String(REQUESTS_PER_SECOND - 1) },
          "broker:timeoutMs": { value: String(HOLD_MS) },
        },
        scan,
        cleanups,
      ));
      intentsDir = path.join(project.homeDir, "broker-config", "intents");
    });
    // Whatever a cycle did, the next one starts from the broker a passed cycle leaves.
    settleEachCycle(
      () => ({ emulator, project, stackName }),
      () => cycleSpec(cycle - 1, KEYS, "converged"),
      scan,
    );

    for (const moment of crashes.moments) {
      it(`${moment.name}: a plain up repairs it, one key per name, no orphan, no intent left`, async () => {
        const controls = emulator.controls!;
        const current = cycle++;
        const spec = cycleSpec(current, KEYS, "interrupted");
        await declareSpec(project, stackName, spec);
        await controls.setRateLimit({ requestsPerSecond: REQUESTS_PER_SECOND, scope: "overall" });
        await controls.clearRequests();
        const before = await controls.stats();
        const { routes, skip, phase } = moment.hold;
        const route = routes.join(" or ");
        const hold = await controls.injectFault({
          kind: "latency",
          latencyMs: HOLD_MS,
          phase,
          skip,
          routes,
        });

        const up = startUp(project, stackName);
        await up.pid;
        // The held request arrived: the broker decides the moment.
        await waitFor(
          `the broker to hold ${route}`,
          async () =>
            (await controls.faults()).some((f) => f.id === hold && f.applied > 0) ? true : undefined,
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
          scan.text(`${moment.name}: interrupted up`, outcome.stdout + outcome.stderr, "cli output");
        // The hold ends here, before this test lists the keys itself (a held list would hold it too),
        // and so does the limit: the killed up's last requests still count in the broker's window,
        // and this test's own lists would be refused (429) in the second after the kill.
        await controls.clearFaults();
        await controls.clearRateLimit();

        // Objects made whose creates were never answered (a held request is logged once answered).
        const stats = await controls.stats();
        const answered = (await controls.requests()).filter((r) => r.status < 300);
        const answeredOf = (r: string): number => answered.filter((a) => a.route === r).length;
        const heldKeys = stats.accessKeys - before.accessKeys - answeredOf("POST /access-key");
        const heldWorkspaces = stats.workspaces - before.workspaces - answeredOf("POST /workspace");
        if (phase === "after" && routes.includes("POST /access-key"))
          expect(heldKeys).toBeGreaterThanOrEqual(1);
        if (phase === "after" && routes.includes("POST /workspace")) expect(heldWorkspaces).toBe(1);
        if (phase === "before" && routes.includes("POST /workspace"))
          expect(stats.workspaces).toBe(before.workspaces);

        // What the issue measured: the CLI forgets the failed creates, nothing is pending, and the
        // broker holds keys nobody tracks.
        expect(storedPendingOperations(project, stackName)).toEqual([]);
        const afterCrash = await duplicatesAndOrphans(emulator, storedKeyIds(project, stackName), spec);
        expect(afterCrash.orphans, "keys the failed up left untracked").toBeGreaterThanOrEqual(heldKeys);

        // The intents the dead provider left: private, and nothing secret in them.
        const onDisk = walk(intentsDir);
        const stackDir = path.join(intentsDir, projectName, stackName);
        const ofStack = (files: { file: string }[]): string[] =>
          files.map((f) => f.file).filter((f) => path.dirname(f) === stackDir);
        const intentFiles = ofStack(onDisk.files).filter((f) => f.endsWith(".json"));
        expect(intentFiles.length, "an intent per create on the wire").toBeGreaterThanOrEqual(
          Math.max(moment.intents, heldKeys + heldWorkspaces),
        );
        const intentsAtKill = intentFiles.map(intentSummary);
        for (const { file, mode } of onDisk.files) expect(mode, file).toBe(0o600);
        for (const { dir, mode } of onDisk.dirs) expect(mode, dir).toBe(0o700);
        const keysNow = await listKeys(emulator);
        scan.secrets(...keysNow.map((k) => k.key));
        for (const { file } of onDisk.files)
          scan.text(`${moment.name}: intent`, fs.readFileSync(file, "utf8"), "file");
        expect(scan.leaks(), "no secret in an intent").toEqual([]);

        // The cycle before was checked when it ran: the converging up lets it go but for its pair.
        const converged = cycleSpec(current, KEYS, "converged");
        await declareSpec(project, stackName, converged);
        const converge = await project.run(["up", "--yes", "--skip-preview", "--stack", stackName]);
        scan.text(`${moment.name}: converging up`, converge.stdout + converge.stderr, "cli output");
        await project.run(["preview", "--expect-no-changes", "--stack", stackName]);

        const view = await storedView(project, stackName, emulator);
        expect(Object.keys(view.keyIds)).toHaveLength(converged.keys.length);
        const { duplicates, orphans } = await duplicatesAndOrphans(emulator, view.keyIds, converged);
        figures.push({
          door: door.name,
          moment: moment.name,
          heldKeys,
          heldWorkspaces,
          orphansAfterCrash: afterCrash.orphans,
          intents: intentFiles.length,
          duplicates,
          orphans,
        });
        // Issue #48: a duplicate seen once under load could not be reproduced; say what made it.
        const evidence =
          duplicates + orphans === 0
            ? ""
            : [
                duplicateEvidence(await listKeys(emulator), view.keyIds, converged, intentsAtKill),
                ...converge.stdout.split("\n").filter((line) => /interrupted/iu.test(line)),
              ].join("\n");
        expect({ duplicates, orphans }, evidence).toEqual({ duplicates: 0, orphans: 0 });
        await endCycle(emulator, droppedAt(current, KEYS), scan);
        await expectDeclaredState(emulator, converged, view, (id) => controls.publicKeyOf(id));
        expect(await listWorkspaces(emulator)).toHaveLength(converged.workspaces.length);
        expect(ofStack(walk(intentsDir).files), "no intent (or half-written one) left behind").toEqual([]);
      }, 400_000);
    }
  });

  describe("after every crash", () => {
    it("leaves no credential in state, backups, history, CLI output or intents", async () => {
      // The private keys are encrypted in the state: one command decrypts every cycle's (each cycle's
      // pair stays declared), for the scan.
      scan.secrets(...(await privateKeysOf(project, stackName)));
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      expect(scan.unread([...CLI_TEST_SOURCES, "file"]), "sources the scan read nothing from").toEqual([]);
      expect(scan.leaks()).toEqual([]);
    });
  });
}
