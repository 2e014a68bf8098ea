import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import {
  allKeys,
  brokerConfigCli,
  installBrokerPlugin,
  NO_PERMISSIONS,
} from "../../harness/broker-native.mts";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import type { BrokerConfigDocument } from "../../src/config-as-data";
import type { AccessReview } from "../../src/review/report";
import { createExportSource } from "../support/client";
import { stateResources } from "../support/state";
import { BrokerClient } from "../../src/client";
import {
  emulatorConfig,
  ensureYamlHost,
  NO_BROKER_ENV,
  PROGRAMS_DIR,
  tearDown,
  testProject,
} from "../support/projects";

// Issue #49: copying an environment never hands out or revokes an admin key. Two emulators whose
// admin keys share a name (as fresh installations do): A is exported, B is deployed to, through the
// real CLI, with a YAML `Environment` (native plugin), the dynamic `BrokerConfig`, and a YAML
// `Environment` under an explicit provider whose key is another. The steps share the brokers and
// run in order; each stack is created once. Each step runs a few real CLI commands (seconds each,
// more on a busy machine): STEP_TIMEOUT_MS bounds them.

/** The time one step's CLI runs may take, with every core busy. */
const STEP_TIMEOUT_MS = 300_000;

let source: EmulatorHandle; // "A": exported
let target: EmulatorHandle; // "B": deployed to
let yaml: PulumiProject;
let scratch: string;
/** The default export of A, and its summary on stderr. */
let exported: { text: string; stderr: string };
/** A document as an export from before this change wrote it: A's admin key and ACCOUNT key in it. */
let olderExport: BrokerConfigDocument;

/** Runs `broker-config export` of the installed package against `env`. */
async function exportOf(env: EmulatorHandle, ...flags: string[]): Promise<{ text: string; stderr: string }> {
  const file = path.join(scratch, `export-${flags.join("") || "default"}.yaml`);
  const { stderr } = await promisify(execFile)(
    process.execPath,
    [brokerConfigCli(yaml), "export", "--base-url", env.url, "--out", file, ...flags],
    { env: { PATH: process.env["PATH"], BROKER_API_KEY: env.adminKey } },
  );
  return { text: fs.readFileSync(file, "utf8"), stderr };
}

/** Writes `document` into the scratch directory as YAML and returns the file. */
function documentFile(name: string, document: BrokerConfigDocument): string {
  const file = path.join(scratch, name);
  fs.writeFileSync(file, stringify(document));
  return file;
}

/** B's key named `name`, as the API lists it. */
async function keyOfB(name: string): Promise<Record<string, unknown>> {
  const key = (await allKeys(target)).find((k) => k["name"] === name);
  if (key === undefined) throw new Error(`B has no key named ${name}`);
  return key;
}

/** Whether `apiKey` still works against B's configuration API: a listing with it succeeds. */
async function works(apiKey: string): Promise<boolean> {
  const client = new BrokerClient({ baseUrl: target.url, apiKey, maxRetries: 0 });
  try {
    await client.accessKeys()[Symbol.asyncIterator]().next();
    return true;
  } catch {
    return false;
  } finally {
    await client.close();
  }
}

/** The error a Pulumi command fails with, as text (fails the test when it succeeds). */
async function failureOf(run: Promise<unknown>): Promise<string> {
  const outcome = await run.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (outcome === undefined) throw new Error("expected the command to fail");
  return outcome instanceof Error ? outcome.message : JSON.stringify(outcome);
}

/**
 * The lines of `output` (a CLI run's) that hold the value of any of B's keys. The only ones expected
 * are the Node.js SDK's own debug log of a RegisterResource answer, which `pulumi up --json` prints
 * (docs/resources.md, "Secrets"): the test pins that, so a change either way is seen.
 */
async function linesWithKeyValues(output: string): Promise<string[]> {
  const values = (await allKeys(target)).map((k) => String(k["key"]));
  return output.split("\n").filter((line) => values.some((value) => line.includes(value)));
}

/** Where `pulumi up --json` of a Node.js program prints key values: the SDK's debug line. */
const SDK_REGISTER_DEBUG_LINE = /RegisterResource RPC finished: .*; err: null, resp: urn:/u;

/** The access review (`broker-config review --format json`) of a preview's JSON text. */
async function reviewOf(previewJson: string): Promise<AccessReview> {
  const file = path.join(scratch, `preview-${Date.now()}.json`);
  fs.writeFileSync(file, previewJson);
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [brokerConfigCli(yaml), "review", file, "--format", "json"],
    { env: { PATH: process.env["PATH"] } },
  );
  return JSON.parse(stdout) as AccessReview;
}

/** `document` with `onDelete: revoke` at its top: the opt-in to revoke adopted keys too on destroy. */
function revokingAdopted(document: BrokerConfigDocument): BrokerConfigDocument {
  return { ...document, onDelete: "revoke" };
}

/**
 * `pulumi up` or `pulumi destroy` of `stack`, which must succeed (the CLI exits 0), as one CLI run:
 * the Automation API's `up` runs three more (`stack output` twice, `stack history`) that these steps
 * do not read.
 */
async function succeeds(
  project: PulumiProject,
  command: "up" | "destroy",
  stack: string,
  extra: readonly string[] = [],
): Promise<void> {
  await project.run([command, "--yes", "--skip-preview", "--stack", stack, ...extra]);
}

/**
 * The flag that sets the stack config `key` to `file` for one `up` and saves it, as `config set`
 * would: one CLI run instead of two.
 */
function documentConfig(key: string, file: string): string[] {
  return ["--config", `${key}=${file}`];
}

/** The names of B's ACCOUNT keys. */
async function accountKeysOfB(): Promise<string[]> {
  return (await allKeys(target))
    .filter((k) => k["type"] === "ACCOUNT")
    .map((k) => String(k["name"]))
    .sort();
}

beforeAll(async () => {
  source = await startEmulator({ controls: true });
  target = await startEmulator({ controls: true });
  const client = new BrokerClient({ baseUrl: source.url, apiKey: source.adminKey });
  try {
    // Its keys, "ops-admin" (ACCOUNT) among them, beside A's own admin key.
    await createExportSource(client);
  } finally {
    await client.close();
  }
  ensureYamlHost();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-account-keys-e2e-"));
  yaml = await testProject("account-keys-yaml", path.join(PROGRAMS_DIR, "environment-yaml"), NO_BROKER_ENV);
  installBrokerPlugin(yaml);
  exported = await exportOf(source);
  const withAccountKeys = parse(
    (await exportOf(source, "--include-account-keys")).text,
  ) as BrokerConfigDocument;
  olderExport = {
    ...withAccountKeys,
    accessKeys: [...(withAccountKeys.accessKeys ?? []), { name: "admin", type: "ACCOUNT" }],
  };
}, 300_000);

afterAll(() => tearDown({ emulators: [source, target], project: yaml, scratch: [scratch] }));

describe("copying an environment never hands out or revokes an admin key", () => {
  it(
    "1. the export leaves out ACCOUNT keys and the key it authenticates with, and says why on stderr",
    async () => {
      // Both admin keys share the name the scenario is about.
      expect((await keyOfB("admin"))["type"]).toBe("ACCOUNT");
      const document = parse(exported.text) as BrokerConfigDocument;
      expect(document.accessKeys?.map((k) => k.type)).not.toContain("ACCOUNT");
      expect(document.allowAccountKeys).toBeUndefined();
      expect(exported.stderr).toMatch(
        /left out access key "admin" \(id \d+\): it is the key this export authenticates with/u,
      );
      expect(exported.stderr).toContain('left out 1 ACCOUNT key(s) ("ops-admin")');
      expect(exported.stderr).toContain("pass --include-account-keys");
      expect(exported.text).toContain(
        "Environment component (native `broker` plugin: YAML, Python, Go, TypeScript)",
      );
      // With --include-account-keys: the other ACCOUNT key, allowed; never the export's own.
      expect(olderExport.allowAccountKeys).toBe(true);
      expect(olderExport.accessKeys?.filter((k) => k.type === "ACCOUNT").map((k) => k.name)).toEqual([
        "ops-admin",
        "admin", // added by this test, as an older export wrote it
      ]);
      for (const key of await allKeys(source)) expect(exported.text).not.toContain(String(key["key"]));
    },
    STEP_TIMEOUT_MS,
  );

  it(
    "2. YAML Environment: deploying the export to B and destroying it leaves B's admin key untouched and working, and makes no ACCOUNT key",
    async () => {
      const adminBefore = await keyOfB("admin");
      const stack = await yaml.stack("copy", {
        documentFile: { value: documentFile("copy.yaml", parse(exported.text) as BrokerConfigDocument) },
        ...emulatorConfig(target),
      });
      await succeeds(yaml, "up", stack.name);
      expect(await accountKeysOfB()).toEqual(["admin"]);
      await succeeds(yaml, "destroy", stack.name);
      expect(await keyOfB("admin")).toEqual(adminBefore);
      expect(await works(target.adminKey)).toBe(true);
      expect(await accountKeysOfB()).toEqual(["admin"]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    "3. YAML Environment: an older export's ACCOUNT keys fail the preview before any request; allowed, `up --json` prints no key value, the destroy preview's review leaves adopted keys as found; opted in to revoke, destroy cannot revoke the provider's own key",
    async () => {
      const { allowAccountKeys: _allowed, ...notAllowed } = olderExport;
      const stack = await yaml.stack("older", {
        documentFile: { value: documentFile("older.yaml", notAllowed) },
        ...emulatorConfig(target),
      });
      await target.controls!.clearRequests();
      const refused = await failureOf(stack.preview());
      expect(refused).toMatch(
        /older\.yaml:\d+:\d+ accessKeys\[\d+\]\.type: access key "admin" is an ACCOUNT key, .*`allowAccountKeys: true`/u,
      );
      expect(refused).toMatch(/access key "ops-admin" is an ACCOUNT key/u);
      expect(await target.controls!.requests()).toEqual([]);

      const adminBefore = await keyOfB("admin");
      // `up --json` through the native door: the Environment's children are registered by the plugin's
      // Construct with the Node.js SDK, whose debug lines echo their outputs; the plugin keeps those
      // lines from the engine, so no line holds a key value. Its own `--config` sets the document.
      const up = await yaml.cli([
        "up",
        "--stack",
        "older",
        "--yes",
        "--json",
        ...documentConfig("documentFile", documentFile("older-allowed.yaml", olderExport)),
      ]);
      // Only the start of a leaking line in the failure report: the rest would print the value.
      expect((await linesWithKeyValues(up.stdout + up.stderr)).map((line) => line.slice(0, 60))).toEqual([]);
      expect(up.stdout).toMatch(
        /Adopted access key \\"admin\\" \(id \d+\): it existed before this stack, so a destroy or replacement will leave it as it was found/u,
      );
      expect(await accountKeysOfB()).toEqual(["admin", "ops-admin"]);

      // The destroy preview, read by the access review: the adopted admin key is retained, the
      // created "ops-admin" revoked (the engine asks no provider before a destroy: the review reads
      // what the state recorded).
      const destroyPreview = await yaml.cli(["destroy", "--stack", "older", "--preview-only", "--json"]);
      const planned = (await reviewOf(destroyPreview.stdout)).planned;
      const kinds = Object.fromEntries(planned.keys.map((k) => [k.name, k.kind]));
      expect(kinds).toMatchObject({ admin: "retained", "ops-admin": "revoked" });

      // Opted in to revoke adopted keys: the update records it, and destroy refuses the own key.
      await succeeds(
        yaml,
        "up",
        "older",
        documentConfig("documentFile", documentFile("older-revoking.yaml", revokingAdopted(olderExport))),
      );
      const failed = await failureOf(stack.destroy());
      expect(failed).toMatch(
        /Refusing to revoke: access key "admin" \(id \d+\) is the key this provider authenticates with \(broker:apiKey/u,
      );
      expect(failed).not.toContain(target.adminKey);
      expect(await keyOfB("admin")).toEqual(adminBefore);
      expect(await works(target.adminKey)).toBe(true);
      // The other ACCOUNT key was revoked as any key is; the own key stays in the stack.
      expect((await keyOfB("ops-admin"))["permissions"]).toEqual(NO_PERMISSIONS);
      // Read from the checkpoint `pulumi stack export` would print (one CLI start fewer: issue #50).
      expect(
        stateResources(yaml, "older")
          .map((r) => r.urn)
          .filter((urn) => urn.endsWith("access-key:admin")),
      ).toHaveLength(1);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    "4. dynamic BrokerConfig: the same refusals",
    async () => {
      const dynamicProject = await testProject(
        "account-keys-dynamic",
        path.join(__dirname, "programs", "config-as-data"),
        NO_BROKER_ENV,
      );
      try {
        const { allowAccountKeys: _allowed, ...notAllowed } = olderExport;
        const stack = await dynamicProject.stack("older", {
          file: { value: documentFile("dynamic-older.yaml", notAllowed) },
          ...emulatorConfig(target),
        });
        await target.controls!.clearRequests();
        expect(await failureOf(stack.preview())).toMatch(
          /dynamic-older\.yaml:\d+:\d+ accessKeys\[\d+\]\.type: access key "admin" is an ACCOUNT key/u,
        );
        expect(await target.controls!.requests()).toEqual([]);

        const adminBefore = await keyOfB("admin");
        // `up --json` of a Node.js program prints key values, only in the SDK's own debug line.
        const up = await dynamicProject.cli([
          "up",
          "--stack",
          "older",
          "--yes",
          "--json",
          ...documentConfig("file", documentFile("dynamic-allowed.yaml", revokingAdopted(olderExport))),
        ]);
        const leaked = await linesWithKeyValues(up.stdout + up.stderr);
        expect(leaked.length).toBeGreaterThan(0);
        for (const line of leaked) expect(line).toMatch(SDK_REGISTER_DEBUG_LINE);
        expect(await failureOf(stack.destroy())).toMatch(
          /Refusing to revoke: access key "admin" \(id \d+\) is the key this provider authenticates with/u,
        );
        expect(await keyOfB("admin")).toEqual(adminBefore);
        expect(await works(target.adminKey)).toBe(true);
      } finally {
        dynamicProject.remove();
      }
    },
    STEP_TIMEOUT_MS,
  );

  it(
    "5. an explicit provider whose key is another: destroy cannot revoke that provider's key",
    async () => {
      const opsAdmin = String((await keyOfB("ops-admin"))["key"]);
      const programDir = path.join(scratch, "explicit");
      fs.mkdirSync(programDir);
      fs.writeFileSync(
        path.join(programDir, "Pulumi.yaml"),
        stringify({
          name: "account-keys-explicit",
          runtime: "yaml",
          config: {
            documentFile: { type: "string" },
            targetUrl: { type: "string" },
            targetKey: { type: "string" },
          },
          resources: {
            target: {
              type: "pulumi:providers:broker",
              properties: { baseUrl: "${targetUrl}", apiKey: "${targetKey}" },
            },
            environment: {
              type: "broker:index:Environment",
              properties: {
                document: { "fn::readFile": "${documentFile}" },
                documentName: "${documentFile}",
              },
              options: { providers: ["${target}"] },
            },
          },
        }),
      );
      const explicit = await testProject("account-keys-explicit", programDir, NO_BROKER_ENV);
      try {
        installBrokerPlugin(explicit);
        const stack = await explicit.stack("explicit", {
          // Opted in to revoke the adopted "ops-admin" (the provider's key) only: B's admin stays as found.
          documentFile: {
            value: documentFile("explicit.yaml", {
              ...olderExport,
              accessKeys: (olderExport.accessKeys ?? []).map((key) =>
                key.name === "ops-admin" ? { ...key, onDelete: "revoke" as const } : key,
              ),
            }),
          },
          targetUrl: { value: target.url },
          targetKey: { value: opsAdmin, secret: true },
        });
        await succeeds(explicit, "up", stack.name);
        const opsBefore = await keyOfB("ops-admin");
        const failed = await failureOf(stack.destroy());
        expect(failed).toMatch(
          /Refusing to revoke: access key "ops-admin" \(id \d+\) is the key this provider authenticates with/u,
        );
        expect(failed).not.toContain(opsAdmin);
        expect(await keyOfB("ops-admin")).toEqual(opsBefore);
        expect(await works(opsAdmin)).toBe(true);
      } finally {
        explicit.remove();
      }
    },
    STEP_TIMEOUT_MS,
  );
});
