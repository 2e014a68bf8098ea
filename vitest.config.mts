import * as os from "node:os";
import { defineConfig } from "vitest/config";
import { ENGINE_LEGS } from "./harness/engine-matrix.mts";
import { nodeCompileCacheDir } from "./harness/repo.mts";
import LongestFirstSequencer from "./test/support/longest-first-sequencer.mts";

// `npm test`: every test file with the Pulumi CLI and @pulumi/pulumi of our devDependencies (the
// project "main"), and the end-to-end files of the engine matrix again with each other CLI and SDK
// version (harness/engine-matrix.mts; docs/offline-engine.md). Each project's global setup packs
// the package with its SDK and makes its CLI ready. One leg alone: `npx vitest run --project main`.

// The V8 code cache of Node.js (>= 22.1) for the test files' workers, which inherit this environment
// and each load vitest and what the file imports from node_modules (the Automation API of
// `@pulumi/pulumi` among them) again: the cache the projects' commands share (harness/pulumi-project.mts).
process.env["NODE_COMPILE_CACHE"] = nodeCompileCacheDir();

export default defineConfig({
  test: {
    reporters: ["default", "./test/support/summary-reporter.mts"],
    // Records each file's CPU time, which the summary lists beside its wall time.
    setupFiles: ["test/support/file-cpu.mts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Tests start real servers and child processes; forks keep them isolated per file.
    pool: "forks",
    // One file more than there are cores. Vitest's default leaves a core free (one worker on 2
    // cores), but most of the suite's time is spent in the processes the tests start (the CLI,
    // language hosts, plugins), which the worker only waits for, and those processes wait on each
    // other (the engine's calls to the language host and the provider): with one file per core, 2
    // cores were idle 15% of a run (docs/offline-engine.md, "Where the time goes"). Tests must pass
    // with every core busy (docs/offline-engine.md, "Timing").
    maxWorkers: os.availableParallelism() + 1,
    // The longest files first, whatever their leg: the run ends when its last file does.
    sequence: { sequencer: LongestFirstSequencer },
    projects: ENGINE_LEGS.map((leg) => ({
      extends: true,
      test: { name: leg.name, include: [...leg.include], globalSetup: ["test/global-setup.ts"] },
    })),
  },
});
