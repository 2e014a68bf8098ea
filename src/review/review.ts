/**
 * The access review from each of its inputs: a preview's JSON, two configuration documents, or the
 * live broker's export against a document. Each reader gives key transitions; the analysis
 * (`analyze.ts`) turns them into the report (`report.ts`).
 */
import type { BrokerConfigDocument } from "../config-as-data";
import { analyzeChange } from "./analyze";
import { documentTransitions } from "./documents";
import { readPreview } from "./preview";
import { REVIEW_SCHEMA_VERSION, type AccessReview } from "./report";

/**
 * The review of what `pulumi preview --json` (or `pulumi preview --refresh --json`) printed.
 *
 * @throws ReviewInputError when `text` is not a preview that ran (see `readPreview`).
 *
 * @example
 * ```ts
 * const review = reviewPreview(fs.readFileSync("preview.json", "utf8"));
 * if (review.broadens) console.log("needs an approval");
 * ```
 */
export function reviewPreview(text: string): AccessReview {
  const reading = readPreview(text);
  const planned = analyzeChange(reading.planned.keys, reading.planned.workspaces);
  const review: AccessReview = {
    schemaVersion: REVIEW_SCHEMA_VERSION,
    source: "preview",
    planned,
    broadens: planned.verdict === "broadens",
  };
  if (reading.drift !== undefined) {
    review.drift = analyzeChange(reading.drift.keys, reading.drift.workspaces);
    review.broadens ||= review.drift.verdict === "broadens";
  }
  return review;
}

/**
 * The review of going from one configuration document to another (`source: "documents"`), or from
 * the live broker's export to a document (`source: "broker"`: keys the document does not name stay
 * as they are, so nothing is revoked).
 *
 * @param names The names the two sides are shown by, such as the files they were read from.
 */
export function reviewDocuments(
  from: BrokerConfigDocument,
  to: BrokerConfigDocument,
  source: "documents" | "broker",
  names: { from: string; to: string },
): AccessReview {
  const transitions = documentTransitions(from, to, {
    removes: source === "documents",
    fromName: names.from,
    toName: names.to,
  });
  const planned = analyzeChange(transitions, []);
  return { schemaVersion: REVIEW_SCHEMA_VERSION, source, planned, broadens: planned.verdict === "broadens" };
}
