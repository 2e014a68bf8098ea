/**
 * The review test/e2e/review-drift.test.ts expects of its `pulumi preview --refresh --json`, which
 * test/fixtures/preview/drift-dynamic-refresh.json keeps for the unit tests: one expectation for the
 * live preview and its recorded copy.
 */
import { expect } from "vitest";
import type { AccessReview } from "../../src/review/report";

/**
 * Asserts the review of the drift scenario: after `up`, billing-svc was given `payments/*` and
 * audit-reader was removed on the broker, outside Pulumi. The refresh reads both as drift, with the
 * verdicts a plan would get; the plan from the refreshed state puts the program's grants back.
 */
export function expectDriftScenarioReview(review: AccessReview): void {
  const none = { send: [], receive: [] };
  expect(
    review.drift?.keys.map((key) => [key.name, key.kind, key.verdict, key.added, key.removed, key.door]),
  ).toEqual([
    ["billing-svc", "updated", "broadens", { send: ["payments/*"], receive: [] }, none, "dynamic"],
    ["audit-reader", "revoked", "narrows", none, { send: [], receive: ["audit/*"] }, "dynamic"],
  ]);
  expect(review.drift?.gains).toEqual([{ path: "payments/*", direction: "send", keys: ["billing-svc"] }]);
  expect(review.planned.keys.map((key) => [key.name, key.kind, key.verdict])).toEqual([
    ["audit-reader", "created", "broadens"],
    ["billing-svc", "updated", "narrows"],
  ]);
  expect(review.broadens).toBe(true);
}
