import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readLastUpdate, readStackOutputs } from "../../harness/file-backend.mts";
import type { PulumiProject, StackConfig } from "../../harness/pulumi-project.mts";
import { PROGRAMS_DIR, testProject } from "../support/projects";

// The harness reads a stack's outputs and its last operation from the file backend instead of
// starting `pulumi stack output` and `pulumi stack history` after every `up`, `refresh` and
// `destroy` (harness/file-backend.mts). Every test that reads `up(...).outputs` or `.summary` relies
// on those reads being what the CLI prints: here they are compared with the CLI's own output, for
// every shape of output and config value, after each kind of operation.

const PASSPHRASE = "harness-passphrase";

let project: PulumiProject;
let stack: Stack;

/** `pulumi stack output --json` (with `--show-secrets` when asked) of the test's stack. */
async function cliOutputs(showSecrets: boolean): Promise<Record<string, unknown>> {
  const args = ["stack", "output", "--json", "--stack", "dev", ...(showSecrets ? ["--show-secrets"] : [])];
  return JSON.parse((await project.run(args)).stdout) as Record<string, unknown>;
}

/** `pulumi stack history --json --page-size 1` as the Automation API's `info()` parses it. */
async function cliLastUpdate(showSecrets: boolean): Promise<unknown> {
  const args = ["stack", "history", "--json", "--page-size", "1", "--stack", "dev"];
  const { stdout } = await project.run(showSecrets ? [...args, "--show-secrets"] : args);
  const history = JSON.parse(stdout, (key: string, value: unknown) =>
    (key === "startTime" || key === "endTime") && typeof value === "string" ? new Date(value) : value,
  ) as unknown[] | null;
  return history?.[0];
}

/** The outputs as the Automation API builds them from the CLI: plain values, `secret` when masked. */
async function outputsAsTheSdkReadsThem(): Promise<Record<string, { value: unknown; secret: boolean }>> {
  const [masked, plain] = [await cliOutputs(false), await cliOutputs(true)];
  return Object.fromEntries(
    Object.entries(plain).map(([key, value]) => [key, { value, secret: masked[key] === "[secret]" }]),
  );
}

/** Both reads of the harness against the CLI's, with and without secrets. */
async function expectReadsAsTheCli(): Promise<void> {
  const stateFile = project.stateFile("dev");
  expect(await readStackOutputs(stateFile, PASSPHRASE)).toEqual(await outputsAsTheSdkReadsThem());
  for (const showSecrets of [true, false])
    expect(await readLastUpdate(stateFile, PASSPHRASE, showSecrets)).toEqual(
      await cliLastUpdate(showSecrets),
    );
}

beforeAll(async () => {
  project = await testProject("backend-reads", path.join(PROGRAMS_DIR, "stack-outputs"));
  stack = await project.stack("dev", {
    "backend-reads:token": { value: "config secret", secret: true },
    "backend-reads:plainSetting": { value: "plain setting" },
  });
  // A structured value (`config set --path`), which the backend stores as an object.
  await stack.setConfig("backend-reads:structured.list[0]", { value: "first" }, true);
  await stack.setConfig("backend-reads:structured.secretLeaf", { value: "leaf secret", secret: true }, true);
});

afterAll(() => {
  project.remove();
});

describe("the harness's writes of stack config", () => {
  it("are what the CLI reads: plain and secret, in the project's namespace or another", async () => {
    const written: StackConfig = {
      "backend-reads:number": { value: "42" },
      "backend-reads:flag": { value: "true" },
      "backend-reads:json": {
        value: JSON.stringify({ keys: Array.from({ length: 20 }, (_, i) => `key-${i}`) }),
      },
      unqualified: { value: "gets the project's namespace" },
      "other:secret": { value: "a: secret with 'quotes' and \"more\"", secret: true },
    };
    await project.setConfig("dev", written);
    const { stdout } = await project.run(["config", "--json", "--show-secrets", "--stack", "dev"]);
    const read = JSON.parse(stdout) as Record<string, { value: string; secret: boolean }>;
    for (const [key, { value, secret }] of Object.entries(written)) {
      const qualified = key.includes(":") ? key : `backend-reads:${key}`;
      expect(read[qualified], qualified).toMatchObject({ value, secret: secret === true });
    }
    // Set by `project.stack()` (the harness's own write) and read back by the CLI, decrypted.
    expect(read["backend-reads:token"]).toMatchObject({ value: "config secret", secret: true });
  });
});

describe("the harness's reads of the file backend", () => {
  it("reads nothing before the first update, as the CLI prints", async () => {
    await expectReadsAsTheCli();
    expect(await readLastUpdate(project.stateFile("dev"), PASSPHRASE)).toBeUndefined();
  });

  it("reads every shape of output, and the update with its config, as the CLI prints them", async () => {
    const up = await stack.up({ message: "the first update" });
    expect(up.outputs["secret"]).toEqual({ value: "top-level secret", secret: true });
    expect(up.outputs["nested"]).toEqual({
      value: { plain: [1, "two"], hidden: { deep: "nested secret" } },
      secret: false,
    });
    expect(up.summary).toMatchObject({ kind: "update", result: "succeeded", message: "the first update" });
    expect(up.summary.config["backend-reads:token"]).toEqual({ value: "config secret", secret: true });
    await expectReadsAsTheCli();
  });

  it("reads the last refresh, then a stack whose outputs are gone, then the destroy", async () => {
    const refresh = await stack.refresh();
    expect(refresh.summary).toMatchObject({ kind: "refresh", result: "succeeded" });
    await expectReadsAsTheCli();
    await stack.setConfig("backend-reads:exportNothing", { value: "true" });
    expect((await stack.up()).outputs).toEqual({});
    await expectReadsAsTheCli();
    const destroy = await stack.destroy();
    expect(destroy.summary).toMatchObject({ kind: "destroy", result: "succeeded" });
    await expectReadsAsTheCli();
  });
});
