import { execFile, execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import type { Stack, UpResult } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { cliCase } from "../../harness/engine-matrix.mts";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import type { PulumiProject, StackConfig } from "../../harness/pulumi-project.mts";
import { apiOf } from "../support/emulator";
import { ordersSpec, PROGRAMS_DIR, tearDown, testProject } from "../support/projects";
import { latestDeployment, stateResources } from "../support/state";

// End-to-end through the real Pulumi CLI, offline, against the emulator: the README's steps for
// moving a stack of dynamic resources (`pulumi-broker-config`) to the native ones
// (`pulumi-broker-config/native`): stack export, `broker-config migrate-state`, stack import,
// change the program's import. Nothing may be created, re-keyed or lost, private keys included.

const spec = ordersSpec();

let emulator: EmulatorHandle;
let project: PulumiProject;
let stack: Stack;
let cli: string;

function allKeys(): Promise<Record<string, unknown>[]> {
  return apiOf(emulator).listAll("/access-key");
}

/** Every output of an `up` with its value, secrets in plaintext, and whether it is secret. */
function outputsOf(up: UpResult): Record<string, { value: unknown; secret: boolean }> {
  return Object.fromEntries(
    Object.entries(up.outputs).map(([name, o]) => [name, { value: o.value as unknown, secret: o.secret }]),
  );
}

beforeAll(async () => {
  emulator = await startEmulator();
  project = await testProject("broker-migrate", path.join(PROGRAMS_DIR, "broker"));
  cli = path.join(project.dir, "node_modules", "pulumi-broker-config", "dist", "cli", "broker-config.js");
  execFileSync(process.execPath, [cli, "plugin", "install"], {
    env: { ...process.env, PULUMI_HOME: project.homeDir },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const config: StackConfig = {
    spec: { value: JSON.stringify(spec) },
    "broker:baseUrl": { value: emulator.url },
    "broker:apiKey": { value: emulator.adminKey, secret: true },
  };
  stack = await project.stack("dev", config);
});

afterAll(() => tearDown({ emulators: [emulator], project }));

// Several CLI commands on a machine whose cores are shared: the bound is against a hang (the
// default 60 s cut the case short at load average 16 on 2 cores).
describe("migrating a stack of dynamic resources to the native ones", { timeout: 240_000 }, () => {
  it("keeps every id, key value and output (private key included); nothing is created or re-keyed", async () => {
    // 1. A stack of dynamic resources.
    const up = await stack.up();
    expect(up.summary.resourceChanges).toMatchObject({ create: 6 });
    // The outputs as the Automation API read them after the update (secrets in plaintext).
    const before = outputsOf(up);
    const keysBefore = await allKeys();
    expect(before["privateKeys"]?.secret).toBe(true);
    const privateKeys = before["privateKeys"]?.value as Record<string, string>;
    expect(privateKeys["orders-svc"]).toMatch(/\S{20}/u);
    const secrets = [
      emulator.adminKey,
      ...Object.values(before["keyValues"]?.value as Record<string, string>),
      ...Object.values(privateKeys),
    ];

    // 2. The README's steps: export (secrets stay encrypted), migrate-state, import.
    const { stdout: exported } = await project.cli(["stack", "export", "--stack", "dev"]);
    for (const secret of secrets) expect(exported).not.toContain(secret);
    const exportFile = path.join(project.dir, "..", "dynamic.json");
    const migratedFile = path.join(project.dir, "..", "native.json");
    fs.writeFileSync(exportFile, exported);
    const migrate = spawnSync(
      process.execPath,
      [cli, "migrate-state", "--in", exportFile, "--out", migratedFile],
      {
        encoding: "utf8",
      },
    );
    expect(migrate.status).toBe(0);
    expect(migrate.stderr).toContain(
      "pulumi-nodejs:dynamic/broker:ServiceKeyPair::orders-svc-pair -> urn:pulumi:dev::broker-migrate::broker:index:ServiceKeyPair::orders-svc-pair (id",
    );
    expect(migrate.stderr).toMatch(/migrated 5 resource/u);
    await project.cli(["stack", "import", "--file", migratedFile, "--stack", "dev"]);

    // The checkpoint `stack import` wrote (what `stack export` prints), read without a CLI start.
    const resources = stateResources(project, "dev");
    const types = resources.map((r) => r.type).sort();
    expect(types).toEqual([
      "broker:index:AccessKey",
      "broker:index:AccessKey",
      "broker:index:ServiceKeyPair",
      "broker:index:Workspace",
      "broker:index:Workspace",
      "pulumi:providers:broker",
      "pulumi:pulumi:Stack",
    ]);
    for (const r of resources) {
      expect(r.inputs ?? {}).not.toHaveProperty("__provider");
      expect(r.outputs ?? {}).not.toHaveProperty("__provider");
    }

    // 3. The program switches to the native classes, with the same resource names.
    fs.copyFileSync(path.join(PROGRAMS_DIR, "native", "index.js"), path.join(project.dir, "index.js"));
    // One `up` rather than a `preview --expect-no-changes` before it: a summary of `same` alone is
    // the preview's claim, and the run then reads the outputs the native provider keeps.
    const after = await stack.up();
    expect(after.summary.resourceChanges).toEqual({ same: 6 }); // the stack and 5 resources (default providers are not counted)

    // Nothing changed on the server: the same keys with the same values, and no new one.
    expect(await allKeys()).toEqual(keysBefore);
    // Every output is the same, private key included (the API could not have given it back).
    expect(outputsOf(after)).toEqual(before);
    // The native provider now serves the resources and keeps the secrets encrypted.
    const text = project.producedText();
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});

// Runs after the migration above, on the same server: its workspaces and keys are the environment.
describe("broker-config export --format import, read by pulumi import --file", () => {
  // `pulumi import --file` is a CLI command: run where the leg brings a CLI; the plugin's Read
  // without state through each SDK's stubs runs in native.test.ts.
  it(
    "imports every workspace and key of the environment by id; key values arrive as secret outputs",
    cliCase(inject("engineLayers")),
    async () => {
      const document = path.join(project.dir, "..", "import.json");
      // Asynchronously: the emulator serves from this process, which a synchronous child would block.
      await promisify(execFile)(process.execPath, [cli, "export", "--format", "import", "--out", document], {
        env: { ...process.env, BROKER_BASE_URL: emulator.url, BROKER_API_KEY: emulator.adminKey },
      });
      const wanted = (
        JSON.parse(fs.readFileSync(document, "utf8")) as {
          resources: { type: string; name: string; id: string }[];
        }
      ).resources;
      expect(wanted.map((r) => r.type).sort()).toEqual([
        // The SERVICE key: the export leaves out the ACCOUNT keys, ops-admin and the admin key (#49).
        "broker:index:AccessKey",
        ...Array<string>(2).fill("broker:index:Workspace"),
      ]);
      await project.stack("imported", {
        spec: { value: "{}" },
        "broker:baseUrl": { value: emulator.url },
        "broker:apiKey": { value: emulator.adminKey, secret: true },
      });
      await project.run([
        "import",
        "--file",
        document,
        "--generate-code=false",
        "--protect=false",
        "--yes",
        "--stack",
        "imported",
      ]);
      // The checkpoint the import wrote (what `stack export` prints), read without a CLI start.
      const imported = stateResources(project, "imported");
      const stored = JSON.stringify(latestDeployment(project, "imported"));
      for (const entry of wanted) {
        const resource = imported.find((r) => r.urn.endsWith(`::${entry.type}::${entry.name}`));
        expect(resource?.id).toBe(entry.id);
        if (entry.type === "broker:index:AccessKey")
          expect(resource?.outputs?.["accessKey"]).toHaveProperty("ciphertext");
      }
      const keys = await allKeys();
      for (const k of keys) expect(stored).not.toContain(String(k["key"]));
    },
  );
});
