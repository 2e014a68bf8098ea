/** Public option and callback types of the emulator. */
import type { RateLimitSpec } from "./control-types";
import type { PermissionsMode } from "./types";

/** One request/response exchange of the `/v1` API, as the {@link EmulatorOptions.inspect} callback sees it. */
export interface EmulatorExchange {
  method: string;
  /** The request path with key values replaced by the template, e.g. `/v1/access-key/{accessKey}/permissions`. */
  path: string;
  /** The route key, e.g. `"POST /access-key/{accessKey}/permissions"`; `undefined` when no route matched. */
  route: string | undefined;
  /** The query parameters (the first value of each). */
  query: Record<string, string>;
  /** The parsed JSON request body; `undefined` when there was none or it did not parse. */
  requestBody: unknown;
  status: number;
  /** The JSON response body. */
  responseBody: unknown;
}

/** Options of {@link startEmulator}. */
export interface EmulatorOptions {
  /** TCP port; 0 picks a free one. @default 0 */
  port?: number;
  /** Interface to listen on. @default "127.0.0.1" */
  host?: string;
  /**
   * SQLite database file to persist to (created when missing, with its directory, readable by the
   * owner only: it holds key values in plain text); without it everything stays in memory.
   */
  dbFile?: string;
  /**
   * Told about problems that do not stop the emulator, such as a database file others can read.
   * @default a line on stderr
   */
  warn?: (message: string) => void;
  /**
   * Value of the bootstrap ACCOUNT key named `admin`; created when not yet stored. Without it, the key
   * stored in `dbFile` is reused, or a new one generated.
   */
  adminKey?: string;
  /** Serve the test controls under `/_emulator` (without them those paths are 404). @default false */
  controls?: boolean;
  /** How permission updates combine with stored permissions. @default "replace" */
  permissionsMode?: PermissionsMode;
  /**
   * Limit `/v1` requests to `requestsPerSecond` in any one-second window, per API key or overall;
   * the rest are answered 429 `rate_limited` with `Retry-After`. The controls can change it at run time.
   * @default no limit
   */
  rateLimit?: RateLimitSpec;
  /**
   * The monotonic clock, in milliseconds, the rate limit counts with. For tests that must not depend
   * on real time. @default performance.now
   */
  clock?: () => number;
  /**
   * Called after every `/v1` exchange that got a response (not for `reset` faults), e.g. to validate
   * requests and responses against `openapi.yaml`. An exception it throws is reported on stderr.
   */
  inspect?: (exchange: EmulatorExchange) => void;
}
