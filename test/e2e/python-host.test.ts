import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PulumiProject } from "../../harness/pulumi-project.mts";
import { PULUMI_VERSION, REPO_ROOT } from "../../harness/repo.mts";

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
    // Fast once scripts/ensure-pulumi-cli.sh (run by the global setup) has built everything.
    venv = execFileSync("bash", [path.join(REPO_ROOT, "scripts", "ensure-python-host.sh")], {
      cwd: REPO_ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }).trim();
    const pulumiBin = inject("pulumiBin");
    project = await PulumiProject.create({
      name: "python-host",
      programDir,
      fixture: inject("packageFixture"),
      pulumiBin,
      // The language host built here ignores Pulumi.yaml's virtualenv option: it runs the first
      // `python` on PATH, so the venv's bin directory goes first.
      env: {
        PATH: [path.join(venv, "bin"), pulumiBin, process.env["PATH"] ?? ""].join(path.delimiter),
      },
    });
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
    const result = await stack.destroy();

    expect(result.summary.result).toBe("succeeded");
    expect(result.summary.resourceChanges).toEqual({ delete: 1 });
    expect(await stack.outputs()).toEqual({});
  });
});
