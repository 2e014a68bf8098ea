import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PLUGIN_DOWNLOAD_URL } from "../../src/core/declarations/package-schema";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import {
  allKeys,
  allWorkspaces,
  installBrokerPlugin,
  keyById,
  NO_PERMISSIONS,
} from "../../harness/broker-native.mts";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import { PACKAGE_VERSION } from "../../harness/release.mts";
import { GO_BUILD_ENV, GO_SDK_DIR, goSdkModule, REPO_ROOT } from "../../harness/repo.mts";
import { CLI_TEST_SOURCES, SecretScan } from "../../harness/secret-scan.mts";
import { numberOutput, tearDown, testProject } from "../support/projects";

// End-to-end through the real Pulumi CLI, offline, against the emulator: the README's Go example
// (test/programs/go-native), built with the generated Go SDK (sdk/go/broker) and run by the `broker` plugin
// that `broker-config plugin install` put into the project's Pulumi home (issue #13). The steps share
// one stack and run in order.

const programDir = path.join(__dirname, "..", "programs", "go-native");
/** The SDK's module path (schema.json's `language.go.importBasePath`: the module's root is the package). */
const sdkModule = goSdkModule();

let emulator: EmulatorHandle;
let project: PulumiProject;
let stack: Stack;
/** The outputs after `up`. */
let out: Awaited<ReturnType<Stack["outputs"]>>;
const scan = new SecretScan();

beforeAll(async () => {
  // Fast once scripts/ensure-pulumi-cli.sh (run by the global setup) has built everything.
  execFileSync("bash", [path.join(REPO_ROOT, "scripts", "ensure-go-host.sh")], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  emulator = await startEmulator({ controls: true });
  scan.secrets(emulator.adminKey);
  project = await testProject("broker-go", programDir, { ...GO_BUILD_ENV });
  // The SDK's module is not published: the program takes it from this checkout, as README says.
  fs.appendFileSync(path.join(project.dir, "go.mod"), `\nreplace ${sdkModule} => ${GO_SDK_DIR}\n`);
});

afterAll(() => tearDown({ emulators: [emulator], project }));

describe("a Go program with the generated SDK, through the Pulumi CLI", () => {
  it("the Go language host names broker at the SDK's version, with no plugin installed", async () => {
    expect(fs.readdirSync(project.homeDir)).toEqual([]);
    // `pulumi about` lists the plugins the language host answers the program requires. The host
    // reads them from each module's pulumi-plugin.json, at the module's root, in go/ or go/*/ only.
    const about = JSON.parse((await project.run(["about", "--json"])).stdout) as {
      plugins: { name: string; kind: string; version: string | null }[];
    };
    expect(about.plugins.filter((p) => p.kind === "resource")).toEqual([
      { name: "broker", kind: "resource", version: PACKAGE_VERSION },
    ]);
    // The download address is the SDK's pluginDownloadURL (test/e2e/release.test.ts downloads from it).
    expect(
      JSON.parse(fs.readFileSync(path.join(GO_SDK_DIR, "pulumi-plugin.json"), "utf8")) as unknown,
    ).toEqual({
      resource: true,
      name: "broker",
      version: PACKAGE_VERSION,
      server: DEFAULT_PLUGIN_DOWNLOAD_URL,
    });
    installBrokerPlugin(project);
  });

  // The first run on a machine compiles the program, the Pulumi Go SDK and ours: minutes, not seconds.
  it(
    "previews a new stack with no credentials, listing the creates, without a request",
    { timeout: 900_000 },
    async () => {
      stack = await project.stack("dev");
      await emulator.controls!.clearRequests();
      const preview = await stack.preview();
      expect(preview.changeSummary).toEqual({ create: 4 }); // the stack, 2 workspaces, a key
      expect(await emulator.controls!.requests()).toEqual([]);
    },
  );

  it("up creates the workspace tree and the key; its value is a secret output", async () => {
    await stack.setAllConfig({
      "broker:baseUrl": { value: emulator.url },
      "broker:apiKey": { value: emulator.adminKey, secret: true },
    });
    const up = await stack.up();
    scan.text("up", up.stdout + up.stderr, "cli output");
    expect(up.summary.resourceChanges).toEqual({ create: 4 });

    out = up.outputs; // `up` read them
    const platform = (await allWorkspaces(emulator)).find((w) => w["name"] === "platform");
    expect((await allWorkspaces(emulator)).find((w) => w["name"] === "orders")).toMatchObject({
      id: numberOutput(out, "ordersId"),
      parentId: platform?.["id"],
    });
    expect(out["ordersPath"]?.value).toBe("/platform/orders");
    const key = keyById(await allKeys(emulator), numberOutput(out, "ordersServiceId"));
    expect(key).toMatchObject({
      name: "orders-service",
      type: "SERVICE",
      permissions: { send: ["orders/created"], receive: ["payments/*"], resources: {} },
    });
    expect(out["ordersKey"]).toEqual({ value: key?.["key"], secret: true });
    scan.secrets(String(key?.["key"]));
  });

  it("destroy revokes the key and leaves no secret in plain text", async () => {
    const id = numberOutput(out, "ordersServiceId");
    const destroy = await stack.destroy();
    scan.text("destroy", destroy.stdout + destroy.stderr, "cli output");
    expect(destroy.summary.resourceChanges).toEqual({ delete: 4 });
    expect(keyById(await allKeys(emulator), id)?.["permissions"]).toEqual(NO_PERMISSIONS);

    scan.project("go stack", project);
    expect(scan.unread(CLI_TEST_SOURCES)).toEqual([]);
    expect(scan.leaks()).toEqual([]);
  });
});
