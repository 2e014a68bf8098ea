/**
 * The typed HTTP client of the broker configuration API, over undici.
 *
 * @example
 * ```ts
 * const client = getBrokerClient({ baseUrl: "https://broker.example.com/v1", apiKey });
 * const workspace = await client.createWorkspaceAndFind({ name: "orders" });
 * ```
 */
export { BrokerClient, getBrokerClient, type BrokerClientOptions } from "./client";
export { DEFAULT_SETTING_NAMES, type SettingNames } from "./setting-names";
export { NETWORK_ERRORS, type NetworkErrorTraits, type NetworkFailureKind } from "./network-errors";
export {
  createdAccessKeyOf,
  type FindCreatedOptions,
  type FoundAccessKey,
  type FoundCreated,
} from "./create-once";
export type {
  CreateOnceApi,
  CreateOnceBudget,
  CreateOnceClaims,
  CreateOnceLists,
  CreatedAccessKeyOnce,
} from "./create-once";
export type { RateLimitWaitEvent, RetryEvent } from "./notices";
export {
  CLOCK_SKEW_MARGIN_MS,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_RETRY_TIME_MS,
  DEFAULT_PAGE_SIZE,
  DEFAULT_RATE_LIMIT_TIMEOUT_SECONDS,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_USER_AGENT,
  PACKAGE_VERSION,
  RETRY_BASE_DELAY_MS,
  RETRY_MAX_DELAY_MS,
} from "./constants";
export * from "./errors";
export * from "./redact";
export * from "./types";
