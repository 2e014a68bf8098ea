/**
 * Errors of the broker client, modelled on undici's `lib/core/errors.js`: one base class, a stable
 * `code` on every error, and `Symbol.for` brands so that matching works across copies of this package
 * (the provider host may load one copy from the project and another from a plugin directory).
 *
 * Match on `error.code` (or the `isBroker*Error` guards), not on `instanceof`.
 *
 * No error here ever has an `id` property: the Pulumi engine reads `id` on a thrown error as
 * "the resource was created but a later step failed".
 */

/** Stable codes of {@link BrokerError}s. */
export type BrokerErrorCode =
  | "BROKER_UNAUTHORIZED"
  | "BROKER_FORBIDDEN"
  | "BROKER_NOT_FOUND"
  | "BROKER_INVALID_REQUEST"
  | "BROKER_CONFLICT"
  | "BROKER_RATE_LIMITED"
  | "BROKER_SERVER_ERROR"
  | "BROKER_CONNECTION_FAILED"
  | "BROKER_TIMEOUT"
  | "BROKER_BAD_RESPONSE"
  | "BROKER_UNEXPECTED_RESULT"
  | "BROKER_SETTINGS_MISSING"
  | "BROKER_SETTINGS_INVALID"
  /** The Pulumi run was cancelled before the call reached the broker; see `BrokerCancelledError`. */
  | "BROKER_CANCELLED"
  /** An invalid configuration document (config-as-data); see `BrokerConfigDocumentError`. */
  | "BROKER_CONFIG_INVALID"
  /** A look-up function's arguments are invalid; no request was sent. */
  | "BROKER_LOOKUP_INVALID"
  /** A look-up function found nothing matching. */
  | "BROKER_LOOKUP_NOT_FOUND"
  /** A look-up function found more than one match (names are not unique in the API). */
  | "BROKER_LOOKUP_AMBIGUOUS"
  // Every class extends BrokerError, whose constructor takes a code of this registry: the compiler
  // refuses a class whose code is not listed here, and test/unit/error-codes.test.ts one that shares one.
  /** The core created an object but a later step of its create failed (`PartiallyCreatedError`, for the doors). */
  | "BROKER_PARTIALLY_CREATED"
  /** The dynamic door's form of a partial create, which the engine keeps in the stack (`CreatedButFailedError`). */
  | "BROKER_CREATED_BUT_FAILED"
  /** The native door's form of a partial create, answered to the engine (`ResourceInitFailedError`). */
  | "BROKER_RESOURCE_INIT_FAILED"
  /** More than one object fits an interrupted create (`AmbiguousIntentError`). */
  | "BROKER_INTENT_AMBIGUOUS"
  /** A recorded state could not be decoded (`StateDecodeError`). */
  | "BROKER_STATE_INVALID"
  /** The resource type cannot be imported by id (`NotImportableError`). */
  | "BROKER_NOT_IMPORTABLE"
  /** A property value the plugin cannot read (`CodecError`). */
  | "BROKER_PROPERTY_INVALID"
  /** The plugin serves no such resource type (`UnknownResourceTypeError`). */
  | "BROKER_UNKNOWN_RESOURCE_TYPE"
  /** The plugin serves no such function (`UnknownFunctionError`). */
  | "BROKER_UNKNOWN_FUNCTION"
  /** A component input is not known yet (`UnknownComponentInputError`). */
  | "BROKER_COMPONENT_INPUT_UNKNOWN"
  /** A `pulumi` command run by `broker-config` failed (`PulumiCommandError`). */
  | "BROKER_PULUMI_COMMAND_FAILED"
  /** `broker-config migrate-state` could not rewrite a state (`MigrateStateError`). */
  | "BROKER_MIGRATE_STATE_FAILED"
  /** The access review cannot read what it was given (`ReviewInputError`). */
  | "BROKER_REVIEW_INPUT";

function hasBrand(value: unknown, brand: symbol): boolean {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}

/**
 * Brands `Class` so that `instanceof` works across copies of the package (as undici does): a getter
 * `Symbol.for("pulumi-broker-config.<name>")` on its prototype (neither enumerable nor serialised), by
 * which `instanceof Class` answers. A subclass without a brand of its own answers as JavaScript does,
 * by prototype: inheriting the brand check would make every error of the family an instance of it.
 * Returns the matching `isX` check.
 *
 * @internal
 */
export function branded<T>(
  Class: abstract new (...args: never[]) => T,
  name: string,
): (e: unknown) => e is T {
  const brand = Symbol.for(`pulumi-broker-config.${name}`);
  Object.defineProperty(Class.prototype, brand, { get: () => true });
  Object.defineProperty(Class, Symbol.hasInstance, {
    value(this: unknown, instance: unknown): boolean {
      if (this === Class) return hasBrand(instance, brand);
      return Function.prototype[Symbol.hasInstance].call(this, instance);
    },
  });
  return (e: unknown): e is T => hasBrand(e, brand);
}

/**
 * The options of an error's constructor, spelled out rather than named `ErrorOptions`: that name is
 * an ES2022 lib type, unknown to programs that compile for an older target (Pulumi's TypeScript
 * template targets es2020 without `skipLibCheck`), and it is part of our shipped declarations.
 */
export interface BrokerErrorOptions {
  /** The error that caused this one. */
  cause?: unknown;
}

/**
 * Base class of every error this package throws on purpose (the emulator, which imports nothing of the
 * package, aside): one family, each class with a code of {@link BrokerErrorCode}.
 */
export class BrokerError extends Error {
  /** A stable, documented code such as `BROKER_NOT_FOUND`; match on this. */
  readonly code: BrokerErrorCode;

  constructor(code: BrokerErrorCode, message: string, options?: BrokerErrorOptions) {
    super(message, options);
    this.name = "BrokerError";
    this.code = code;
  }

  /**
   * Makes every error of this package a Pulumi `RunError` for the Node.js SDK, which recognises one
   * by this member (`RunError.isInstance`, so across copies of the SDK too) and prints it as its
   * message alone. These errors are thrown on purpose and their messages say what happened and what
   * to do; without the member, one thrown in a Pulumi program (a look-up that finds nothing, a look-up
   * during a preview without settings, an invalid `BrokerConfig` document) is printed as an
   * "unhandled exception" with stack frames of this package. Errors that are not ours (a bug) keep
   * their stack. A getter on the prototype: neither enumerable nor serialised, as the brand above.
   *
   * @internal
   */
  get __pulumiRunError(): true {
    return true;
  }
}

/** Whether `e` is a {@link BrokerError} from any copy of this package. */
export const isBrokerError = branded(BrokerError, "BrokerError");

/** What a {@link BrokerApiError} is built from. */
export interface BrokerApiErrorInit {
  code: BrokerErrorCode;
  message: string;
  status: number;
  method: string;
  pathTemplate: string;
  attempts: number;
  outcomeUnknown: boolean;
  serverMessage?: string | undefined;
  serverCode?: string | undefined;
  field?: string | undefined;
  requestId?: string | undefined;
  /** An already redacted error (see `request.ts`): never a raw undici error. */
  cause?: Error | undefined;
}

/**
 * A failed call to the broker API: an HTTP error status, a network failure (`status` 0) or a response
 * that is not the JSON the API promises. It carries the path *template*, never the real path, because
 * real paths contain access key values.
 */
export class BrokerApiError extends BrokerError {
  /** The HTTP status; 0 when no response arrived (network failure or timeout, see `cause`). */
  readonly status: number;
  /** The HTTP method, such as `POST`. */
  readonly method: string;
  /** The path template, such as `/access-key/{accessKey}/permissions`. Never the real path. */
  readonly pathTemplate: string;
  /** The server's own message (from `message`, `error` or `error.detail`), with secrets redacted. */
  readonly serverMessage?: string;
  /** The server's error code (`code` in the JSON body), such as `validation_failed`. */
  readonly serverCode?: string;
  /** The request field the server blamed (`field` in the JSON body), such as `query.limit`. */
  readonly field?: string;
  /** How many attempts were made, retries included. */
  readonly attempts: number;
  /** The `x-request-id` response header, for support requests. */
  readonly requestId?: string;
  /**
   * The server may have applied the request although no usable response arrived (connection reset
   * after sending, timeout, 502/503/504 on a request that is not safe to repeat). Check the state
   * before repeating it.
   */
  readonly outcomeUnknown: boolean;

  constructor(init: BrokerApiErrorInit) {
    super(init.code, init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "BrokerApiError";
    this.status = init.status;
    this.method = init.method;
    this.pathTemplate = init.pathTemplate;
    this.attempts = init.attempts;
    this.outcomeUnknown = init.outcomeUnknown;
    // Optional fields are only set when present, so that they do not show up as `undefined`
    // in `util.inspect` or JSON output.
    if (init.serverMessage !== undefined) this.serverMessage = init.serverMessage;
    if (init.serverCode !== undefined) this.serverCode = init.serverCode;
    if (init.field !== undefined) this.field = init.field;
    if (init.requestId !== undefined) this.requestId = init.requestId;
  }
}

/** Whether `e` is a {@link BrokerApiError} from any copy of this package. */
export const isBrokerApiError = branded(BrokerApiError, "BrokerApiError");

/**
 * Missing or invalid connection settings (`BROKER_SETTINGS_MISSING`, `BROKER_SETTINGS_INVALID`):
 * the base URL, the API key, or a client option such as `timeoutMs`. The message names where to
 * set each (for a stack, the config key and the environment variable); it never contains the API key.
 */
export class BrokerSettingsError extends BrokerError {
  constructor(code: "BROKER_SETTINGS_MISSING" | "BROKER_SETTINGS_INVALID", message: string) {
    super(code, message);
    this.name = "BrokerSettingsError";
  }
}

/** Whether `e` is a {@link BrokerSettingsError} from any copy of this package. */
export const isBrokerSettingsError = branded(BrokerSettingsError, "BrokerSettingsError");

/** @deprecated The earlier name of {@link BrokerSettingsError}; the same class. */
export const BrokerConfigError = BrokerSettingsError;
/** @deprecated The earlier name of {@link BrokerSettingsError}. */
export type BrokerConfigError = BrokerSettingsError;
/** @deprecated The earlier name of {@link isBrokerSettingsError}; the same function. */
export const isBrokerConfigError = isBrokerSettingsError;

/**
 * Every request succeeded but the result is not what was asked for (`BROKER_UNEXPECTED_RESULT`),
 * e.g. a workspace was created under another parent than requested. When something was created,
 * `createdId` says what, so a caller can keep it in state (as the engine's `id`, which this error
 * deliberately does not carry itself).
 */
export class BrokerResultError extends BrokerError {
  /** The id of the object that was created anyway, if any. */
  readonly createdId?: number;

  constructor(message: string, createdId?: number, cause?: unknown) {
    super("BROKER_UNEXPECTED_RESULT", message, cause === undefined ? undefined : { cause });
    this.name = "BrokerResultError";
    if (createdId !== undefined) this.createdId = createdId;
  }
}

/** Whether `e` is a {@link BrokerResultError} from any copy of this package. */
export const isBrokerResultError = branded(BrokerResultError, "BrokerResultError");

/**
 * A call stopped because the Pulumi run was cancelled (`BROKER_CANCELLED`), before its request was
 * sent or while it waited on the rate limit or a back-off: nothing of it reached the broker, so
 * running `pulumi up` again finishes the work. Requests already sent are never stopped half-way.
 */
export class BrokerCancelledError extends BrokerError {
  constructor(message: string) {
    super("BROKER_CANCELLED", message);
    this.name = "BrokerCancelledError";
  }
}

/** Whether `e` is a {@link BrokerCancelledError} from any copy of this package. */
export const isBrokerCancelledError = branded(BrokerCancelledError, "BrokerCancelledError");
