import { defineConfig } from "vitest/config";

// The fast suite: the core against an in-process emulator, and the providers' pure logic. No global
// setup, so no packed tarball and no Pulumi CLI: a change to the core is checked in seconds.
// `npm test` runs these files too, with everything else.
export default defineConfig({
  test: {
    include: ["test/core/**/*.test.ts", "test/unit/impl-logic.test.ts"],
    testTimeout: 60_000,
    pool: "forks",
  },
});
