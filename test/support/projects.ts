/**
 * Test helpers for the suites that run programs through the real Pulumi CLI: the project of a
 * program with the packed package and the run's CLI, the declared state most of them deploy, and the
 * two brokers the configuration-as-data suites copy between.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { OutputMap, PreviewResult, Stack } from "@pulumi/pulumi/automation";
import { expect, inject } from "vitest";
import { PulumiProject, type StackConfig } from "../../harness/pulumi-project.mts";
import { programsVenv, sdkVirtualenv } from "../../harness/python-sdk.mts";
import { GO_BUILD_ENV, GO_SDK_DIR, goSdkModule, REPO_ROOT } from "../../harness/repo.mts";
import { BrokerClient } from "../../src/client";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { createExportSource } from "./client";

/** The folder of the test programs (`test/programs/<name>`). */
export const PROGRAMS_DIR = path.join(__dirname, "..", "programs");

/**
 * What most CLI test files start from, for their `beforeAll`: an emulator with its test controls on,
 * and a project `name` of the test program `program` (a folder of `test/programs/`) whose
 * environment names no broker ({@link NO_BROKER_ENV}). {@link tearDown} ends both.
 */
export async function startProgram(
  name: string,
  program: string,
): Promise<{ emulator: EmulatorHandle; project: PulumiProject }> {
  const emulator = await startEmulator({ controls: true });
  try {
    return { emulator, project: await testProject(name, path.join(PROGRAMS_DIR, program), NO_BROKER_ENV) };
  } catch (error) {
    await emulator.close();
    throw error;
  }
}

/**
 * Ends what a CLI test file set up, for its `afterAll`: closes its emulators, removes its Pulumi
 * project (stacks, state and plugins), when it has one of its own, and deletes its scratch folders.
 */
export async function tearDown(setUp: {
  readonly emulators: readonly { close(): Promise<void> }[];
  readonly project?: PulumiProject;
  readonly scratch?: readonly string[];
}): Promise<void> {
  for (const emulator of setUp.emulators) await emulator.close();
  setUp.project?.remove();
  for (const dir of setUp.scratch ?? []) fs.rmSync(dir, { recursive: true, force: true });
}

/** The two brokers of a suite that copies an environment: what {@link startExportPair} returns. */
export interface ExportPair {
  /** An emulator (controls on) holding {@link createExportSource}'s environment: the one exported. */
  readonly source: EmulatorHandle;
  /** An empty emulator (controls on): the one the export is deployed to. */
  readonly target: EmulatorHandle;
}

/**
 * Starts the broker an export is made from: an emulator (controls on) holding
 * {@link createExportSource}'s environment, made through a client of its admin key, closed again. When
 * a step fails, the emulator is closed before the error is thrown.
 */
export async function startExportSource(): Promise<EmulatorHandle> {
  const source = await startEmulator({ controls: true });
  try {
    const client = new BrokerClient({ baseUrl: source.url, apiKey: source.adminKey });
    try {
      await createExportSource(client);
    } finally {
      await client.close();
    }
    return source;
  } catch (error) {
    await source.close();
    throw error;
  }
}

/**
 * Starts the brokers the configuration-as-data suites copy between: {@link startExportSource}'s
 * source and an empty target, both with their test controls on. When a step fails, the emulator
 * already started is closed before the error is thrown, so a failed `beforeAll` leaves no server
 * behind.
 */
export async function startExportPair(): Promise<ExportPair> {
  const source = await startExportSource();
  try {
    return { source, target: await startEmulator({ controls: true }) };
  } catch (error) {
    await source.close();
    throw error;
  }
}

/**
 * An environment that names no broker, for projects whose stacks name it in their config: the
 * broker of whoever runs the tests (`BROKER_BASE_URL`, `BROKER_API_KEY`) must not stand in for a
 * setting a stack forgot.
 */
export const NO_BROKER_ENV: Readonly<Record<string, string>> = { BROKER_BASE_URL: "", BROKER_API_KEY: "" };

/**
 * A Pulumi project named `name` for the program in `programDir`, with the packed package installed
 * (the global setup's `packageFixture`) and the CLI of this run's leg of the engine matrix
 * (`pulumiBin`). `env` is added to the environment of every command the project runs.
 */
export async function testProject(
  name: string,
  programDir: string,
  env?: Record<string, string | undefined>,
): Promise<PulumiProject> {
  return await PulumiProject.create({
    name,
    programDir,
    fixture: inject("packageFixture"),
    pulumiBin: inject("pulumiBin"),
    ...(env === undefined ? {} : { env: { ...env } }),
  });
}

/**
 * The stack config that points the providers at `target` (an emulator): its URL, and its admin key
 * as a secret.
 */
export function emulatorConfig(target: { url: string; adminKey: string }): StackConfig {
  return {
    "broker:baseUrl": { value: target.url },
    "broker:apiKey": { value: target.adminKey, secret: true },
  };
}

/**
 * The arguments of `pulumi config set-all` (after `set-all`) that point a stack at `target`: its
 * base URL in plain text and `apiKey` (default: the target's admin key) as a secret, as the README's
 * quickstart sets them.
 */
export function brokerSettingsArgs(
  target: { url: string; adminKey: string },
  apiKey = target.adminKey,
): string[] {
  return ["--plaintext", `broker:baseUrl=${target.url}`, "--secret", `broker:apiKey=${apiKey}`];
}

/**
 * The stack config that hands a test program its declared state: `spec` is read by the programs under
 * `test/programs/` (`new pulumi.Config().requireObject("spec")`) as JSON.
 */
export function specConfig(spec: object): StackConfig {
  return { spec: { value: JSON.stringify(spec) } };
}

/** The stack output `name`, which must be a number (fails the test with what it is otherwise). */
export function numberOutput(outputs: Record<string, { value: unknown }>, name: string): number {
  const value = outputs[name]?.value;
  if (typeof value !== "number")
    throw new Error(`stack output ${name} is ${JSON.stringify(value)}, not a number`);
  return value;
}

/**
 * Runs `scripts/<script>` of the repository (the scripts that make a language host ready) and
 * returns what it prints, trimmed. Fast once scripts/ensure-pulumi-cli.sh, which the global setup
 * runs, has built everything.
 */
export function runRepoScript(script: string): string {
  return execFileSync("bash", [path.join(REPO_ROOT, "scripts", script)], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
}

/**
 * Builds (once per machine) the Pulumi YAML language host for this run's CLI, which runs
 * `runtime: yaml` programs; fast when `scripts/ensure-yaml-host.sh` has built it before.
 */
export function ensureYamlHost(): void {
  execFileSync("bash", [path.join(REPO_ROOT, "scripts", "ensure-yaml-host.sh"), inject("pulumiVersion")], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "ignore", "inherit"],
  });
}

/**
 * {@link testProject} for a Python program with the generated SDK: its wheel installed with pip into
 * a venv of the project's own (in `scratch`), as users install it; the Python language host runs the
 * first `python` on PATH.
 */
export function pythonSdkProject(
  name: string,
  programDir: string,
  scratch: string,
  env: Record<string, string> = NO_BROKER_ENV,
): Promise<PulumiProject> {
  const venv = sdkVirtualenv(programsVenv(inject("pulumiVersion")), scratch);
  return testProject(name, programDir, { ...env, PATH: venvPath(venv) });
}

/**
 * {@link testProject} for a Go program with the generated SDK: the Go language host built, and the
 * SDK's unpublished module taken from this checkout (a `replace` appended to the program's go.mod),
 * as a clone's user does, built with {@link GO_BUILD_ENV}. A program's first run on a machine compiles it
 * and the Pulumi Go SDK: minutes, not seconds.
 */
export async function goSdkProject(
  name: string,
  programDir: string,
  env: Record<string, string> = NO_BROKER_ENV,
): Promise<PulumiProject> {
  runRepoScript("ensure-go-host.sh");
  const project = await testProject(name, programDir, { ...env, ...GO_BUILD_ENV });
  fs.appendFileSync(path.join(project.dir, "go.mod"), `\nreplace ${goSdkModule()} => ${GO_SDK_DIR}\n`);
  return project;
}

/**
 * A `PATH` on which the first `python` is the virtualenv `venv`'s and the first `pulumi` this run's
 * CLI: the Python language host runs the first `python` on PATH, whatever Pulumi.yaml says.
 */
export function venvPath(venv: string): string {
  return [path.join(venv, "bin"), inject("pulumiBin"), process.env["PATH"] ?? ""].join(path.delimiter);
}

/** Destroys `stack` and checks that it succeeded, deleted `deletes` resources and left no outputs. */
export async function expectDestroyed(stack: Stack, deletes: number): Promise<void> {
  const result = await stack.destroy();
  expect(result.summary.result).toBe("succeeded");
  expect(result.summary.resourceChanges).toEqual({ delete: deletes });
  expect(await stack.outputs()).toEqual({});
}

/**
 * Runs `pulumi up` of `stack` with the CLI and checks the summary it printed: `changes` (such as
 * `+ 5 created`) and no other line. Resolves with its output and the stack's outputs as the
 * Automation API's `up` reports them (values, and which are secret: `stack.outputs()`). Two CLI
 * starts after the update where the Automation API's `up` makes three: it also runs `stack history`
 * for a summary the CLI has already printed (issue #50).
 */
export async function upWithCli(
  project: PulumiProject,
  stack: Stack,
  changes: string,
): Promise<{ stdout: string; stderr: string; outputs: OutputMap }> {
  const up = await project.cli(["up", "--yes", "--skip-preview", "--stack", stack.name]);
  const escaped = changes.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");
  expect(up.stdout).toMatch(new RegExp(`^Resources:\\n {4}${escaped}\\n\\n`, "mu"));
  return { ...up, outputs: await stack.outputs() };
}

/**
 * Destroys `stack` with the CLI's `pulumi destroy` (the Automation API's runs `stack history` after
 * it to read the summary the CLI prints: one CLI start more, issue #50) and checks what it printed:
 * `deletes` resources deleted and no other change. Resolves with its output.
 */
export async function destroyWithCli(
  project: PulumiProject,
  stack: string,
  deletes: number,
): Promise<{ stdout: string; stderr: string }> {
  const destroy = await project.cli(["destroy", "--yes", "--skip-preview", "--stack", stack]);
  expect(destroy.stdout).toMatch(new RegExp(`^Resources:\\n {4}- ${deletes} deleted\\n\\n`, "mu"));
  return destroy;
}

/**
 * Previews `stack` (a new one, whose config holds no credentials), checks that no request reached
 * `emulator` meanwhile (its request log is cleared first), and gives the preview's change summary.
 */
export async function previewWithoutRequests(
  stack: Stack,
  emulator: EmulatorHandle,
): Promise<PreviewResult["changeSummary"]> {
  await emulator.controls!.clearRequests();
  const preview = await stack.preview();
  expect(await emulator.controls!.requests()).toEqual([]);
  return preview.changeSummary;
}

/** A resource of a stack's state as `pulumi stack export` writes it: the fields the tests read. */
export interface StateResource {
  urn: string;
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  /** The provider's reference (`<urn>::<id>`). */
  provider?: string;
  /** Why a create or update failed half-way, kept with a resource the engine still records. */
  initErrors?: string[];
  /** Set on a resource a create-before-delete replacement left to delete. */
  delete?: boolean;
}

/** An access key the `broker` program declares. */
export interface OrdersKeySpec {
  name: string;
  /** The resource's name in the stack when it differs from `name`. */
  resource?: string;
  type: "SERVICE" | "ACCOUNT";
  permissions?: { send?: string[]; receive?: string[] };
  onDelete?: "revoke" | "retain";
}

/** What the `broker` program deploys (its stack config `spec`). */
export interface OrdersSpec {
  workspaces?: { name: string; parent?: string }[];
  keys?: OrdersKeySpec[];
  pairs?: { key: string; rotationTriggers?: Record<string, string> }[];
}

/**
 * A fresh copy of the platform team's declared state the end-to-end suites start from: two nested
 * workspaces, a service key with a key pair and an account key.
 */
export function ordersSpec(): OrdersSpec {
  return {
    workspaces: [{ name: "platform" }, { name: "orders", parent: "platform" }],
    keys: [
      {
        name: "orders-svc",
        type: "SERVICE",
        permissions: { send: ["orders/created"], receive: ["payments/*"] },
      },
      { name: "ops-admin", type: "ACCOUNT", permissions: { receive: ["audit/*"] } },
    ],
    pairs: [{ key: "orders-svc", rotationTriggers: { quarter: "2026-Q4" } }],
  };
}
