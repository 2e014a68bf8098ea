import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type { TestProject } from "vitest/node" with { "resolution-mode": "import" };
import { createPackageFixture } from "../harness/package-fixture.mts";
import { pulumiBinDir, REPO_ROOT } from "../harness/repo.mts";
import { leftoverProcesses, RUN_MARKER } from "./support/leftover-processes";

declare module "vitest" {
  export interface ProvidedContext {
    /** A directory whose node_modules holds the packed package, installed as users get it. */
    packageFixture: string;
    /** The directory holding the `pulumi` CLI, its Node.js language host and the dynamic-provider plugin. */
    pulumiBin: string;
  }
}

/**
 * Runs once before all tests: packs the built package into a fixture (tests of the provider host
 * and the CLI run against what users install, not against src/), and makes sure the Pulumi CLI
 * exists (building it offline the first time on a machine; see scripts/ensure-pulumi-cli.sh).
 *
 * After all tests it fails the run if any emulator, Pulumi CLI, language host or provider host the
 * tests started is still running (and stops them): every process the run starts inherits a
 * run marker in its environment, so other runs on the same machine are never counted.
 */
export default function setup(project: TestProject): () => Promise<void> {
  const runId = randomUUID();
  // Set before the test workers are forked: they, and every process they start, inherit it.
  process.env[RUN_MARKER] = runId;
  if (!fs.existsSync(path.join(REPO_ROOT, "dist", "index.js"))) {
    throw new Error("dist/ is missing: run `npm run build` first (`npm test` does)");
  }
  const fixture = createPackageFixture();
  const pulumiBin = pulumiBinDir();
  project.provide("packageFixture", fixture);
  project.provide("pulumiBin", pulumiBin);
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
