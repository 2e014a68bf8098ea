import * as fs from "node:fs";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import { NO_BROKER_ENV, PROGRAMS_DIR, type StateResource, tearDown, testProject } from "../support/projects";
import { listKeys } from "../reliability/support/broker-api";
import { CLI_TEST_SOURCES, errorText, SecretScan } from "../../harness/secret-scan.mts";
import { brokerConfig, specConfig, type Spec } from "../reliability/support/spec";

// What the "Secrets" section (docs/resources.md) promises, proved through the real CLI where it is most at
// risk: a key created but not read back (its value and private key travel in the error's
// `properties`), a key value passed as a plain input, and what users paste into bug reports
// (verbose logs, `pulumi stack export`).

const programDir = path.join(PROGRAMS_DIR, "broker");
const ACCESS_KEY = "pulumi-nodejs:dynamic/broker:AccessKey";
const PAIR = "pulumi-nodejs:dynamic/broker:ServiceKeyPair";
/** How `pulumi stack export` (without `--show-secrets`) writes a secret: this signature and a ciphertext. */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

let emulator: EmulatorHandle;
let project: PulumiProject;
let stack: Stack;
/** Everything the stack's commands printed at the default verbosity, and every file they left. */
const scan = new SecretScan();
/** The credentials the test learned (from the emulator and `stack export --show-secrets`). */
const credentials: Record<string, string> = {};

const partialKey: Spec["keys"][number] = {
  name: "partial",
  type: "SERVICE",
  permissions: { send: ["orders/created"], receive: [] },
};
const freshKey: Spec["keys"][number] = {
  name: "fresh",
  type: "SERVICE",
  permissions: { send: [], receive: ["orders/*"] },
};

function resources(deployment: unknown): StateResource[] {
  return (deployment as { resources?: StateResource[] }).resources ?? [];
}

function resource(deployment: unknown, type: string, name: string): StateResource {
  const found = resources(deployment).find((r) => r.type === type && r.urn.endsWith(`::${name}`));
  if (found === undefined) throw new Error(`no ${type} named ${name} in the state`);
  return found;
}

function isEncrypted(value: unknown): boolean {
  const secret = value as Record<string, unknown> | undefined;
  return (
    typeof secret?.["ciphertext"] === "string" && secret[SECRET_SIG] === "1b47061264138c4ac30d75fd1eb44270"
  );
}

/**
 * A value of `stack export --show-secrets`: a secret shows as the signature and its `plaintext` (JSON
 * text), anything else as it is.
 */
function revealed(value: unknown): unknown {
  const secret = value as Record<string, unknown> | undefined;
  if (secret?.[SECRET_SIG] === undefined || typeof secret["plaintext"] !== "string") return value;
  return JSON.parse(secret["plaintext"]) as unknown;
}

/** `pulumi stack export` as a user runs it to attach to a bug report: without `--show-secrets`. */
async function plainExport(): Promise<{ text: string; deployment: unknown }> {
  const { stdout } = await project.cli(["stack", "export", "--stack", "dev"]);
  return { text: stdout, deployment: (JSON.parse(stdout) as { deployment: unknown }).deployment };
}

/** Which of the learned credentials `text` holds, by name (never the values). */
function credentialsIn(text: string): string[] {
  return Object.entries(credentials)
    .filter(([, value]) => text.includes(value))
    .map(([name]) => name)
    .sort();
}

beforeAll(async () => {
  emulator = await startEmulator({ controls: true });
  credentials["admin API key"] = emulator.adminKey;
  scan.secrets(emulator.adminKey);
  project = await testProject("secrets-e2e", programDir, NO_BROKER_ENV);
  // One retry: the read-back fails beyond all of them quickly.
  stack = await project.stack("dev", {
    ...specConfig({ workspaces: [], keys: [partialKey], pairs: [] }),
    ...brokerConfig(emulator, 1),
  });
});

afterAll(() => tearDown({ emulators: [emulator], project }));

describe("a key created but not read back", () => {
  it("is kept in the state with its value and private key encrypted, and neither is printed", async () => {
    // Every read-back fails, beyond all retries; the create itself succeeds.
    await emulator.controls!.injectFault({
      kind: "503",
      routes: ["GET /access-key/{accessKey}/permissions"],
    });
    await emulator.controls!.clearRequests();
    const failure = await stack.up().catch((error: unknown) => error);
    const log = await emulator.controls!.requests();
    await emulator.controls!.clearFaults();
    expect(failure).toBeInstanceOf(Error);
    const output = errorText(failure);
    scan.text("failed up", output, "cli output");
    expect(output).toMatch(/Access key "partial" was created \(id \d+\) but a later step failed/u);
    expect(log.filter((r) => r.route === "POST /access-key").map((r) => r.status)).toEqual([201]);
    expect(
      log.filter((r) => r.route === "GET /access-key/{accessKey}/permissions").map((r) => r.fault),
      "the read-back failed on every attempt (the first and one retry)",
    ).toEqual(["503", "503"]);

    // The plaintext values, learned from the broker and from an export with --show-secrets.
    const onBroker = (await listKeys(emulator)).filter((k) => k.name === "partial");
    expect(onBroker).toHaveLength(1);
    credentials["partial key value"] = onBroker[0]!.key;
    const shown = resource((await stack.exportStack()).deployment, ACCESS_KEY, "partial");
    expect(shown.initErrors?.join("\n")).toMatch(/was created/u);
    expect(shown.id).toBe(String(onBroker[0]!.id));
    // Compared as booleans: a failure must not print a credential.
    expect(
      revealed(shown.outputs?.["accessKey"]) === onBroker[0]!.key,
      "the state holds the key's value",
    ).toBe(true);
    const privateKey = String(revealed(shown.outputs?.["privateKey"]));
    expect(/^MC4CAQAwBQYDK2VuBCIEI/u.test(privateKey), "the state holds the key's private key").toBe(true);
    credentials["partial private key"] = privateKey;
    scan.secrets(...Object.values(credentials));

    const exported = await plainExport();
    scan.text("stack export", exported.text, "cli output");
    const kept = resource(exported.deployment, ACCESS_KEY, "partial");
    expect(isEncrypted(kept.outputs?.["accessKey"]), "accessKey is encrypted in the state").toBe(true);
    expect(isEncrypted(kept.outputs?.["privateKey"]), "privateKey is encrypted in the state").toBe(true);
    expect(credentialsIn(exported.text)).toEqual([]);
    expect(credentialsIn(output)).toEqual([]);
    // The state file, its backups and history as they are right after the failure.
    expect(credentialsIn(fs.readFileSync(project.stateFile("dev"), "utf8"))).toEqual([]);
    const now = new SecretScan();
    now.secrets(...Object.values(credentials));
    now.project("after the failed up", project);
    now.text("failed up", output, "cli output");
    expect(now.unread(CLI_TEST_SOURCES), "sources the scan read nothing from").toEqual([]);
    expect(now.leaks()).toEqual([]);
  }, 120_000);
});

describe("the next up, with everything users turn on for a bug report", () => {
  const grpcLog = (): string => path.join(path.dirname(project.dir), "grpc.log");
  let verbose: { stdout: string; stderr: string };

  it("finishes the kept key: the same key on the broker, its permissions set, nothing duplicated", async () => {
    await stack.setAllConfig(
      specConfig({ workspaces: [], keys: [partialKey, freshKey], pairs: [{ key: "fresh" }] }),
    );
    stack.workspace.envVars["PULUMI_DEBUG_GRPC"] = grpcLog();
    try {
      const up = await stack.up({ logToStdErr: true, logVerbosity: 9, debug: true });
      verbose = { stdout: up.stdout, stderr: up.stderr };
      expect(up.summary.resourceChanges).toEqual({ update: 1, create: 2, same: 1 });
    } finally {
      delete stack.workspace.envVars["PULUMI_DEBUG_GRPC"];
    }
    const keys = await listKeys(emulator);
    const partial = keys.filter((k) => k.name === "partial");
    expect(partial).toHaveLength(1);
    expect(partial[0]!.permissions).toMatchObject({ send: ["orders/created"], receive: [] });
    const fresh = keys.find((k) => k.name === "fresh");
    credentials["fresh key value"] = fresh!.key;
    const deployment: unknown = (await stack.exportStack()).deployment;
    const finished = resource(deployment, ACCESS_KEY, "partial");
    expect(finished.initErrors ?? []).toEqual([]);
    expect(finished.id).toBe(String(partial[0]!.id));
    expect(finished.outputs?.["createdAt"]).toMatch(/^\d{4}-/u);
    expect(revealed(finished.outputs?.["accessKey"]) === partial[0]!.key, "the same key value").toBe(true);
    credentials["fresh private key (at creation)"] = String(
      revealed(resource(deployment, ACCESS_KEY, "fresh").outputs?.["privateKey"]),
    );
    credentials["fresh private key (rotated)"] = String(
      revealed(resource(deployment, PAIR, "fresh-pair").outputs?.["privateKey"]),
    );
    scan.secrets(...Object.values(credentials));
  }, 120_000);

  // Measured with CLI 3.259: the engine logs provider requests and responses at -v=9 and in the
  // PULUMI_DEBUG_GRPC file, and a dynamic provider takes and returns secrets as plain values (its host
  // accepts no secrets), so those logs hold every credential, the stack's API key included. `--debug`
  // prints the Node.js SDK's resource registrations, which hold the generated keys but not the config.
  // The "Secrets" section (docs/resources.md) says exactly this; these assertions keep it true.
  it("--debug prints generated key values and private keys, but not the API key", () => {
    expect(credentialsIn(verbose.stdout)).toEqual(
      Object.keys(credentials)
        .filter((name) => name !== "admin API key")
        .sort(),
    );
  });

  it("-v=9 logs and the PULUMI_DEBUG_GRPC file hold every credential, the API key included", () => {
    const all = Object.keys(credentials).sort();
    expect(credentialsIn(verbose.stderr)).toEqual(all);
    expect(credentialsIn(fs.readFileSync(grpcLog(), "utf8"))).toEqual(all);
  });

  it("the default output and `pulumi stack export` hold none: what the README promises", async () => {
    const exported = await plainExport();
    scan.text("stack export after the finishing up", exported.text, "cli output");
    expect(credentialsIn(exported.text)).toEqual([]);
    scan.project("project", project);
    expect(scan.unread(CLI_TEST_SOURCES), "sources the scan read nothing from").toEqual([]);
    expect(scan.leaks()).toEqual([]);
  }, 120_000);
});

describe("a key value passed as a plain input", () => {
  it("is not stored in plain text: ServiceKeyPair keeps `pulumi.unsecret(key.accessKey)` secret", async () => {
    await stack.setAllConfig(
      specConfig({
        workspaces: [],
        keys: [partialKey, freshKey],
        pairs: [{ key: "fresh" }, { key: "partial", plainAccessKey: true }],
      }),
    );
    const up = await stack.up();
    expect(up.summary.resourceChanges).toMatchObject({ create: 1 });
    const deployment: unknown = (await stack.exportStack()).deployment;
    const pair = resource(deployment, PAIR, "partial-pair");
    credentials["partial private key (rotated)"] = String(revealed(pair.outputs?.["privateKey"]));
    const exported = await plainExport();
    const stored = resource(exported.deployment, PAIR, "partial-pair");
    expect(isEncrypted(stored.inputs?.["accessKey"]), "the input accessKey is encrypted").toBe(true);
    const state = new SecretScan();
    state.secrets(...Object.values(credentials));
    state.project("project", project);
    state.text("up", up.stdout + up.stderr, "cli output");
    state.text("stack export", exported.text, "cli output");
    expect(state.unread(CLI_TEST_SOURCES), "sources the scan read nothing from").toEqual([]);
    expect(state.leaks()).toEqual([]);
  }, 120_000);
});
