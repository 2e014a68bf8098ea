/**
 * How the client's caller names the settings behind the client's options, for the "what to do"
 * part of error messages. The client knows nothing of where settings come from: the Pulumi
 * providers pass `broker:apiKey (or BROKER_API_KEY)`, the `broker-config` CLI its flags and
 * environment variables, and a program using the client directly gets neutral names.
 */

/** The name to show for each setting in error messages, such as `broker:apiKey (or BROKER_API_KEY)`. */
export interface SettingNames {
  /** Where the API base URL is set. @default "the API base URL" */
  readonly baseUrl: string;
  /** Where the API key is set. @default "the API key" */
  readonly apiKey: string;
  /** Where the per-attempt timeout is set. @default "the timeoutMs option" */
  readonly timeoutMs: string;
  /** Where the number of retries is set. @default "the maxRetries option" */
  readonly maxRetries: string;
  /** Where the number of requests in flight is set. @default "the maxConcurrency option" */
  readonly maxConcurrency: string;
  /** Where the time budget for waiting on the rate limit is set. @default "the rateLimitTimeoutSeconds option" */
  readonly rateLimitTimeoutSeconds: string;
  /** Where the known request quota is set. @default "the maxRequestsPerSecond option" */
  readonly maxRequestsPerSecond: string;
}

/** The names a client uses when its caller gives none. */
export const DEFAULT_SETTING_NAMES: SettingNames = {
  baseUrl: "the API base URL",
  apiKey: "the API key",
  timeoutMs: "the timeoutMs option",
  maxRetries: "the maxRetries option",
  maxConcurrency: "the maxConcurrency option",
  rateLimitTimeoutSeconds: "the rateLimitTimeoutSeconds option",
  maxRequestsPerSecond: "the maxRequestsPerSecond option",
};
