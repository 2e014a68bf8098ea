import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type { TestProject } from "vitest/node" with { "resolution-mode": "import" };
import { engineLeg } from "../harness/engine-matrix.mts";
import { createPackageFixture } from "../harness/package-fixture.mts";
import { pulumiBinDir, REPO_ROOT } from "../harness/repo.mts";
import { leftoverProcesses, RUN_MARKER } from "./support/leftover-processes";

declare module "vitest" {
  export interface ProvidedContext {
    /** A directory whose node_modules holds the packed package, installed as users get it. */
    packageFixture: string;
    /** The directory holding the `pulumi` CLI, its Node.js language host and the dynamic-provider plugin. */
    pulumiBin: string;
    /** The version of that CLI: the project's leg of the engine matrix (harness/engine-matrix.mts). */
    pulumiVersion: string;
    /** What this leg is the first to run (harness/engine-matrix.mts, `EngineLeg.proves`). */
    engineLayers: ("cli" | "sdk" | "core")[];
  }
}

/**
 * Runs once per vitest project (a leg of the engine matrix, harness/engine-matrix.mts) before its
 * tests: packs the built package into a fixture with the leg's `@pulumi/pulumi` (tests of the
 * provider host and the CLI run against what users install, not against src/), and makes sure the
 * leg's Pulumi CLI exists (building it offline the first time on a machine, cached by version; see
 * scripts/ensure-pulumi-cli.sh).
 *
 * After all tests it fails the run if any emulator, Pulumi CLI, language host or provider host the
 * tests started is still running (and stops them): every process the run starts inherits a
 * run marker in its environment, so other runs on the same machine are never counted.
 */
export default function setup(project: TestProject): () => Promise<void> {
  // Set before the test workers are forked: they, and every process they start, inherit it. The
  // projects of one run share it (vitest runs every setup before the first test and every teardown
  // after the last), so each teardown sees all of the run's processes and none of another run's.
  const runId = (process.env[RUN_MARKER] ??= randomUUID());
  if (!fs.existsSync(path.join(REPO_ROOT, "dist", "index.js"))) {
    throw new Error("dist/ is missing: run `npm run build` first (`npm test` does)");
  }
  const leg = engineLeg(project.name);
  const fixture = createPackageFixture(undefined, leg.sdkVersion);
  const pulumiBin = pulumiBinDir(leg.cliVersion);
  // The leg means nothing if its tests drive another CLI than it names.
  const cliVersion = execFileSync(path.join(pulumiBin, "pulumi"), ["version"], { encoding: "utf8" }).trim();
  if (cliVersion !== `v${leg.cliVersion}`) {
    throw new Error(`project ${leg.name}: ${pulumiBin}/pulumi is ${cliVersion}, not v${leg.cliVersion}`);
  }
  project.provide("packageFixture", fixture);
  project.provide("pulumiBin", pulumiBin);
  project.provide("pulumiVersion", leg.cliVersion);
  project.provide("engineLayers", [...leg.proves]);
  return async () => {
    fs.rmSync(fixture, { recursive: true, force: true });
    const left = await leftoverProcesses(runId);
    for (const { pid } of left) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone meanwhile.
      }
    }
    if (left.length > 0) {
      throw new Error(
        `the tests left ${left.length} process(es) running (now killed); a test must stop what it starts:\n` +
          left.map((p) => `  ${p.pid} ${p.args}`).join("\n"),
      );
    }
  };
}
