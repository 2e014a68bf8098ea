import { errorMessage } from "../../core/messages";
import { BrokerError } from "../../client/errors";

/**
 * The error the engine understands as "the object was created, but a later step failed": its `id`,
 * `properties` and `reasons` make the engine keep the object in the stack (marked as needing
 * attention) instead of losing track of something that exists on the server.
 */
export class CreatedButFailedError extends BrokerError {
  /** The id of the object that exists. */
  readonly id: string;
  /** The outputs recorded for it, including `__provider`. */
  readonly properties: Record<string, unknown>;
  /** Why the resource is not complete. */
  readonly reasons: string[];

  constructor(
    what: string,
    id: string,
    properties: Record<string, unknown>,
    provider: unknown,
    cause: unknown,
  ) {
    const reason = `${what} was created (id ${id}) but a later step failed: ${errorMessage(cause)}`;
    super(
      "BROKER_CREATED_BUT_FAILED",
      `${reason}. It is kept in the stack; run \`pulumi up\` again to finish it.`,
    );
    this.name = "CreatedButFailedError";
    this.id = id;
    this.properties = provider === undefined ? { ...properties } : { ...properties, __provider: provider };
    this.reasons = [reason];
  }
}
