import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { BrokerClient } from "../../src/client";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { allWorkspaces, installBrokerPlugin } from "../../harness/broker-native.mts";
import { PulumiProject, type StackConfig } from "../../harness/pulumi-project.mts";
import { programsVenv, sdkVirtualenv } from "../../harness/python-sdk.mts";
import { GO_BUILD_ENV, GO_SDK_DIR, goSdkModule, REPO_ROOT } from "../../harness/repo.mts";
import { CLI_TEST_SOURCES, errorText, SecretScan } from "../../harness/secret-scan.mts";
import { ensureYamlHost } from "../support/projects";
import { isEncryptedSecret, stateOutputs } from "../support/state";
import { configChanges } from "../support/stack-config";

// The look-up functions (issue #18) through the real Pulumi CLI, offline, against two emulators, in
// five runs of programs that do the same: test/programs/lookups-js (JavaScript, once on the native
// SDK and the `broker` plugin, once on the dynamic door), lookups-python and lookups-go
// (the generated SDKs and the plugin) and lookups-yaml (Pulumi YAML's `fn::invoke` and the plugin).
// The objects they look up are made through the API beforehand, as another team's tooling would.
// One stack per program: its config changes between cases (each failing preview, then the `up`),
// which run in the order written (issue #50: CLI runs are the file's cost).

const programs = path.join(__dirname, "..", "programs");

let main: EmulatorHandle;
let other: EmulatorHandle;
const made = { platformId: 0, keyId: 0, keyValue: "", twinIds: [] as number[] };
let venvRoot: string | undefined;

beforeAll(async () => {
  main = await startEmulator({ controls: true });
  other = await startEmulator();
  const api = new BrokerClient({ baseUrl: main.url, apiKey: main.adminKey });
  const otherApi = new BrokerClient({ baseUrl: other.url, apiKey: other.adminKey });
  try {
    made.platformId = (await api.createWorkspaceAndFind({ name: "platform" })).id;
    const key = await api.createAccessKeyOnce({
      name: "orders-svc",
      type: "SERVICE",
      permissions: { send: ["orders/created"], receive: ["payments/*"] },
    });
    made.keyId = key.record.id;
    made.keyValue = key.record.key;
    for (let i = 0; i < 2; i++)
      made.twinIds.push(
        (await api.createAccessKeyOnce({ name: "twin", type: "ACCOUNT", permissions: {} })).record.id,
      );
    await otherApi.createWorkspaceAndFind({ name: "elsewhere" });
  } finally {
    await api.close();
    await otherApi.close();
  }
});

afterAll(async () => {
  await main.close();
  await other.close();
  if (venvRoot !== undefined) fs.rmSync(venvRoot, { recursive: true, force: true });
});

/**
 * The stack config of a program; `teamName` differs per program, as the API cannot delete workspaces.
 * The YAML program, which cannot branch, gets what to look up instead of a mode.
 */
function settings(door: Door, mode: string, withCredentials = true): StackConfig {
  const { program } = door;
  const yaml = program === "lookups-yaml";
  return {
    ...(door.jsDoor === undefined ? {} : { door: { value: door.jsDoor } }),
    ...(yaml
      ? {
          ...(mode === "missing" ? { platformPath: { value: "/platform/nowhere" } } : {}),
          ...(mode === "duplicate" ? { keyName: { value: "twin" } } : {}),
        }
      : { mode: { value: mode } }),
    teamName: { value: `team-${program}` },
    otherUrl: { value: other.url },
    otherKey: { value: other.adminKey, secret: true },
    ...(withCredentials
      ? {
          "broker:baseUrl": { value: main.url },
          "broker:apiKey": { value: main.adminKey, secret: true },
        }
      : {}),
  };
}

/** A Python virtualenv with the generated SDK, made once for the file, first on the PATH. */
function pythonPath(pulumiBin: string): string {
  venvRoot = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-lookups-python-"));
  const venv = sdkVirtualenv(programsVenv(inject("pulumiVersion")), venvRoot);
  return [path.join(venv, "bin"), pulumiBin, process.env["PATH"] ?? ""].join(path.delimiter);
}

interface Door {
  readonly name: string;
  /** Names the door's project and its workspace; the program's folder unless `dir` says otherwise. */
  readonly program: string;
  /** The program's folder under test/programs, when it is not `program`. */
  readonly dir?: string;
  /** Which door the JavaScript program (`lookups-js`) takes: its stack config `door`. */
  readonly jsDoor?: "native" | "dynamic";
  /** Whether the program runs on the `broker` plugin (installed into the project's Pulumi home). */
  readonly plugin: boolean;
  readonly python?: boolean;
  /** A Pulumi YAML program: the YAML language host must be beside the CLI. */
  readonly yaml?: boolean;
  /** A Go program: the Go language host beside the CLI, and the SDK's module from this checkout. */
  readonly go?: boolean;
  /**
   * Whether every failing look-up runs through this door, not only the missing path. The messages
   * are the plugin's (native) or the dynamic door's own: the two JavaScript doors check each one;
   * a program of another language on the plugin checks that its SDK passes a failed look-up's
   * message on to the CLI, which one failure shows as well as three (each costs a preview).
   */
  readonly everyFailure: boolean;
  /**
   * Whether the stack is destroyed before the scan: `pulumi destroy` runs no program, only the
   * providers in the state, so a program of another language on the plugin would repeat the
   * JavaScript native door's destroy (the same plugin, the same resource).
   */
  readonly destroys: boolean;
}

const DOORS: readonly Door[] = [
  {
    name: "JavaScript program, native SDK",
    program: "lookups-native",
    dir: "lookups-js",
    jsDoor: "native",
    plugin: true,
    everyFailure: true,
    destroys: true,
  },
  {
    name: "JavaScript program, dynamic door",
    program: "lookups-dynamic",
    dir: "lookups-js",
    jsDoor: "dynamic",
    plugin: false,
    everyFailure: true,
    destroys: true,
  },
  {
    name: "Python program, generated SDK",
    program: "lookups-python",
    plugin: true,
    python: true,
    everyFailure: false,
    destroys: false,
  },
  {
    name: "Pulumi YAML program",
    program: "lookups-yaml",
    plugin: true,
    yaml: true,
    everyFailure: false,
    destroys: false,
  },
  {
    name: "Go program, generated SDK",
    program: "lookups-go",
    plugin: true,
    go: true,
    everyFailure: false,
    destroys: false,
  },
];

/** Each case's bound against a hang (see the cases' comment). */
const CASE_TIMEOUT_MS = 900_000;

/** The Go SDK's module path (schema.json's `language.go.importBasePath`). */
const GO_SDK_MODULE = goSdkModule();

describe.each(DOORS)("look-ups in a $name", (door) => {
  let project: PulumiProject;
  let stack: Stack | undefined;
  /** The config `stack` has now: each case sets only what differs from it. */
  let current: StackConfig = {};
  const scan = new SecretScan();

  beforeAll(async () => {
    scan.secrets(main.adminKey, other.adminKey, made.keyValue);
    const pulumiBin = inject("pulumiBin");
    project = await PulumiProject.create({
      name: door.program,
      programDir: path.join(programs, door.dir ?? door.program),
      fixture: inject("packageFixture"),
      pulumiBin,
      ...(door.python === true ? { env: { PATH: pythonPath(pulumiBin) } } : {}),
      ...(door.go === true ? { env: { ...GO_BUILD_ENV } } : {}),
    });
    if (door.go === true) {
      execFileSync("bash", [path.join(REPO_ROOT, "scripts", "ensure-go-host.sh"), inject("pulumiVersion")], {
        cwd: REPO_ROOT,
        stdio: ["ignore", "ignore", "inherit"],
      });
      // The SDK's module is not published: the program takes it from this checkout, as README says.
      fs.appendFileSync(path.join(project.dir, "go.mod"), `\nreplace ${GO_SDK_MODULE} => ${GO_SDK_DIR}\n`);
    }
    if (door.plugin) installBrokerPlugin(project);
    if (door.yaml === true) ensureYamlHost();
  }, 300_000);

  afterAll(() => {
    project.remove();
  });

  /**
   * The program's one stack (`dev`) with `config`: created with it the first time; after that one
   * `config rm-all` of the keys `config` lacks and one `config set-all` of those it changes, each
   * only when there are any.
   */
  async function configured(config: StackConfig): Promise<Stack> {
    if (stack === undefined) {
      stack = await project.stack("dev", config);
    } else {
      const { remove, set } = configChanges(current, config);
      if (remove.length > 0) await stack.removeAllConfig(remove);
      if (Object.keys(set).length > 0) await stack.setAllConfig(set);
    }
    current = config;
    return stack;
  }

  /** The text of a preview that must fail, added to the scan as CLI output. */
  async function failedPreview(mode: string, config: StackConfig): Promise<string> {
    const failing = await configured(config);
    const error = await failing.preview().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error, "the preview succeeded").toBeDefined();
    const text = errorText(error);
    scan.text(`${mode} preview`, text, "cli output");
    return text;
  }

  // The cases share the stack: a case cut short by its timeout would leave its CLI holding the
  // stack's lock and fail every case after it, so each gets a bound against a hang, not a speed
  // figure. The first preview of the Go program compiles it (and the Pulumi Go SDK, on a machine's
  // first run). Without credentials first: the next case's config adds them (one `config set-all`).
  // Registered only where they run (the Door type says why), not skipped elsewhere.
  if (door.everyFailure)
    it(
      "without credentials, the preview fails naming the function that needed them",
      { timeout: CASE_TIMEOUT_MS },
      async () => {
        const text = await failedPreview("nocreds", settings(door, "deploy", false));
        expect(text).toMatch(/broker:index:\w+ reads the broker API, also during `pulumi preview`/u);
        expect(text).toContain("broker:apiKey");
      },
    );

  it(
    "a missing path fails the preview, naming the path and the base URL",
    { timeout: CASE_TIMEOUT_MS },
    async () => {
      const text = await failedPreview("missing", settings(door, "missing"));
      expect(text).toContain("/platform/nowhere");
      expect(text).toContain(main.url);
    },
  );

  if (door.everyFailure)
    it(
      "a duplicate name fails the preview listing both ids, with the hint to look up by id",
      { timeout: CASE_TIMEOUT_MS },
      async () => {
        const text = await failedPreview("duplicate", settings(door, "duplicate"));
        expect(text).toContain(`ids ${made.twinIds.join(", ")}`);
        expect(text).toContain("look the one you mean up by id");
      },
    );

  it(
    "up: a workspace made outside Pulumi parents a new one; the key is read as a secret and verified",
    { timeout: CASE_TIMEOUT_MS },
    async () => {
      // The CLI's `up`: the Automation API's would add a `stack history` no assertion reads (issue #50).
      const deployed = await configured(settings(door, "deploy"));
      const up = await project.cli(["up", "--yes", "--skip-preview", "--stack", deployed.name]);
      scan.text("up", up.stdout + up.stderr, "cli output");
      expect(up.stdout + up.stderr).not.toContain(made.keyValue);

      const out = await deployed.outputs(); // `stack output --json`, secrets hidden and shown
      expect(out["platformId"]?.value).toBe(made.platformId);
      expect(out["teamParentId"]?.value).toBe(made.platformId);
      const team = (await allWorkspaces(main)).find((w) => w["name"] === `team-${door.program}`);
      expect(team?.["parentId"]).toBe(made.platformId);

      // `secret: true` is how `pulumi stack output --json` showed it: "[secret]" (the Automation API
      // reads the outputs twice, secrets hidden and shown).
      expect(out["keyValue"]).toEqual({ value: made.keyValue, secret: true });
      expect(out["keyPermissions"]?.value).toEqual({
        send: ["orders/created"],
        receive: ["payments/*"],
        resources: {},
      });
      expect(out["keyValid"]?.value).toBe(true);
      expect(out["unknownValid"]?.value).toBe(false);
      // What README, Look-ups says is secret (issue #32): the whole result of getAccessKey's Output
      // form, not only its key value; `valid` when the key passed in is a secret, not otherwise; nothing
      // of a workspace.
      expect(out["keyPermissions"]?.secret).toBe(true);
      expect(out["keyValid"]?.secret).toBe(true);
      expect(out["unknownValid"]?.secret).toBe(false);
      expect(out["platformId"]?.secret).toBe(false);
      // The explicit provider (or explicit settings) read the second emulator.
      expect(out["otherPath"]?.value).toBe("/elsewhere");
      expect(out["workspaceNames"]?.value).toEqual(expect.arrayContaining(["platform"]));
      expect(out["serviceKeyNames"]?.value).toEqual(["orders-svc"]);
    },
  );

  // The state file the engine wrote, read where it lies (what `pulumi stack export` would print of it;
  // the scan below reads it too).
  it("the key value is encrypted in the state", () => {
    expect(isEncryptedSecret(stateOutputs(project, "dev")["keyValue"])).toBe(true);
  });

  it(
    `${door.destroys ? "destroy; " : ""}no key value in state, history, backups or CLI output`,
    { timeout: CASE_TIMEOUT_MS },
    async () => {
      // `pulumi destroy` itself (its output is in the transcript): the Automation API's would add a
      // `stack history` no assertion reads.
      if (door.destroys) await project.cli(["destroy", "--yes", "--skip-preview", "--stack", "dev"]);
      scan.text("transcript", project.transcript.join("\n"), "cli output");
      scan.project(door.program, project);
      expect(scan.unread(CLI_TEST_SOURCES)).toEqual([]);
      expect(scan.leaks()).toEqual([]);
    },
  );
});
