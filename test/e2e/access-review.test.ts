import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { allKeys, brokerApi, brokerConfigCli, installBrokerPlugin } from "../../harness/broker-native.mts";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import { AFTER, BEFORE, DRIFT, scenarioDocument, type ScenarioSpec } from "../../harness/review-scenario.mts";
import { SecretScan } from "../../harness/secret-scan.mts";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import type {
  AccessReview,
  AccessVerdict,
  Direction,
  KeyChangeKind,
  ReviewSummary,
} from "../../src/review/report";
import {
  emulatorConfig,
  ensureYamlHost,
  goSdkProject,
  NO_BROKER_ENV,
  PROGRAMS_DIR,
  pythonSdkProject,
  specConfig,
  tearDown,
  testProject,
} from "../support/projects";

// Issue #47, end to end: the access review of a real `pulumi preview --json`, from programs in every
// language the machines run (TypeScript through both doors, Python, Go, and Pulumi YAML with an
// Environment), each making the same change (harness/review-scenario.mts: grants added, widened,
// narrowed and removed, a key created, one revoked, one rotated, a workspace renamed and one moved).
// One stack per language, one `up` and one `preview --json` each (the native TypeScript stack also
// runs the drift check's `preview --refresh --json`); the review is `broker-config review` of the
// packed package, run as users run it. Then the same change as two configuration documents
// (`--from/--to`), which must read the same. Last, nothing secret in anything the runs produced.

/** What a review says about one key: the lines a reviewer reads, in the JSON's words. */
interface KeyLine {
  name: string;
  kind: KeyChangeKind;
  added: Record<Direction, string[]>;
  removed: Record<Direction, string[]>;
  verdict: AccessVerdict;
}

/** What the tests compare of a review section: its counts, verdict and keys (by name). */
interface SectionLines {
  summary: ReviewSummary;
  verdict: AccessVerdict;
  keys: KeyLine[];
}

const none = (): Record<Direction, string[]> => ({ send: [], receive: [] });

/** Each key of the scenario's change, as the review must read it from any program. */
const KEYS: readonly KeyLine[] = [
  {
    name: "billing-svc",
    kind: "updated",
    added: { send: [], receive: ["orders/created"] },
    removed: { send: ["billing/invoiced"], receive: ["orders/*"] },
    verdict: "narrows",
  },
  {
    name: "legacy-svc",
    kind: "revoked",
    added: none(),
    removed: { send: [], receive: ["audit/*"] },
    verdict: "narrows",
  },
  { name: "ops-admin", kind: "rotated", added: none(), removed: none(), verdict: "unchanged" },
  {
    name: "orders-svc",
    kind: "updated",
    added: { send: ["orders/shipped"], receive: ["payments/*"] },
    removed: { send: [], receive: ["payments/captured"] },
    verdict: "broadens",
  },
  {
    name: "shipping-svc",
    kind: "created",
    added: { send: ["shipping/*"], receive: [] },
    removed: none(),
    verdict: "broadens",
  },
];

/** The review of the scenario from a program: every kind of change once. */
const PROGRAM_REVIEW: SectionLines = {
  summary: {
    keysCreated: 1,
    keysRevoked: 1,
    keysReplaced: 0,
    keysRotated: 1,
    keysUpdated: 2,
    keysRetained: 0,
    // orders/shipped, payments/*, orders/created, shipping/*
    grantsAdded: 4,
    // payments/captured, billing/invoiced, orders/*, audit/*
    grantsRemoved: 4,
  },
  verdict: "broadens",
  keys: [...KEYS],
};

/** The same change made through documents, which have no words for rotation: ops-admin stays as it is. */
const DOCUMENT_REVIEW: SectionLines = {
  summary: { ...PROGRAM_REVIEW.summary, keysRotated: 0 },
  verdict: "broadens",
  keys: KEYS.filter((key) => key.name !== "ops-admin"),
};

/** The drift the native TypeScript stack is given: billing-svc gains `receive` `payments/*` by hand. */
const DRIFT_REVIEW: SectionLines = {
  summary: {
    keysCreated: 0,
    keysRevoked: 0,
    keysReplaced: 0,
    keysRotated: 0,
    keysUpdated: 1,
    keysRetained: 0,
    grantsAdded: 1,
    grantsRemoved: 0,
  },
  verdict: "broadens",
  keys: [
    {
      name: "billing-svc",
      kind: "updated",
      added: { send: [], receive: ["payments/*"] },
      removed: none(),
      verdict: "broadens",
    },
  ],
};

/** The lines of a review section the tests compare. */
function linesOf(section: AccessReview["planned"]): SectionLines {
  return {
    summary: section.summary,
    verdict: section.verdict,
    keys: section.keys
      .map(({ name, kind, added, removed, verdict }) => ({ name, kind, added, removed, verdict }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  };
}

/** What a run of `broker-config review` printed and its exit code. */
interface ReviewRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

let scratch: string;
const scan = new SecretScan();
/** Every review printed, for the secret scan at the end. */
const printed: string[] = [];

/**
 * Runs `broker-config review <args>` of the packed package with the Node.js running the tests; with
 * `stdinFile`, that file is its standard input.
 */
function review(args: readonly string[], stdinFile?: string): Promise<ReviewRun> {
  const cli = brokerConfigCli({ dir: inject("packageFixture") });
  const stdin = stdinFile === undefined ? "ignore" : fs.openSync(stdinFile, "r");
  return new Promise<ReviewRun>((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "review", ...args], {
      env: { PATH: process.env["PATH"] ?? "" },
      stdio: [stdin, "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      const run = {
        code,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      };
      printed.push(run.stdout, run.stderr);
      resolve(run);
    });
  }).finally(() => {
    if (typeof stdin === "number") fs.closeSync(stdin);
  });
}

/** The review of `file` as JSON (`--format json`), which must exit 0. */
async function reviewJson(args: readonly string[]): Promise<AccessReview> {
  const run = await review([...args, "--format", "json"]);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as AccessReview;
}

/**
 * Checks everything a reviewer and a workflow read of one review: the JSON's planned section line by
 * line, the Markdown (the default) naming each key and the verdict, and `--fail-on broadening`'s exit 3.
 */
async function expectReview(args: readonly string[], expected: SectionLines): Promise<AccessReview> {
  const json = await reviewJson(args);
  expect(json.schemaVersion).toBe(1);
  expect(linesOf(json.planned)).toEqual(expected);
  expect(json.broadens).toBe(true);

  const markdown = await review(args);
  expect(markdown.code).toBe(0);
  for (const key of expected.keys) expect(markdown.stdout).toContain(key.name);
  expect(markdown.stdout).toMatch(/broadens/iu);

  const gate = await review([...args, "--fail-on", "broadening"]);
  expect(gate.code).toBe(3);
  expect(gate.stdout).toBe(markdown.stdout);
  return json;
}

/**
 * `pulumi preview --json` (and `extra`, such as `--config spec=…`, which the preview saves to the
 * stack config itself: no `config set` run before it) of the stack, written to
 * `<scratch>/<name>.json`; returns the file.
 */
async function previewToFile(
  project: PulumiProject,
  name: string,
  extra: readonly string[] = [],
): Promise<string> {
  const { stdout, stderr } = await project.run(["preview", "--json", "--stack", "dev", ...extra]);
  scan.text(`${name}: preview`, stdout + stderr, "cli output");
  const file = path.join(scratch, `${name}.json`);
  fs.writeFileSync(file, stdout);
  return file;
}

/** The preview flag that sets the stack config `spec` to `spec` (as {@link specConfig} does). */
function specFlag(spec: object): string[] {
  return ["--config", `spec=${specConfig(spec)["spec"]!.value}`];
}

/** A spec-driven program: the stack config `spec` declares the state. */
interface SpecLanguage {
  readonly language: string;
  /** Its folder under test/programs. */
  readonly program: string;
  /** The project, its language's SDK installed as users install it (`dir` is a copy of the program). */
  readonly project: (dir: string) => Promise<PulumiProject>;
  /** Whether it uses the native `broker` plugin (installed into the project's Pulumi home). */
  readonly plugin: boolean;
  /** Whether this stack also runs the drift check (`preview --refresh --json`). */
  readonly drift?: boolean;
}

const SPEC_LANGUAGES: readonly SpecLanguage[] = [
  {
    language: "TypeScript (dynamic resources)",
    program: "broker",
    plugin: false,
    project: (dir) => testProject("review-dynamic", dir, NO_BROKER_ENV),
  },
  {
    language: "TypeScript (native SDK)",
    program: "native",
    plugin: true,
    drift: true,
    project: (dir) => testProject("review-native", dir, NO_BROKER_ENV),
  },
  {
    language: "Python",
    program: "spec-python",
    plugin: true,
    project: (dir) => pythonSdkProject("review-python", dir, path.join(scratch, "python")),
  },
  {
    language: "Go",
    program: "spec-go",
    plugin: true,
    project: (dir) => {
      // The module files of the Go quickstart program, whose dependencies are the same.
      for (const file of ["go.mod", "go.sum"])
        fs.copyFileSync(path.join(PROGRAMS_DIR, "go-native", file), path.join(dir, file));
      return goSdkProject("review-go", dir);
    },
  },
];

beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-access-review-"));
  fs.mkdirSync(path.join(scratch, "python"));
});

afterAll(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe.each(SPEC_LANGUAGES)("a $language program's change, reviewed from its preview", (language) => {
  let emulator: EmulatorHandle;
  let project: PulumiProject;
  let stack: Stack;

  beforeAll(async () => {
    emulator = await startEmulator();
    scan.secrets(emulator.adminKey);
    // A copy of the program, so that files copied in (Go's module files) stay out of the checkout.
    const dir = path.join(scratch, language.program);
    fs.cpSync(path.join(PROGRAMS_DIR, language.program), dir, { recursive: true });
    project = await language.project(dir);
    if (language.plugin) installBrokerPlugin(project);
    stack = await project.stack("dev", { ...emulatorConfig(emulator), ...specConfig(BEFORE) });
    // A Go program's first run on a machine compiles it and the Pulumi Go SDK: minutes. The CLI's
    // `up` alone: the Automation API's reads outputs and history after it (3 more runs, unread here).
    const up = await project.run(["up", "--yes", "--skip-preview", "--stack", stack.name]);
    scan.text(`${language.language}: up`, up.stdout + up.stderr, "cli output");
  }, 900_000);

  afterAll(() => tearDown({ emulators: [emulator], project, scratch: [] }));

  // A Go program's preview builds it again (from the build cache): seconds to a minute on a busy machine.
  it(
    "the review names each key's added and removed paths, the verdict, and fails on broadening with exit 3",
    { timeout: 300_000 },
    async () => {
      const preview = await previewToFile(project, language.program, specFlag(AFTER));
      const json = await expectReview([preview], PROGRAM_REVIEW);
      expect(json.source).toBe("preview");
      expect(json.drift).toBeUndefined();
      // The renamed and the moved workspace. Without `--show-sames` the JSON holds no state of an
      // unchanged parent (`data`), so only the last segment of a new path is certain here.
      const moves = json.planned.workspaces.map(({ from, to }) => ({ from, to }));
      expect(moves.sort((a, b) => a.from.localeCompare(b.from))).toEqual([
        { from: "/platform/billing", to: expect.stringMatching(/\/invoicing$/u) as string },
        { from: "/platform/orders", to: expect.stringMatching(/\/orders$/u) as string },
      ]);
      // The same review from standard input.
      const piped = await review(["--format", "json"], preview);
      expect(piped.code).toBe(0);
      expect(JSON.parse(piped.stdout)).toEqual(json);
    },
  );

  it.runIf(language.drift === true)(
    "a drift check (preview --refresh --json) reads a grant added on the broker by hand as broadening",
    async () => {
      const key = (await allKeys(emulator)).find((k) => k["name"] === DRIFT.key);
      scan.secrets(String(key?.["key"]));
      await brokerApi(emulator, "POST", `/access-key/${String(key?.["key"])}/permissions`, DRIFT.permissions);
      const preview = await previewToFile(project, `${language.program}-drift`, [
        "--refresh",
        ...specFlag(BEFORE),
      ]);
      const json = await reviewJson([preview]);
      expect(json.drift && linesOf(json.drift)).toEqual(DRIFT_REVIEW);
      expect(json.broadens).toBe(true);
      expect((await review([preview, "--fail-on", "broadening"])).code).toBe(3);
    },
    // A refresh and a preview of the stack: as long as the review case above on a busy machine.
    300_000,
  );

  it("nothing the runs printed or stored holds a key value", async () => {
    scan.secrets(...(await allKeys(emulator)).map((k) => String(k["key"])));
    scan.text(`${language.language}: every CLI run`, project.producedText(), "cli output");
  });
});

describe("a YAML program of one Environment, and the same change as two documents", () => {
  let emulator: EmulatorHandle;
  let project: PulumiProject;
  let beforeFile: string;
  let afterFile: string;
  let fromPreview: AccessReview;

  beforeAll(async () => {
    ensureYamlHost();
    emulator = await startEmulator();
    scan.secrets(emulator.adminKey);
    project = await testProject(
      "review-environment",
      path.join(PROGRAMS_DIR, "environment-yaml"),
      NO_BROKER_ENV,
    );
    installBrokerPlugin(project);
    beforeFile = path.join(scratch, "before.yaml");
    afterFile = path.join(scratch, "after.yaml");
    fs.writeFileSync(beforeFile, scenarioDocument(BEFORE));
    fs.writeFileSync(afterFile, scenarioDocument(AFTER));
    // The stack's document: a copy the test edits, as a user edits theirs in a pull request.
    const documentFile = path.join(scratch, "broker.yaml");
    fs.copyFileSync(beforeFile, documentFile);
    const stack = await project.stack("dev", {
      ...emulatorConfig(emulator),
      documentFile: { value: documentFile },
    });
    const up = await project.run(["up", "--yes", "--skip-preview", "--stack", stack.name]);
    scan.text("environment: up", up.stdout + up.stderr, "cli output");
    fs.copyFileSync(afterFile, documentFile);
  }, 300_000);

  afterAll(() => tearDown({ emulators: [emulator], project, scratch: [] }));

  it("the Environment's children are reviewed like resources: each key's paths, the verdict, exit 3", async () => {
    fromPreview = await expectReview([await previewToFile(project, "environment-yaml")], DOCUMENT_REVIEW);
    scan.secrets(...(await allKeys(emulator)).map((k) => String(k["key"])));
    scan.text("environment: every CLI run", project.producedText(), "cli output");
  });

  it("--from before.yaml --to after.yaml gives the same review as the preview of that change", async () => {
    const fromDocuments = await expectReview(["--from", beforeFile, "--to", afterFile], DOCUMENT_REVIEW);
    expect(fromDocuments.source).toBe("documents");
    expect(linesOf(fromDocuments.planned)).toEqual(linesOf(fromPreview.planned));
    expect(fromDocuments.planned.gains).toEqual(fromPreview.planned.gains);
  });

  it("a change that only narrows passes --fail-on broadening with exit 0", async () => {
    const narrowed: ScenarioSpec = {
      ...BEFORE,
      keys: BEFORE.keys
        .filter((key) => key.name !== "legacy-svc")
        .map((key) =>
          key.name === "billing-svc" ? { ...key, permissions: { receive: ["orders/created"] } } : key,
        ),
    };
    const narrowedFile = path.join(scratch, "narrowed.yaml");
    fs.writeFileSync(narrowedFile, scenarioDocument(narrowed));
    const json = await reviewJson(["--from", beforeFile, "--to", narrowedFile]);
    expect(json.planned.verdict).toBe("narrows");
    expect(json.broadens).toBe(false);
    expect(linesOf(json.planned).keys.map((key) => [key.name, key.kind, key.verdict])).toEqual([
      ["billing-svc", "updated", "narrows"],
      ["legacy-svc", "revoked", "narrows"],
    ]);
    expect((await review(["--from", beforeFile, "--to", narrowedFile, "--fail-on", "broadening"])).code).toBe(
      0,
    );
  });
});

describe("after all of it", () => {
  it("no key value, private key or API key is in any preview, review or state the runs produced", () => {
    scan.text("every review printed", printed.join("\n"), "cli output");
    expect(scan.size).toBeGreaterThan(0);
    expect(scan.leaks()).toEqual([]);
  });
});
