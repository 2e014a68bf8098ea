import * as fs from "node:fs";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { installBrokerPlugin } from "../../harness/broker-native.mts";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import { emulatorConfig, PROGRAMS_DIR, tearDown, testProject, type StateResource } from "../support/projects";

// Upgrading the package under an existing stack (issue #37): a stack written by the version before
// autonaming and rotation triggers (test/fixtures/upgrade/README.md), with explicit names in both
// doors, previews with no changes under this one. What could break it: an input this version adds
// to what `check` records (a name it fills, the dynamic classes' logical name, `rotationTriggers`)
// that the recorded inputs lack, or a diff that reads the old inputs differently.

const FIXTURE = path.join(__dirname, "..", "fixtures", "upgrade", "state-3c7e50e.json");
/** The URL the fixture names in place of the emulator it was written against. */
const FIXTURE_URL = "http://fixture-emulator.invalid/v1";

let emulator: EmulatorHandle;
let project: PulumiProject;
let stack: Stack;

beforeAll(async () => {
  emulator = await startEmulator({ controls: true });
  project = await testProject("upgrade", path.join(PROGRAMS_DIR, "upgrade"));
  installBrokerPlugin(project);
  stack = await project.stack("dev", emulatorConfig(emulator));
  const deployment = fs.readFileSync(FIXTURE, "utf8").replaceAll(FIXTURE_URL, emulator.url);
  const imported = path.join(project.dir, "..", "previous-version.json");
  fs.writeFileSync(imported, deployment);
  await project.cli(["stack", "import", "--stack", "dev", "--file", imported]);
});

// The project's directory holds the imported deployment beside the project: removed with it.
afterAll(() => tearDown({ emulators: [emulator], project }));

describe("a stack written by the previous version", () => {
  it("holds every object of both doors after the import", async () => {
    const { resources } = (await stack.exportStack()).deployment as { resources: StateResource[] };
    const types = resources.map((resource) => resource.type);
    expect(types.filter((type) => type.startsWith("broker:index:")).sort()).toEqual([
      "broker:index:AccessKey",
      "broker:index:AccessKey",
      "broker:index:ServiceKeyPair",
      "broker:index:Workspace",
      "broker:index:Workspace",
    ]);
    expect(types.filter((type) => type.startsWith("pulumi-nodejs:dynamic/broker:")).sort()).toEqual([
      "pulumi-nodejs:dynamic/broker:AccessKey",
      "pulumi-nodejs:dynamic/broker:ServiceKeyPair",
      "pulumi-nodejs:dynamic/broker:Workspace",
      "pulumi-nodejs:dynamic/broker:Workspace",
    ]);
  });

  it("previews with no changes under this version, and sends the broker no request", async () => {
    const preview = await stack.preview({ diff: true });
    // The stack and its 9 objects the same (the summary counts no providers): nothing to create,
    // update, replace or delete.
    expect(preview.changeSummary).toEqual({ same: 10 });
    expect(await emulator.controls?.requests()).toEqual([]);
  });

  it("passes `pulumi preview --expect-no-changes`", async () => {
    await project.cli(["preview", "--stack", "dev", "--expect-no-changes"]);
  });
});
