import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import type { EmulatorHandle } from "../../src/emulator";
import { allKeys, allWorkspaces, exportBroker, installBrokerPlugin } from "../../harness/broker-native.mts";
import { CliError, type PulumiProject } from "../../harness/pulumi-project.mts";
import { CLI_TEST_SOURCES, SecretScan } from "../../harness/secret-scan.mts";
import type { BrokerConfigDocument } from "../../src/config-as-data";
import {
  emulatorConfig,
  ensureYamlHost,
  NO_BROKER_ENV,
  PROGRAMS_DIR,
  startExportPair,
  tearDown,
  testProject,
} from "../support/projects";
import { EXPORT_SOURCE_WORKSPACE_PATHS } from "../support/client";
import {
  copiedKeys,
  ENVIRONMENT_RESOURCES,
  expectPrivateKeys,
  keyValues,
} from "../support/environment-document";
import { stateResources } from "../support/state";

// Issue #36: the `broker:index:Environment` component, served by the plugin's Construct, deploys the
// document `broker-config export` wrote from one broker to a second one, from a Pulumi YAML program
// that is a single resource. The steps share one stack and run in order; the file ends with the
// plaintext scan of everything the runs produced. The same document deployed from TypeScript, Python
// and Go is test/e2e/environment-languages.test.ts (a file of its own since issue #50, so that
// neither takes over three minutes).

/** A step of `pulumi preview --json`. */
interface PreviewStep {
  op: string;
  urn: string;
  diffReasons?: string[];
}

let source: EmulatorHandle; // exported
let target: EmulatorHandle; // deployed to
let project: PulumiProject;
let stack: Stack;
let scratch: string;
let exported: string;
let documentFile: string;
const scan = new SecretScan();
const RESOURCES = ENVIRONMENT_RESOURCES;

/** The child resource of a preview step: `access-key:<name>` or `workspace:<path>`. */
function childOf(step: PreviewStep): string {
  return (step.urn.split("::").pop() ?? "").replace(/^environment:/u, "");
}

/** The error text of `pulumi preview --stack dev <extra>`, which must fail. */
async function failedPreview(extra: readonly string[]): Promise<string> {
  const outcome = await project.run(["preview", "--stack", "dev", ...extra]).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof CliError)) throw new Error(`expected the preview to fail, got ${String(outcome)}`);
  return outcome.message;
}

beforeAll(async () => {
  ({ source, target } = await startExportPair());
  ensureYamlHost();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-environment-e2e-"));
  project = await testProject("environment-yaml", path.join(PROGRAMS_DIR, "environment-yaml"), NO_BROKER_ENV);
  installBrokerPlugin(project);
  documentFile = path.join(scratch, "broker.yaml");
  exported = await exportBroker(project.dir, source, documentFile);
  scan.secrets(source.adminKey, target.adminKey, ...(await keyValues(source)));
  await source.controls!.clearRequests();
}, 300_000);

afterAll(() => tearDown({ emulators: [source, target], project, scratch: [scratch] }));

// The steps share one stack: a step cut short by its timeout would leave its CLI holding the lock.
describe("a YAML program of one Environment, through the Pulumi CLI", { timeout: 300_000 }, () => {
  it("1. previews with no credentials: the component and a child per workspace and key, without a request", async () => {
    stack = await project.stack("dev", { documentFile: { value: documentFile } });
    const preview = await stack.preview();
    expect(preview.changeSummary).toEqual({ create: RESOURCES });
    expect(await target.controls!.requests()).toEqual([]);
    expect(await source.controls!.requests()).toEqual([]);
  });

  it("2. up deploys the exported document to a second broker: the same tree, keys and permissions; key values are secrets", async () => {
    await stack.setAllConfig(emulatorConfig(target));
    const up = await stack.up();
    expect(up.summary.resourceChanges).toEqual({ create: RESOURCES });
    scan.text("up", up.stdout + up.stderr, "cli output");
    // Exported again from the copy, the document is the same, byte for byte.
    expect(await exportBroker(project.dir, target, path.join(scratch, "copy.yaml"))).toBe(exported);
    // B holds its own admin key and the copies; A also holds an ACCOUNT key the export left out.
    expect(await target.controls!.stats()).toMatchObject({
      workspaces: (await source.controls!.stats()).workspaces,
      accessKeys: 1 + 4,
    });

    // `up` read the outputs already (the Automation API's `stack output` after it): no second read.
    const outputs = up.outputs;
    const keys = copiedKeys(await allKeys(target));
    scan.secrets(...keys.map((k) => String(k["key"])));
    expect(outputs["accessKeyValues"]).toEqual({
      value: Object.fromEntries(keys.map((k) => [String(k["name"]), String(k["key"])])),
      secret: true,
    });
    expect(outputs["accessKeys"]).toEqual({
      value: Object.fromEntries(keys.map((k) => [String(k["name"]), Number(k["id"])])),
      secret: false,
    });
    expectPrivateKeys(scan, outputs["privateKeys"], keys);
    const workspaces = outputs["workspaces"]?.value as Record<string, number>;
    expect(Object.keys(workspaces).sort()).toEqual(EXPORT_SOURCE_WORKSPACE_PATHS);
    expect(Object.values(workspaces).sort()).toEqual(
      (await allWorkspaces(target)).map((w) => w["id"]).sort(),
    );

    // In the state the component's key values are ciphertext (what the CLI's export, without
    // --show-secrets, prints: read from the checkpoint, not through a CLI start).
    const component = stateResources(project, "dev").find((r) => r.type === "broker:index:Environment");
    expect(component?.outputs?.["accessKeyValues"]).toEqual({
      "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
      ciphertext: expect.any(String) as string,
    });
    expect(component?.outputs?.["privateKeys"]).toEqual({
      "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
      ciphertext: expect.any(String) as string,
    });
  });

  it("3. an edited document (a permission changed, a key added, a workspace removed) previews as exactly those changes, and up applies them", async () => {
    const doc = parse(exported) as BrokerConfigDocument;
    const orders = doc.accessKeys!.find((k) => k.name === "orders-svc")!;
    orders.permissions = { ...orders.permissions, send: ["orders/created", "orders/shipped"] };
    doc.accessKeys!.push({ name: "shipping-svc", type: "SERVICE", permissions: { send: ["shipping/*"] } });
    doc.workspaces = doc.workspaces!.filter((w) => w.name !== "data");
    fs.writeFileSync(documentFile, stringify(doc));

    const preview = await project.run(["preview", "--json", "--stack", "dev"]);
    scan.text("preview --json", preview.stdout + preview.stderr, "cli output");
    const { steps, changeSummary } = JSON.parse(preview.stdout) as {
      steps: PreviewStep[];
      changeSummary: Record<string, number>;
    };
    expect(changeSummary).toEqual({ same: RESOURCES - 2, update: 1, create: 1, delete: 1 });
    const changed = steps.filter((s) => s.op !== "same").map((s) => [s.op, childOf(s), s.diffReasons ?? []]);
    expect(changed.sort()).toEqual(
      [
        ["update", "access-key:orders-svc", ["permissions"]],
        ["create", "access-key:shipping-svc", []],
        ["delete", "workspace:/data", []],
      ].sort(),
    );

    const up = await stack.up();
    scan.text("up after the edit", up.stdout + up.stderr, "cli output");
    expect(up.summary.resourceChanges).toEqual({ same: RESOURCES - 2, update: 1, create: 1, delete: 1 });
    const keys = await allKeys(target);
    scan.secrets(...keys.map((k) => String(k["key"])));
    expect(keys.find((k) => k["name"] === "orders-svc")?.["permissions"]).toMatchObject({
      send: ["orders/created", "orders/shipped"],
    });
    expect(keys.find((k) => k["name"] === "shipping-svc")).toMatchObject({
      type: "SERVICE",
      permissions: { send: ["shipping/*"] },
    });
    // The API cannot delete a workspace: /data leaves the stack and stays on the broker.
    expect((await allWorkspaces(target)).map((w) => w["name"])).toContain("data");
    const outputs = up.outputs;
    expect(Object.keys(outputs["workspaces"]?.value as object)).not.toContain("/data");
    expect(Object.keys(outputs["accessKeyValues"]?.value as object)).toContain("shipping-svc");
    // Applied, the document previews as no change (the stack's second preview after an up).
    expect((await stack.preview()).changeSummary).toEqual({ same: RESOURCES });
  });

  it("4. a mistake in the document fails the preview before any request, naming file:line:column and path", async () => {
    const good = fs.readFileSync(documentFile, "utf8");
    const bad = path.join(scratch, "bad.yaml");
    fs.writeFileSync(bad, good.replace("type: SERVICE", "type: ADMIN"));
    const line = good.split("\n").findIndex((l) => l.includes("type: SERVICE")) + 1;
    const column = (good.split("\n")[line - 1] ?? "").indexOf("SERVICE") + 1;
    await target.controls!.clearRequests();
    // The preview's own `--config` sets the file (and saves it): one CLI run, no `config set` around it.
    const error = await failedPreview(["--config", `documentFile=${bad}`]);
    scan.text("failed preview", error, "cli output");
    expect(error).toContain(`${bad}:${line}:${column} accessKeys[`);
    expect(error).toContain(`].type: must be one of "ACCOUNT", "SERVICE"`);
    expect(await target.controls!.requests()).toEqual([]);
  });

  it("5. its children keep the endpoint guard: the stack pointed at another broker fails the preview", async () => {
    // The good document again, and the other broker's URL (the guard compares URLs; the key is left
    // as it is, so no secret goes into the stack's config in plain text). The stack runs no command
    // after this one: its config is not set back.
    const error = await failedPreview([
      "--config",
      `documentFile=${documentFile}`,
      "--config",
      `broker:baseUrl=${source.url}`,
    ]);
    scan.text("preview at another endpoint", error, "cli output");
    expect(error).toMatch(/lives at .*now points to/su);
    expect(error).toContain(target.url);
  });

  it("6. deployed where everything exists (the broker it was exported from), it adopts it all: nothing created twice", async () => {
    const statsBefore = await source.controls!.stats();
    const keysBefore = await allKeys(source);
    const sourceStack = await project.stack("source", {
      documentFile: { value: path.join(scratch, "exported.yaml") },
      ...emulatorConfig(source),
    });
    fs.writeFileSync(path.join(scratch, "exported.yaml"), exported);
    const up = await sourceStack.up();
    scan.text("up at the source", up.stdout + up.stderr, "cli output");
    expect(up.summary.resourceChanges).toEqual({ create: RESOURCES });
    expect(await source.controls!.stats()).toEqual(statsBefore);
    expect((await allKeys(source)).map((k) => [k["id"], k["name"], k["permissions"]])).toEqual(
      keysBefore.map((k) => [k["id"], k["name"], k["permissions"]]),
    );
    expect(up.outputs["accessKeys"]?.value).toEqual(
      Object.fromEntries(copiedKeys(keysBefore).map((k) => [String(k["name"]), Number(k["id"])])),
    );
    expect((await sourceStack.preview()).changeSummary).toEqual({ same: RESOURCES });
  });

  it("7. the YAML project's state, backups, history and CLI output go to the final scan", () => {
    scan.text("every CLI run", project.producedText(), "cli output");
    scan.project("environment-yaml", project);
    expect(scan.unread(CLI_TEST_SOURCES), "sources the scan read nothing from").toEqual([]);
  });
});

describe("after all of it", () => {
  it("no secret is in plain text in any state, backup, history, Pulumi home or CLI output", () => {
    expect(scan.size).toBeGreaterThan(0);
    expect(scan.leaks()).toEqual([]);
  });
});
