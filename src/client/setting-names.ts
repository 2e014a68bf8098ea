/**
 * How the client's caller names the client's options in the "what to do" part of error messages.
 * The client knows no setting names of its own callers: the Pulumi providers pass
 * `broker:apiKey (or BROKER_API_KEY)`, the `broker-config` CLI its flags and environment variables,
 * and a program using the client directly gets the neutral names below. The provider settings
 * (`src/settings/declarations.ts`) are checked, where they are declared, to be exactly these options.
 */

/**
 * The client's options that a message may tell the user to set, each with the neutral name a
 * program using the client directly reads: `the API key`, `the API base URL`, else
 * `the <option> option`.
 */
export const DEFAULT_SETTING_NAMES = {
  baseUrl: "the API base URL",
  apiKey: "the API key",
  timeoutMs: "the timeoutMs option",
  maxRetries: "the maxRetries option",
  maxConcurrency: "the maxConcurrency option",
  rateLimitTimeoutSeconds: "the rateLimitTimeoutSeconds option",
  maxRequestsPerSecond: "the maxRequestsPerSecond option",
  readStalenessMs: "the readStalenessMs option",
} as const satisfies { readonly [name: string]: string };

/** The name of a client option that messages may name. */
export type ClientSettingName = keyof typeof DEFAULT_SETTING_NAMES;

/**
 * The name to show for each setting in error messages, such as `broker:apiKey (or BROKER_API_KEY)`;
 * by default (see {@link DEFAULT_SETTING_NAMES}) `the API key`, `the API base URL` or
 * `the <option> option`.
 */
export type SettingNames = { readonly [S in ClientSettingName]: string };
