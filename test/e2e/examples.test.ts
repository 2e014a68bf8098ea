import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { PulumiProject } from "../../harness/pulumi-project.mts";
import { destroyWithCli, upWithCli } from "../support/projects";

// Every example of the dynamic resources in examples/ is a standalone Pulumi project users copy. Each
// is previewed through the real CLI with no broker credentials (as a pull-request check does);
// quickstart is also deployed and destroyed. They require the package by name, from the packed
// tarball. The examples of the native provider (examples/native-<language>) need the plugin and
// their language's SDK: test/e2e/native-examples.test.ts runs them.

const examplesDir = path.join(__dirname, "../../examples");
const examples = fs
  .readdirSync(examplesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(examplesDir, entry.name, "Pulumi.yaml")))
  .filter((entry) => !entry.name.startsWith("native-"))
  .map((entry) => entry.name);

/**
 * A bound against a hang for a case's CLI runs, not a speed figure: with every core busy the
 * default 60 s cut an `up` short (issue #50), leaving its CLI running.
 */
const CASE_TIMEOUT_MS = 300_000;

/** The examples deployed against the emulator below: each has the one stack `dev`. */
const DEPLOYED = ["quickstart", "config-as-data"];

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
    expect(examples).toEqual(
      expect.arrayContaining([
        "quickstart",
        "stack-per-environment",
        "key-rotation",
        "pull-request-preview",
        "config-as-data",
      ]),
    );
  });

  // The deployed examples (below) preview their one stack with no credentials in the project they
  // deploy: the same assertion, one project and one stack fewer each.
  it.each(examples.filter((example) => !DEPLOYED.includes(example)))(
    "%s previews every stack with no credentials",
    async (example) => {
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
    },
    CASE_TIMEOUT_MS,
  );
});

describe.each([
  {
    example: "quickstart",
    resources: 6,
    outputs: { ordersPath: "/platform/orders" },
    secrets: ["ordersServiceKey", "ordersPrivateKey"],
  },
  {
    example: "config-as-data",
    // stack, component, 3 workspaces, 3 keys, 1 key pair
    resources: 9,
    // Siblings are created in parallel, so only the top-level id is certain.
    outputs: {
      workspaceIds: {
        "/platform": 1,
        "/platform/orders": expect.any(Number) as unknown,
        "/platform/payments": expect.any(Number) as unknown,
      },
    },
    secrets: ["accessKeyValues"],
  },
])("$example against the emulator", ({ example, resources, outputs: expected, secrets }) => {
  let emulator: EmulatorHandle;
  let project: PulumiProject;

  beforeAll(async () => {
    emulator = await startEmulator({ controls: true });
    project = await projectFor(example);
  });
  afterAll(async () => {
    project.remove();
    await emulator.close();
  });

  it(
    "previews with no credentials, deploys, shows no changes on a second preview, and destroys without leaking a secret",
    async () => {
      expect(stacksOf(example)).toEqual(["dev"]);
      const stack = await project.stack("dev");
      expect((await stack.preview()).changeSummary["create"]).toBeGreaterThan(1);
      await stack.setAllConfig({
        "broker:baseUrl": { value: emulator.url },
        "broker:apiKey": { value: emulator.adminKey, secret: true },
      });
      const up = await upWithCli(project, stack, `+ ${resources} created`);
      const outputs = up.outputs;
      for (const [name, value] of Object.entries(expected)) expect(outputs[name]?.value).toEqual(value);
      for (const name of secrets) expect(outputs[name]?.secret).toBe(true);
      expect((await stack.preview()).changeSummary).toEqual({ same: resources });
      const destroy = await destroyWithCli(project, "dev", resources);
      const text = project.producedText() + up.stdout + destroy.stdout;
      const values = [emulator.adminKey, ...secrets.flatMap((name) => flatValues(outputs[name]?.value))];
      expect(values.length).toBeGreaterThan(secrets.length);
      for (const secret of values) expect(text).not.toContain(secret);
    },
    CASE_TIMEOUT_MS,
  );
});

/** Every string inside an output value (a string, or a map of them). */
function flatValues(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(flatValues);
  return [];
}
