/** Error codes of the emulator's error body (our choice: the API documents none). */
export type ErrorCode =
  | "malformed_json"
  | "validation_failed"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "method_not_allowed"
  | "payload_too_large"
  | "unsupported_media_type"
  | "rate_limited"
  | "service_unavailable"
  | "internal";

/** The JSON body of every non-2xx response. */
export interface ErrorBody {
  code: ErrorCode;
  /** A human sentence; never contains a key value or the X-API-KEY value. */
  message: string;
  /** The offending input, such as `query.limit` or `body.permissions.send[2]`. */
  field?: string;
}

/**
 * A failure that maps to one HTTP error response. Handlers throw it; the pipeline turns it into JSON,
 * so no handler has to know how errors are written.
 */
export class ApiError extends Error {
  override readonly name = "ApiError";

  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }

  /** The response body for this error. */
  toBody(): ErrorBody {
    return this.field === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, field: this.field };
  }
}

/** A 400 `validation_failed` naming the field; the message starts with the field so it reads on its own. */
export function invalid(field: string, problem: string): ApiError {
  return new ApiError(400, "validation_failed", `${field} ${problem}`, field);
}

/*
 * Which status a failed request gets (our choice, written in openapi.yaml and docs/decisions.md):
 * 400 when the request breaks the contract's schema; 404 when it is well-formed but names an object
 * that does not exist, in the path or in the body; 409 when every object it names exists but their
 * current state forbids the operation. A schema-valid request is therefore never answered 400.
 */

/** A 404 `not_found` with the given sentence, naming the input that named the missing object, if any. */
export function notFound(message: string, field?: string): ApiError {
  return new ApiError(404, "not_found", message, field);
}

/** A 409 `conflict`: the object that `field` names exists, but its state forbids the operation. */
export function conflict(field: string, problem: string): ApiError {
  return new ApiError(409, "conflict", `${field} ${problem}`, field);
}
