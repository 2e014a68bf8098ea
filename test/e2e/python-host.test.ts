import { randomBytes } from "node:crypto";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import { PULUMI_VERSION } from "../../harness/repo.mts";
import { expectDestroyed, runRepoScript, testProject, venvPath } from "../support/projects";

// End-to-end: a Python Pulumi program runs through the real CLI offline, with the Python language
// host and the virtualenv that scripts/ensure-python-host.sh prepares (issue #13). This is what the
// Python SDK of the `broker` package runs on; the steps share one stack and run in order.

const programDir = path.join(__dirname, "programs", "python-host");
// Fresh per run, so finding it in the backend can only mean it was stored in plain text.
const token = `py-token-${randomBytes(12).toString("hex")}`;

let venv: string;
let project: PulumiProject;
let stack: Stack;

describe("a Python program through the Pulumi CLI", () => {
  beforeAll(async () => {
    venv = runRepoScript("ensure-python-host.sh");
    // The language host built here ignores Pulumi.yaml's virtualenv option: the venv goes first on PATH.
    project = await testProject("python-host", programDir, { PATH: venvPath(venv) });
    stack = await project.stack("dev", {
      "python-host:who": { value: "python" },
      "python-host:token": { value: token, secret: true },
    });
  });

  afterAll(() => {
    project.remove();
  });

  it("up runs the program in the virtualenv and keeps its secret output a secret", async () => {
    const result = await stack.up();

    expect(result.summary.result).toBe("succeeded");
    expect(result.summary.resourceChanges).toEqual({ create: 1 });
    expect(result.outputs["greeting"]).toEqual({ value: "hello from python", secret: false });
    expect(result.outputs["token"]).toEqual({ value: token, secret: true });
    // The program ran under the venv's pulumi at the CLI's version, not some other install.
    expect(result.outputs["pulumiSdkVersion"]?.value).toBe(PULUMI_VERSION);
    expect(String(result.outputs["pythonVersion"]?.value)).toMatch(/^3\.\d+\.\d+/u);
    expect(project.producedText()).not.toContain(token);
  });

  it("destroy removes the stack's resources", async () => {
    await expectDestroyed(stack, 1);
  });
});
