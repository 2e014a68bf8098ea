import * as fs from "node:fs";
import * as path from "node:path";
import type { TestProject } from "vitest/node" with { "resolution-mode": "import" };
import { createPackageFixture } from "../harness/package-fixture.mts";
import { pulumiBinDir, REPO_ROOT } from "../harness/repo.mts";

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
 */
export default function setup(project: TestProject): () => void {
  if (!fs.existsSync(path.join(REPO_ROOT, "dist", "index.js"))) {
    throw new Error("dist/ is missing: run `npm run build` first (`npm test` does)");
  }
  const fixture = createPackageFixture();
  const pulumiBin = pulumiBinDir();
  project.provide("packageFixture", fixture);
  project.provide("pulumiBin", pulumiBin);
  return () => {
    fs.rmSync(fixture, { recursive: true, force: true });
  };
}
