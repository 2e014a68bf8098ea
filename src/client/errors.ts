/**
 * The client's errors: a failed call ({@link BrokerApiError}), bad settings, an unexpected result, a
 * cancelled call. They belong to the package's one error family (`src/errors/broker-error.ts`),
 * re-exported here for the `pulumi-broker-config/client` subpath.
 */
import { BrokerError, branded, type BrokerErrorCode } from "../errors/broker-error";

// `branded` stays out: it is internal (`stripInternal` drops its declaration from the typings).
export {
  BrokerError,
  isBrokerError,
  type BrokerErrorCode,
  type BrokerErrorOptions,
} from "../errors/broker-error";

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
