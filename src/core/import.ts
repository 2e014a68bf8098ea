/**
 * Importing by id: `pulumi import` (and a refresh of a resource with no recorded state) asks a
 * provider to read an object knowing only its id. The rules every resource shares live here.
 */
import { BrokerError } from "../client/errors";

const kNotImportable = Symbol.for("pulumi-broker-config.NotImportableError");

/**
 * A resource of this type cannot be imported by id: the API cannot give back everything the stack
 * would have to record (a key pair's private key is returned only once, when it is made).
 */
export class NotImportableError extends BrokerError {
  /** The resource type, such as `ServiceKeyPair`. */
  readonly typeName: string;

  constructor(typeName: string, message: string) {
    super("BROKER_NOT_IMPORTABLE", message);
    this.name = "NotImportableError";
    this.typeName = typeName;
  }

  get [kNotImportable](): true {
    return true;
  }
}

/** Whether `error` is a {@link NotImportableError} (from any copy of this package). */
export function isNotImportableError(error: unknown): error is NotImportableError {
  return typeof error === "object" && error !== null && kNotImportable in error;
}

/**
 * The numeric id of an object, as the engine passes it (a string). Throws a clear error for an id
 * that is not one, such as a name given to `pulumi import` by mistake.
 * @param what the object, for the message, such as `Workspace`.
 */
export function numericId(id: string, what: string): number {
  const value = /^\d+$/u.test(id) ? Number(id) : NaN;
  if (!Number.isSafeInteger(value)) {
    throw new Error(
      `${what} id must be the object's numeric id on the broker (such as 42), got ${JSON.stringify(id)}.`,
    );
  }
  return value;
}
