/**
 * The one table of network error codes (failures without an HTTP response). The retry policy
 * (`retry.ts`) and the error messages (`error-mapping.ts`) both read it, so a code is classified
 * once: whether the request may have reached the server, whether another attempt may succeed, and
 * what the user should be told went wrong.
 */

/** What went wrong, as the error message tells it. */
export type NetworkFailureKind =
  /** The connection could not be opened (refused, unknown host, unreachable network). */
  | "connect"
  /** The connection was not opened within the timeout. */
  | "connect-timeout"
  /** The connection was open but no (complete) response came within the timeout. */
  | "response-timeout"
  /** A connection that was made was then dropped: the address is right, the network or server is not. */
  | "dropped"
  /** Anything else. */
  | "other";

/** How one network error code is treated. */
export interface NetworkErrorTraits {
  /**
   * Whether the request may have reached the server. `false` only when the failure happened before
   * anything was sent, so even a create may be sent again.
   */
  readonly maybeSent: boolean;
  /** Whether the failure may go away by itself, so another attempt is worth it (when repeating is safe). */
  readonly transient: boolean;
  /** What the error message says happened. */
  readonly kind: NetworkFailureKind;
}

/**
 * Every network error code the client knows, from Node (`ECONNREFUSED`) and undici (`UND_ERR_*`).
 * A code that is not listed is treated as {@link UNKNOWN_NETWORK_ERROR}.
 */
export const NETWORK_ERRORS: Readonly<Record<string, NetworkErrorTraits>> = {
  // Refused: nothing listens (yet); a restarting server comes back.
  ECONNREFUSED: { maybeSent: false, transient: true, kind: "connect" },
  // A typo in the host name will not fix itself.
  ENOTFOUND: { maybeSent: false, transient: false, kind: "connect" },
  // A DNS hiccup.
  EAI_AGAIN: { maybeSent: false, transient: true, kind: "connect" },
  EHOSTUNREACH: { maybeSent: false, transient: false, kind: "connect" },
  ENETUNREACH: { maybeSent: false, transient: false, kind: "connect" },
  EADDRNOTAVAIL: { maybeSent: false, transient: false, kind: "connect" },
  UND_ERR_CONNECT_TIMEOUT: { maybeSent: false, transient: true, kind: "connect-timeout" },
  // undici refused the request itself (e.g. a header value with a newline): nothing was sent.
  UND_ERR_INVALID_ARG: { maybeSent: false, transient: false, kind: "other" },
  ECONNRESET: { maybeSent: true, transient: true, kind: "dropped" },
  EPIPE: { maybeSent: true, transient: true, kind: "dropped" },
  UND_ERR_SOCKET: { maybeSent: true, transient: true, kind: "dropped" },
  // The client's own pool was closed under the request: another attempt would fail the same way.
  UND_ERR_CLOSED: { maybeSent: true, transient: false, kind: "dropped" },
  ETIMEDOUT: { maybeSent: true, transient: true, kind: "response-timeout" },
  UND_ERR_HEADERS_TIMEOUT: { maybeSent: true, transient: true, kind: "response-timeout" },
  UND_ERR_BODY_TIMEOUT: { maybeSent: true, transient: true, kind: "response-timeout" },
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: { maybeSent: true, transient: true, kind: "other" },
};

/** The traits of a code missing from {@link NETWORK_ERRORS}: assume the worst, retry nothing. */
export const UNKNOWN_NETWORK_ERROR: NetworkErrorTraits = { maybeSent: true, transient: false, kind: "other" };

/** The traits of a network error code. */
export function networkErrorTraits(code: string): NetworkErrorTraits {
  // `hasOwn`: a code such as "toString" must not find Object.prototype's members.
  return (Object.hasOwn(NETWORK_ERRORS, code) ? NETWORK_ERRORS[code] : undefined) ?? UNKNOWN_NETWORK_ERROR;
}

/** Whether the code is reported as `BROKER_TIMEOUT` (rather than `BROKER_CONNECTION_FAILED`). */
export function isTimeoutCode(code: string): boolean {
  const { kind } = networkErrorTraits(code);
  return kind === "connect-timeout" || kind === "response-timeout";
}
