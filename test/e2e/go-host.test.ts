import { randomBytes } from "node:crypto";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import { GO_BUILD_ENV, PULUMI_VERSION } from "../../harness/repo.mts";
import { expectDestroyed, runRepoScript, testProject } from "../support/projects";

// End-to-end: a Go Pulumi program runs through the real CLI offline, with the Go language host that
// scripts/ensure-go-host.sh builds (issue #13). This is what the Go SDK of the `broker` package runs
// on; the steps share one stack and run in order.

const programDir = path.join(__dirname, "programs", "go-host");
// Fresh per run, so finding it in the backend can only mean it was stored in plain text.
const token = `go-token-${randomBytes(12).toString("hex")}`;

let project: PulumiProject;
let stack: Stack;

describe("a Go program through the Pulumi CLI", () => {
  beforeAll(async () => {
    runRepoScript("ensure-go-host.sh");
    project = await testProject("go-host", programDir, { ...GO_BUILD_ENV });
    stack = await project.stack("dev", {
      "go-host:who": { value: "go" },
      "go-host:token": { value: token, secret: true },
    });
  });

  afterAll(() => {
    project.remove();
  });

  // The first run on a machine compiles the program and the Go SDK: minutes, not seconds.
  it(
    "up builds and runs the program and keeps its secret output a secret",
    { timeout: 900_000 },
    async () => {
      const result = await stack.up();

      expect(result.summary.result).toBe("succeeded");
      expect(result.summary.resourceChanges).toEqual({ create: 1 });
      expect(result.outputs["greeting"]).toEqual({ value: "hello from go", secret: false });
      expect(result.outputs["token"]).toEqual({ value: token, secret: true });
      // The program was built against the Go SDK at the CLI's version (its go.mod pins it).
      expect(result.outputs["pulumiSdkVersion"]?.value).toBe(`v${PULUMI_VERSION}`);
      expect(String(result.outputs["goVersion"]?.value)).toMatch(/^go1\.\d+/u);
      expect(project.producedText()).not.toContain(token);
    },
  );

  it("destroy removes the stack's resources", async () => {
    await expectDestroyed(stack, 1);
  });
});
