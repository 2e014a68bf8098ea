import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { coreCase } from "../../harness/engine-matrix.mts";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import * as broker from "../../harness/broker-native.mts";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import { programsVenv, sdkVirtualenv } from "../../harness/python-sdk.mts";
import { CLI_TEST_SOURCES, SecretScan } from "../../harness/secret-scan.mts";
import { emulatorConfig, numberOutput, testProject, venvPath } from "../support/projects";
import { expectSecretHolding, exportedKeyOutputs } from "../support/state";

// End-to-end through the real Pulumi CLI, offline, against the emulator: the README's Python
// quickstart (test/programs/python-native), written with the generated Python SDK `pulumi_broker`
// (sdk/python, installed with pip as users install it) and run by the `broker` plugin that
// `broker-config plugin install` put into the project's Pulumi home (issue #13). The steps share one
// stack and run in order; CLI runs are kept few (each costs seconds). The engine matrix runs this
// file again with the newest CLI; what that leg runs of it is in docs/offline-engine.md.

const programDir = path.join(__dirname, "..", "programs", "python-native");

let emulator: EmulatorHandle;
let project: PulumiProject;
let stack: Stack;
let venvRoot: string;
/** The outputs after the first `up`: the ids in them stay the same through the file (the tests check it). */
let out: Awaited<ReturnType<Stack["outputs"]>>;
/** The id of the key `pulumi import` took over; `undefined` in a leg that does not run the import. */
let importedId: number | undefined;
const scan = new SecretScan();

beforeAll(async () => {
  emulator = await startEmulator({ controls: true });
  scan.secrets(emulator.adminKey);
  venvRoot = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-python-sdk-"));
  // The host goes beside this project's CLI (the engine matrix runs this file with more than one).
  const venv = sdkVirtualenv(programsVenv(inject("pulumiVersion")), venvRoot);
  // The Python language host runs the first `python` on PATH: this test's venv.
  project = await testProject("broker-python", programDir, { PATH: venvPath(venv) });
  broker.installBrokerPlugin(project);
}, 300_000);

afterAll(async () => {
  await emulator.close();
  project.remove();
  fs.rmSync(venvRoot, { recursive: true, force: true });
});

// A step runs several CLI commands on a machine whose cores are shared: the bound is against a hang.
describe("the Python quickstart with the generated SDK, through the Pulumi CLI", { timeout: 240_000 }, () => {
  it("previews a new stack with no credentials, listing the creates, without a request", async () => {
    stack = await project.stack("dev");
    await emulator.controls!.clearRequests();
    const preview = await stack.preview();
    expect(preview.changeSummary).toEqual({ create: 6 }); // the stack, 2 workspaces, 2 keys, a pair
    expect(await emulator.controls!.requests()).toEqual([]);
  });

  it("up creates the workspace tree, both keys with their permissions and the pair; secrets stay secret", async () => {
    await stack.setAllConfig(emulatorConfig(emulator));
    const up = await stack.up();
    scan.text("up", up.stdout + up.stderr, "cli output");
    expect(up.summary.resourceChanges).toEqual({ create: 6 });

    out = up.outputs; // `up` read them
    const workspaces = await broker.allWorkspaces(emulator);
    expect(workspaces.find((w) => w["name"] === "platform")?.["id"]).toBe(numberOutput(out, "platformId"));
    expect(workspaces.find((w) => w["name"] === "orders")).toMatchObject({
      id: numberOutput(out, "ordersId"),
      parentId: numberOutput(out, "platformId"),
    });
    expect(out["ordersPath"]?.value).toBe("/platform/orders");

    const keys = await broker.allKeys(emulator);
    const service = broker.keyById(keys, numberOutput(out, "ordersServiceId"));
    const account = broker.keyById(keys, numberOutput(out, "opsAdminId"));
    expect(service).toMatchObject({
      name: "orders-service",
      type: "SERVICE",
      permissions: { send: ["orders/created"], receive: ["payments/*"], resources: {} },
    });
    expect(account).toMatchObject({
      name: "ops-admin",
      type: "ACCOUNT",
      permissions: { send: [], receive: ["audit/*"], resources: {} },
    });

    // Secret outputs, holding the values the server has; the pair's public key is plain.
    for (const name of ["ordersKey", "opsAdminKey", "ordersPrivateKey"]) expect(out[name]?.secret).toBe(true);
    expect(out["ordersKey"]?.value).toBe(service?.["key"]);
    expect(out["opsAdminKey"]?.value).toBe(account?.["key"]);
    expect(out["ordersPublicKey"]?.secret).toBe(false);
    expect(out["ordersPublicKey"]?.value).toMatch(/\S{20}/u);
    expect(out["ordersPrivateKey"]?.value).toMatch(/\S{20}/u);
    scan.secrets(String(service?.["key"]), String(account?.["key"]), String(out["ordersPrivateKey"]?.value));
    scan.project("python stack", project);
    expect(scan.leaks()).toEqual([]);
  });

  // The preview of this change on the plugin (an update, not a replacement) is test/e2e/native.test.ts's;
  // the Python SDK takes no part in it beyond registering the same resources, which `up` shows. The
  // main leg's alone: another CLI changes the engine's Diff and Update calls to the plugin, which
  // native.test.ts's step c runs in that leg; the Python host and SDK are the same in every leg.
  it(
    "a permissions change is an update of that key and up applies it in place",
    coreCase(inject("engineLayers")),
    async () => {
      const before = numberOutput(out, "ordersServiceId");
      await stack.setConfig("ordersSend", { value: JSON.stringify(["orders/created", "orders/cancelled"]) });

      const up = await stack.up();
      scan.text("permissions up", up.stdout + up.stderr, "cli output");
      expect(up.summary.resourceChanges).toEqual({ same: 5, update: 1 });
      expect(numberOutput(up.outputs, "ordersServiceId")).toBe(before);
      expect(broker.keyById(await broker.allKeys(emulator), before)?.["permissions"]).toEqual({
        send: ["orders/cancelled", "orders/created"],
        receive: ["payments/*"],
        resources: {},
      });
    },
  );

  // The main leg's alone: `pulumi import` runs no program, so what another CLI changes in it (the
  // engine's Read without state) is native.test.ts's import step in that leg.
  it(
    "pulumi import takes over a key created through the API; its value is a secret in the state",
    coreCase(inject("engineLayers")),
    async () => {
      const key = await broker.createKeyThroughApi(emulator, {
        name: "legacy-reader",
        type: "ACCOUNT",
        permissions: { send: [], receive: ["legacy/*"] },
      });
      scan.secrets(String(key["key"]));

      await project.run([
        "import",
        "broker:index:AccessKey",
        "legacy-reader",
        String(key["id"]),
        "--generate-code=false",
        "--protect=false",
        "--yes",
        "--stack",
        "dev",
      ]);
      // A secret in the state; the backend's files hold only its ciphertext (the scan below).
      const imported = await exportedKeyOutputs(stack, key["id"]);
      expectSecretHolding(imported?.["accessKey"], key["key"]);
      expect(imported?.["permissions"]).toMatchObject({ receive: ["legacy/*"] });
      importedId = key["id"] as number;
    },
  );

  it("destroy revokes every key, the imported one too, and leaves no secret in plain text", async () => {
    const destroy = await stack.destroy();
    scan.text("destroy", destroy.stdout + destroy.stderr, "cli output");
    // The stack, 2 workspaces, 2 keys and the pair; and the imported key where the import ran.
    expect(destroy.summary.resourceChanges).toEqual({ delete: importedId === undefined ? 6 : 7 });
    expect(destroy.stdout).toMatch(/was revoked/u);
    const keys = await broker.allKeys(emulator);
    for (const id of [
      numberOutput(out, "ordersServiceId"),
      numberOutput(out, "opsAdminId"),
      ...(importedId === undefined ? [] : [importedId]),
    ])
      expect(broker.keyById(keys, id)?.["permissions"]).toEqual(broker.NO_PERMISSIONS);

    scan.text("pulumi import", project.transcript.join("\n"), "cli output");
    scan.project("python stack after destroy", project);
    expect(scan.unread(CLI_TEST_SOURCES)).toEqual([]);
    expect(scan.leaks()).toEqual([]);
  });
});
