import { createPrivateKey } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { allKeys, allWorkspaces, exportBroker, installBrokerPlugin } from "../../harness/broker-native.mts";
import { CliError, type PulumiProject, type StackConfig } from "../../harness/pulumi-project.mts";
import { CLI_TEST_SOURCES, SecretScan } from "../../harness/secret-scan.mts";
import type { BrokerConfigDocument } from "../../src/config-as-data";
import {
  emulatorConfig,
  ensureYamlHost,
  goSdkProject,
  NO_BROKER_ENV,
  PROGRAMS_DIR,
  pythonSdkProject,
  startExportPair,
  type StateResource,
  tearDown,
  testProject,
} from "../support/projects";
import { EXPORT_SOURCE_WORKSPACE_PATHS } from "../support/client";
import { stateResources } from "../support/state";

// Issue #36: the `broker:index:Environment` component, served by the plugin's Construct, deploys the
// document `broker-config export` wrote from one broker to a second one, from a Pulumi YAML program
// that is a single resource. The steps share one stack and run in order; the last scans everything
// the runs produced for plaintext secrets. Then the same document goes to a fresh broker from
// TypeScript (the native SDK, through an explicit provider), Python and Go, one stack each; the file
// ends with the plaintext scan of everything every run produced.

/** A step of `pulumi preview --json`. */
interface PreviewStep {
  op: string;
  urn: string;
  diffReasons?: string[];
}

/**
 * The stack, the component, 6 workspaces and createExportSource's 4 SERVICE keys: the export leaves
 * out its ACCOUNT key and the admin key it authenticates with (issue #49).
 */
const RESOURCES = 1 + 1 + 6 + 4;

/** The keys a copy holds of an export: every key but the ACCOUNT keys (the target's admin key). */
function copied(keys: Record<string, unknown>[]): Record<string, unknown>[] {
  return keys.filter((k) => k["type"] === "SERVICE");
}

let source: EmulatorHandle; // exported
let target: EmulatorHandle; // deployed to
let project: PulumiProject;
let stack: Stack;
let scratch: string;
let exported: string;
let documentFile: string;
const scan = new SecretScan();

/** Every key value `env` holds: the secrets no output of the runs may show. */
async function keyValues(env: EmulatorHandle): Promise<string[]> {
  return (await allKeys(env)).map((k) => String(k["key"]));
}

/**
 * Checks a stack's `privateKeys` output: a secret holding, for exactly the SERVICE keys among `keys`
 * (as the API lists them), a private key (PKCS #8, base64) that Node's crypto reads; each is added
 * to the secrets no output of the runs may show.
 */
function expectPrivateKeys(
  output: { value: unknown; secret: boolean } | undefined,
  keys: Record<string, unknown>[],
): void {
  expect(output?.secret).toBe(true);
  const privateKeys = output?.value as Record<string, string>;
  const service = keys.filter((k) => k["type"] === "SERVICE").map((k) => String(k["name"]));
  expect(service.length).toBeGreaterThan(0);
  expect(Object.keys(privateKeys).sort()).toEqual(service.sort());
  for (const value of Object.values(privateKeys)) {
    scan.secrets(value);
    expect(createPrivateKey({ key: Buffer.from(value, "base64"), format: "der", type: "pkcs8" }).type).toBe(
      "private",
    );
  }
}

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
    const keys = copied(await allKeys(target));
    scan.secrets(...keys.map((k) => String(k["key"])));
    expect(outputs["accessKeyValues"]).toEqual({
      value: Object.fromEntries(keys.map((k) => [String(k["name"]), String(k["key"])])),
      secret: true,
    });
    expect(outputs["accessKeys"]).toEqual({
      value: Object.fromEntries(keys.map((k) => [String(k["name"]), Number(k["id"])])),
      secret: false,
    });
    expectPrivateKeys(outputs["privateKeys"], keys);
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
      Object.fromEntries(copied(keysBefore).map((k) => [String(k["name"]), Number(k["id"])])),
    );
    expect((await sourceStack.preview()).changeSummary).toEqual({ same: RESOURCES });
  });

  it("7. the YAML project's state, backups, history and CLI output go to the final scan", () => {
    scan.text("every CLI run", project.producedText(), "cli output");
    scan.project("environment-yaml", project);
    expect(scan.unread(CLI_TEST_SOURCES), "sources the scan read nothing from").toEqual([]);
  });
});

/** A program of one Environment in another language, deploying the exported document. */
interface Language {
  readonly language: string;
  /** Its directory under test/programs. */
  readonly program: string;
  /** The resources of its stack. */
  readonly resources: number;
  /** Its stack config: the document's file, and where the broker is. */
  readonly config: (target: EmulatorHandle, documentFile: string) => StackConfig;
  /** The project, ready to run: its language's SDK installed as users install it. */
  readonly project: (dir: string, scratch: string) => Promise<PulumiProject>;
  /** What else the language's step checks in the state. */
  readonly checkState?: (resources: StateResource[]) => void;
}

const LANGUAGES: readonly Language[] = [
  {
    language: "typescript",
    program: "environment-ts",
    // An explicit provider besides the stack, the component and its 10 children.
    resources: RESOURCES + 1,
    // No broker:* settings: only the explicit provider knows the broker, so a child the default
    // provider managed would fail.
    config: (target, documentFile) => ({
      documentFile: { value: documentFile },
      targetUrl: { value: target.url },
      targetKey: { value: target.adminKey, secret: true },
    }),
    project: (dir) => testProject("environment-typescript", dir, NO_BROKER_ENV),
    checkState: (resources) => {
      const children = resources.filter(
        (r) => r.type === "broker:index:AccessKey" || r.type === "broker:index:Workspace",
      );
      expect(children).toHaveLength(10);
      for (const child of children) expect(child.provider).toMatch(/::pulumi:providers:broker::target::/u);
    },
  },
  {
    language: "python",
    program: "environment-python",
    resources: RESOURCES,
    config: (target, documentFile) => ({ documentFile: { value: documentFile }, ...emulatorConfig(target) }),
    project: (dir, scratch) => pythonSdkProject("environment-python", dir, scratch),
  },
  {
    language: "go",
    program: "environment-go",
    resources: RESOURCES,
    config: (target, documentFile) => ({ documentFile: { value: documentFile }, ...emulatorConfig(target) }),
    project: (dir) => {
      // The module files of the Go quickstart program, whose dependencies are the same.
      for (const file of ["go.mod", "go.sum"])
        fs.copyFileSync(path.join(PROGRAMS_DIR, "go-native", file), path.join(dir, file));
      return goSdkProject("environment-go", dir);
    },
  },
];

describe.each(LANGUAGES)("a $language program of one Environment, through the Pulumi CLI", (language) => {
  let copyTarget: EmulatorHandle;
  let languageProject: PulumiProject;
  let programDir: string;

  beforeAll(async () => {
    copyTarget = await startEmulator({ controls: true });
    scan.secrets(copyTarget.adminKey);
    // A copy of the program, so that the Go module files copied in stay out of the checkout.
    programDir = path.join(scratch, language.program);
    fs.cpSync(path.join(PROGRAMS_DIR, language.program), programDir, { recursive: true });
    languageProject = await language.project(programDir, scratch);
    installBrokerPlugin(languageProject);
  }, 600_000);

  afterAll(async () => {
    await copyTarget.close();
    languageProject.remove();
  });

  // A Go program's first run on a machine compiles it and the Pulumi Go SDK: minutes, not seconds.
  it("deploys the exported document to a second broker: the same tree, keys and permissions; then no changes", async () => {
    const file = path.join(scratch, `${language.language}.yaml`);
    fs.writeFileSync(file, exported);
    const languageStack = await languageProject.stack("dev", language.config(copyTarget, file));
    const up = await languageStack.up();
    scan.text(`${language.language} up`, up.stdout + up.stderr, "cli output");
    expect(up.summary.resourceChanges).toEqual({ create: language.resources });
    expect(
      await exportBroker(
        languageProject.dir,
        copyTarget,
        path.join(scratch, `${language.language}-copy.yaml`),
      ),
    ).toBe(exported);
    const keys = copied(await allKeys(copyTarget));
    scan.secrets(...keys.map((k) => String(k["key"])));
    const outputs = up.outputs;
    expect(outputs["accessKeyValues"]).toEqual({
      value: Object.fromEntries(keys.map((k) => [String(k["name"]), String(k["key"])])),
      secret: true,
    });
    expect(Object.keys(outputs["workspaces"]?.value as object)).toHaveLength(6);
    expectPrivateKeys(outputs["privateKeys"], keys);
    if (language.checkState !== undefined) language.checkState(stateResources(languageProject, "dev"));
    expect((await languageStack.preview()).changeSummary).toEqual({ same: language.resources });
    scan.text(`${language.language}: every CLI run`, languageProject.producedText(), "cli output");
    scan.project(`environment-${language.language}`, languageProject);
  }, 600_000);
});

describe("after all of it", () => {
  it("no secret is in plain text in any state, backup, history, Pulumi home or CLI output", () => {
    expect(scan.size).toBeGreaterThan(0);
    expect(scan.leaks()).toEqual([]);
  });
});
