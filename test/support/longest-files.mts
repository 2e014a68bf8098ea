/**
 * The test files the sequencer starts first (longest-first-sequencer.mts), in one place the
 * summary reporter can check after a run (summary-reporter.mts).
 */

/** A file that takes longer than this, in seconds, belongs in {@link LONGEST_FILES}. */
export const LISTED_FROM_SECONDS = 60;

/**
 * The files that take longest, longest first, as the summary at the end of `npm test` lists them
 * (test/support/summary-reporter.mts). They only decide the order files start in; a file missing
 * here, or listed in the wrong place, costs time and nothing else: `npm test` warns about a file
 * that took longer than {@link LISTED_FROM_SECONDS} and is missing here (summary-reporter.mts).
 */
export const LONGEST_FILES = [
  // One file of 184 s in the last warm CI run (99 s of CPU) before issue #50 split it: the
  // TypeScript, Python and Go programs (a Go build among them), then the YAML program's seven steps.
  "test/e2e/environment-languages.test.ts",
  "test/e2e/environment.test.ts",
  // The halves of the starting points and the release, each one file of 181-183 s on a quiet 2-core
  // machine before issue #50 split them. Measured alone the same way as the interrupted-run files
  // below, at load 4-6 (docs/offline-engine.md, "Where the time goes"): 92 s (starting-points-nodejs)
  // and 66 s (release) here, 51 s (release-go-and-component) and 44 s
  // (starting-points-python-go-yaml, the Go build cached) after them.
  "test/e2e/starting-points-nodejs.test.ts",
  "test/e2e/release.test.ts",
  // The interrupted-run files are a few lines each (their cases live in test/reliability/support/):
  // ordered by size, they started last on a fresh clone and ran alone for minutes at the end. Two
  // per door since issue #50; measured alone one after the other at load 3-6: 125, 108, 107, 98,
  // 87, 75, 65 and 64 s.
  "test/reliability/provider-crash-after-processing-dynamic.test.ts",
  "test/reliability/provider-crash-before-processing-dynamic.test.ts",
  "test/reliability/interrupted-anywhere-cancelled-dynamic.test.ts",
  "test/reliability/provider-crash-after-processing-native.test.ts",
  "test/reliability/provider-crash-before-processing-native.test.ts",
  "test/reliability/interrupted-anywhere-killed-dynamic.test.ts",
  "test/reliability/interrupted-anywhere-killed-native.test.ts",
  "test/reliability/interrupted-anywhere-cancelled-native.test.ts",
  "test/e2e/release-go-and-component.test.ts",
  "test/e2e/starting-points-python-go-yaml.test.ts",
  "test/e2e/native.test.ts",
  "test/e2e/lifecycle.test.ts",
  "test/e2e/provider-messages.test.ts",
  "test/e2e/examples.test.ts",
  "test/e2e/lookups.test.ts",
  "test/e2e/policy-pack.test.ts",
  "test/e2e/access-review.test.ts",
  "test/e2e/native-examples.test.ts",
  "test/e2e/account-keys.test.ts",
  "test/e2e/user-errors.test.ts",
  "test/integration/schema-examples.test.ts",
  "test/e2e/names-and-rotation.test.ts",
  "test/reliability/faults.test.ts",
  "test/e2e/config-as-data.test.ts",
  "test/reliability/interrupted-up.test.ts",
  // 61.7 s in the last warm CI run (it type-checks a consumer of every subpath export).
  "test/integration/subpath-types.test.ts",
  // 70.9 s in a cold CI run, where it builds the Python SDK's wheel and virtualenvs first.
  "test/integration/python-env.test.ts",
] as const;
