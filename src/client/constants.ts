/** Named defaults of the broker client. Each is documented where the option that uses it is. */

/** Connect, response-headers and response-body timeout of one attempt, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** Retries after the first attempt of one call. */
export const DEFAULT_MAX_RETRIES = 4;

/** Total time budget for retrying one call, in milliseconds. */
export const DEFAULT_MAX_RETRY_TIME_MS = 60_000;

/** How long one call may wait on the broker's rate limit (429s), in seconds. */
export const DEFAULT_RATE_LIMIT_TIMEOUT_SECONDS = 300;

/**
 * How old, in milliseconds, a page of a list may be when it answers a read of one of its records:
 * sent at most this long before the read began (never before this process's own last write of the
 * record). Chosen from the bench (docs/decisions.md, "Pages or single reads").
 */
export const DEFAULT_READ_STALENESS_MS = 2_000;

/** Requests in flight per client (connections of its undici `Pool`). */
export const DEFAULT_MAX_CONCURRENCY = 8;

/** First backoff step for exponential backoff with full jitter, in milliseconds. */
export const RETRY_BASE_DELAY_MS = 200;

/** Largest backoff step, in milliseconds. */
export const RETRY_MAX_DELAY_MS = 5_000;

/** Page size of list operations when none is given; also the largest the API accepts. */
export const DEFAULT_PAGE_SIZE = 100;

/**
 * How far the broker's clock may be behind ours when recovering an object whose create response
 * was lost: the model's rule (`src/model/created-by.ts`), re-exported where the client's numbers are.
 */
export { CLOCK_SKEW_MARGIN_MS } from "../model/created-by";

/** The package version, read from package.json (the same relative path from `src/` and `dist/`). */
export const PACKAGE_VERSION: string = readVersion();

/** The `User-Agent` header sent when none is configured. */
export const DEFAULT_USER_AGENT = `pulumi-broker-config/${PACKAGE_VERSION}`;

function readVersion(): string {
  try {
    const pkg = require("../../package.json") as unknown;
    const version = (pkg as { version?: unknown }).version;
    return typeof version === "string" ? version : "0.0.0";
  } catch {
    // A bundler may have dropped package.json; the user agent is informational only.
    return "0.0.0";
  }
}
