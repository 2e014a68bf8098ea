import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { PulumiProject } from "../support/pulumi-project";

// Every example in examples/ is a standalone Pulumi project users copy. Each is previewed through
// the real CLI with no broker credentials (as a pull-request check does); quickstart is also
// deployed and destroyed. They require the package by name, from the packed tarball.

const examplesDir = path.join(__dirname, "../../examples");
const examples = fs
  .readdirSync(examplesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(examplesDir, entry.name, "Pulumi.yaml")))
  .map((entry) => entry.name);

function stacksOf(example: string): string[] {
  const files = fs.readdirSync(path.join(examplesDir, example));
  const stacks = files.flatMap((file) => /^Pulumi\.(.+)\.yaml$/u.exec(file)?.[1] ?? []);
  return stacks.length > 0 ? stacks : ["dev"];
}

async function projectFor(example: string): Promise<PulumiProject> {
  return PulumiProject.create({
    name: example,
    programDir: path.join(examplesDir, example),
    fixture: inject("packageFixture"),
    pulumiBin: inject("pulumiBin"),
    env: { BROKER_BASE_URL: "", BROKER_API_KEY: "" },
  });
}

describe("examples", () => {
  it("finds the examples", () => {
    expect(examples).toEqual(expect.arrayContaining(["quickstart", "stack-per-environment", "key-rotation", "pull-request-preview"]));
  });

  it.each(examples)("%s previews every stack with no credentials", async (example) => {
    const project = await projectFor(example);
    try {
      for (const name of stacksOf(example)) {
        const stack = await project.stack(name);
        const preview = await stack.preview();
        expect(preview.changeSummary["create"]).toBeGreaterThan(1);
      }
    } finally {
      project.remove();
    }
  });
});

describe("quickstart against the emulator", () => {
  let emulator: EmulatorHandle;
  let project: PulumiProject;

  beforeAll(async () => {
    emulator = await startEmulator({ controls: true });
    project = await projectFor("quickstart");
  });
  afterAll(async () => {
    project.remove();
    await emulator.close();
  });

  it("deploys, shows no changes on a second preview, and destroys", async () => {
    const stack = await project.stack("dev", {
      "broker:baseUrl": { value: emulator.url },
      "broker:apiKey": { value: emulator.adminKey, secret: true },
    });
    const up = await stack.up();
    expect(up.summary.resourceChanges).toEqual({ create: 6 });
    const outputs = await stack.outputs();
    expect(outputs["ordersPath"]?.value).toBe("/platform/orders");
    expect(outputs["ordersPrivateKey"]?.secret).toBe(true);
    expect((await stack.preview()).changeSummary).toEqual({ same: 6 });
    const destroy = await stack.destroy();
    expect(destroy.summary.resourceChanges).toEqual({ delete: 6 });
    const text = project.backendText() + up.stdout + destroy.stdout;
    for (const secret of [emulator.adminKey, outputs["ordersServiceKey"]?.value, outputs["ordersPrivateKey"]?.value]) {
      expect(text).not.toContain(String(secret));
    }
  });
});
