// `node scripts/gen-preview-fixtures.mts`: writes test/fixtures/preview/, the `pulumi preview --json`
// documents the access review (issue #47) is built and tested on, from real runs of the Pulumi CLI
// against the emulator, offline (docs/offline-engine.md). Needs `npm run build`; the first run on a
// machine builds the CLI and the YAML language host (scripts/ensure-pulumi-cli.sh, ensure-yaml-host.sh).
//
// Each program deploys the scenario's state before the change (harness/review-scenario.mts) with
// `pulumi up`, then is edited to the state after it and previewed. What each file is: README.md beside
// them. Every file is checked for secrets before it is written (the emulators' admin keys, every key
// value, and the shapes of key values and private keys): the run fails on a leak and writes nothing.
//
// Two things are rewritten so that a second run differs only where the CLI's output does: each
// emulator's random port becomes 4100 + its index (the URL is in the dynamic resources' state), and
// the scratch directory becomes `/tmp/pbc-review`.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { allKeys, brokerApi, installBrokerPlugin } from "../harness/broker-native.mts";
import { startEmulatorProcess, type EmulatorProcess } from "../harness/emulator-process.mts";
import { createPackageFixture } from "../harness/package-fixture.mts";
import { CliError, PulumiProject, type StackConfig } from "../harness/pulumi-project.mts";
import { pulumiBinDir, PULUMI_VERSION, REPO_ROOT } from "../harness/repo.mts";
import {
  AFTER,
  BEFORE,
  DRIFT,
  scenarioDocument,
  yamlProgram,
  type ScenarioSpec,
} from "../harness/review-scenario.mts";
import { findLeaks } from "../harness/secret-scan.mts";

const OUT = path.join(REPO_ROOT, "test", "fixtures", "preview");

/** A fixture file: its name under OUT and its text. */
interface Fixture {
  readonly file: string;
  readonly text: string;
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-review-fixtures-"));
const emulators: EmulatorProcess[] = [];
const projects: PulumiProject[] = [];
const fixtures: Fixture[] = [];

/** The stack config that points the providers at `emulator`. */
function brokerConfig(emulator: EmulatorProcess): StackConfig {
  return {
    "broker:baseUrl": { value: emulator.url },
    "broker:apiKey": { value: emulator.adminKey, secret: true },
  };
}

/** A new emulator, remembered for the port rewrite, the secret check and the stop at the end. */
async function emulator(): Promise<EmulatorProcess> {
  const started = await startEmulatorProcess({ controls: false });
  emulators.push(started);
  return started;
}

/** A project of `programDir` with the packed package, the CLI and the broker plugin installed. */
async function project(
  name: string,
  programDir: string,
  fixture: string,
  pulumiBin: string,
): Promise<PulumiProject> {
  const created = await PulumiProject.create({ name, programDir, fixture, pulumiBin, parent: scratch });
  projects.push(created);
  installBrokerPlugin(created);
  return created;
}

/** `pulumi preview --json` (plus `extra`) of stack `dev`: what it printed on stdout, failed or not. */
async function previewJson(target: PulumiProject, extra: readonly string[] = []): Promise<string> {
  try {
    return (await target.run(["preview", "--json", "--stack", "dev", ...extra])).stdout;
  } catch (error) {
    if (error instanceof CliError) return error.stdout;
    throw error;
  }
}

/** Writes a program directory holding only `Pulumi.yaml` with `text`, and returns it. */
function yamlDir(name: string, text: string): string {
  const dir = path.join(scratch, `program-${name}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), text);
  return dir;
}

/** Sets `key`'s permissions on the broker directly, as someone with the admin key would by hand. */
async function driftKey(target: EmulatorProcess): Promise<void> {
  const key = (await allKeys(target)).find((k) => k["name"] === DRIFT.key);
  if (key === undefined) throw new Error(`no key ${DRIFT.key} on ${target.url}`);
  await brokerApi(target, "POST", `/access-key/${String(key["key"])}/permissions`, DRIFT.permissions);
}

/** The spec stack config of the spec-driven programs. */
function specConfig(spec: ScenarioSpec): StackConfig {
  return { spec: { value: JSON.stringify(spec) } };
}

async function main(): Promise<void> {
  const pulumiBin = pulumiBinDir();
  execFileSync("bash", [path.join(REPO_ROOT, "scripts", "ensure-yaml-host.sh"), PULUMI_VERSION], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const fixture = createPackageFixture(scratch);

  // The native door, in Pulumi YAML: broker:index:* resources, the program edited in place.
  const yamlBroker = await emulator();
  const yaml = await project(
    "review-yaml",
    yamlDir("yaml", yamlProgram("review-yaml", BEFORE)),
    fixture,
    pulumiBin,
  );
  await yaml.initStack("dev", brokerConfig(yamlBroker));
  await yaml.run(["up", "--yes", "--skip-preview", "--stack", "dev"]);
  fs.writeFileSync(path.join(yaml.dir, "Pulumi.yaml"), yamlProgram("review-yaml", AFTER));
  fixtures.push({ file: "native-yaml.json", text: await previewJson(yaml) });
  // With the unchanged resources too: the only way the JSON holds the path of a workspace that does
  // not change (here `data`, the moved workspace's new parent).
  fixtures.push({ file: "native-yaml-show-sames.json", text: await previewJson(yaml, ["--show-sames"]) });
  fs.writeFileSync(path.join(yaml.dir, "Pulumi.yaml"), yamlProgram("review-yaml", BEFORE));
  await driftKey(yamlBroker);
  fixtures.push({ file: "native-yaml-drift.json", text: await previewJson(yaml, ["--refresh"]) });

  // The native door's component: an Environment deploying a configuration document (YAML program).
  const environmentBroker = await emulator();
  const environment = await project(
    "review-environment",
    path.join(REPO_ROOT, "test", "programs", "environment-yaml"),
    fixture,
    pulumiBin,
  );
  const documentFile = path.join(environment.dir, "broker.yaml");
  fs.writeFileSync(documentFile, scenarioDocument(BEFORE));
  await environment.initStack("dev", {
    ...brokerConfig(environmentBroker),
    documentFile: { value: "broker.yaml" },
  });
  await environment.run(["up", "--yes", "--skip-preview", "--stack", "dev"]);
  fs.writeFileSync(documentFile, scenarioDocument(AFTER));
  fixtures.push({ file: "environment-yaml.json", text: await previewJson(environment) });
  fixtures.push({ file: "before.yaml", text: scenarioDocument(BEFORE) });
  fixtures.push({ file: "after.yaml", text: scenarioDocument(AFTER) });

  // The dynamic door, from JavaScript (test/programs/broker: the spec in stack config).
  const dynamicBroker = await emulator();
  const dynamic = await project(
    "review-dynamic",
    path.join(REPO_ROOT, "test", "programs", "broker"),
    fixture,
    pulumiBin,
  );
  await dynamic.initStack("dev", { ...brokerConfig(dynamicBroker), ...specConfig(BEFORE) });
  await dynamic.run(["up", "--yes", "--skip-preview", "--stack", "dev"]);
  await dynamic.run(["config", "set", "--stack", "dev", "spec", JSON.stringify(AFTER)]);
  fixtures.push({ file: "dynamic-ts.json", text: await previewJson(dynamic) });
  await dynamic.run(["config", "set", "--stack", "dev", "spec", JSON.stringify(BEFORE)]);
  await driftKey(dynamicBroker);
  fixtures.push({ file: "dynamic-ts-drift.json", text: await previewJson(dynamic, ["--refresh"]) });

  // A preview that fails: an event path the grammar refuses, caught by check before any request.
  const broken: ScenarioSpec = {
    ...AFTER,
    keys: [{ name: "orders-svc", type: "SERVICE", permissions: { send: ["orders//created"] } }],
  };
  await dynamic.run(["config", "set", "--stack", "dev", "spec", JSON.stringify(broken)]);
  fixtures.push({ file: "failed-preview.json", text: await previewJson(dynamic) });

  // Nothing secret in any of them.
  const secrets: string[] = [];
  for (const broker of emulators) {
    secrets.push(broker.adminKey, ...(await allKeys(broker)).map((k) => String(k["key"])));
  }
  const leaks = findLeaks(
    fixtures.map(({ file, text }) => ({ source: file, text })),
    secrets,
  );
  if (leaks.length > 0) throw new Error(`secrets in the fixtures: ${JSON.stringify(leaks)}`);

  fs.mkdirSync(OUT, { recursive: true });
  for (const { file, text } of fixtures) fs.writeFileSync(path.join(OUT, file), normalise(text));
  process.stdout.write(`gen-preview-fixtures: wrote ${fixtures.map((f) => f.file).join(", ")} to ${OUT}\n`);
}

/** The text with the run's random ports and scratch directory replaced by fixed ones. */
function normalise(text: string): string {
  let result = text.replaceAll(scratch, "/tmp/pbc-review");
  emulators.forEach((broker, index) => {
    result = result.replaceAll(new URL(broker.url).host, `127.0.0.1:${4100 + index}`);
  });
  return result;
}

try {
  await main();
} finally {
  for (const broker of emulators) await broker.stop();
  for (const created of projects) created.remove();
  fs.rmSync(scratch, { recursive: true, force: true });
}
