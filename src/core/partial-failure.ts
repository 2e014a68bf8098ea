import { errorMessage } from "./messages";
import { BrokerError } from "../client/errors";

const kPartiallyCreated = Symbol.for("pulumi-broker-config.PartiallyCreatedError");

/**
 * An object was created on the server, but a later step of `create` failed. It carries the outputs
 * known so far, so an adapter can tell its engine to keep the object in the stack (marked as needing
 * attention) instead of losing track of something that exists: the next `update` finishes it.
 *
 * It deliberately has no `id` property (the dynamic provider host would read one as the engine's
 * "created but failed" signal); adapters map {@link createdId} and {@link outputs} to their engine's form.
 */
export class PartiallyCreatedError<O> extends BrokerError {
  /** What was created, for messages, such as `Access key "orders"`. */
  readonly what: string;
  /** The id of the object that exists. */
  readonly createdId: string;
  /** The outputs to record for it. */
  readonly outputs: O;
  /** Why the resource is not complete, for the engine's list of reasons. */
  readonly reason: string;

  constructor(what: string, createdId: string, outputs: O, cause: unknown) {
    const reason = `${what} was created (id ${createdId}) but a later step failed: ${errorMessage(cause)}`;
    super(
      "BROKER_PARTIALLY_CREATED",
      `${reason}. It is kept in the stack; run \`pulumi up\` again to finish it.`,
      {
        cause,
      },
    );
    this.name = "PartiallyCreatedError";
    this.what = what;
    this.createdId = createdId;
    this.outputs = outputs;
    this.reason = reason;
  }

  get [kPartiallyCreated](): true {
    return true;
  }
}

/** Whether `error` is a {@link PartiallyCreatedError} (from any copy of this package). */
export function isPartiallyCreatedError(error: unknown): error is PartiallyCreatedError<unknown> {
  return typeof error === "object" && error !== null && kPartiallyCreated in error;
}
