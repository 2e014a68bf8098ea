/**
 * The one error of the access review's inputs: what was given is not what the review reads (not
 * the JSON of `pulumi preview --json`, a preview that failed, a document with problems, a broker
 * that cannot be read). `broker-config review` prints its message as one line and exits 2.
 */
import { BrokerError } from "../client/errors";

/** Input the access review cannot read; the message is one line naming what was expected. */
export class ReviewInputError extends BrokerError {
  constructor(message: string) {
    super("BROKER_REVIEW_INPUT", message);
    this.name = "ReviewInputError";
  }
}

/** Whether `error` is a {@link ReviewInputError} (by its code, so copies of the package agree). */
export function isReviewInputError(error: unknown): error is ReviewInputError {
  return error instanceof Error && (error as { code?: unknown }).code === "BROKER_REVIEW_INPUT";
}
