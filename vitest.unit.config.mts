import { defineConfig } from "vitest/config";

// `npm run test:unit`: pure logic, in seconds on a fresh clone after `npm ci`. No global setup, so no
// build, no packed package and no Pulumi CLI; a test that needs any of them belongs in
// test/integration (or deeper), which `npm test` runs with the global setup. `npm test` runs these
// files too, with everything else.
export default defineConfig({
  test: {
    include: ["test/unit/**/*.test.ts"],
    testTimeout: 60_000,
    pool: "forks",
  },
});
