/**
 * The rules for the client's numeric options, in one place: the client checks its options with
 * them and fills their defaults, and the connection settings (`src/settings/connection.ts`) check
 * values read from stack config.
 */
import {
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_RETRY_TIME_MS,
  DEFAULT_RATE_LIMIT_TIMEOUT_SECONDS,
  DEFAULT_READ_STALENESS_MS,
  DEFAULT_TIMEOUT_MS,
} from "./constants";
import { BrokerSettingsError } from "./errors";

/** The integer options of a client: the smallest value each accepts, and its default. */
export const COUNT_OPTIONS = {
  timeoutMs: { min: 1, default: DEFAULT_TIMEOUT_MS },
  maxRetries: { min: 0, default: DEFAULT_MAX_RETRIES },
  maxRetryTimeMs: { min: 0, default: DEFAULT_MAX_RETRY_TIME_MS },
  maxConcurrency: { min: 1, default: DEFAULT_MAX_CONCURRENCY },
  rateLimitTimeoutSeconds: { min: 0, default: DEFAULT_RATE_LIMIT_TIMEOUT_SECONDS },
  readStalenessMs: { min: 0, default: DEFAULT_READ_STALENESS_MS },
} as const satisfies Record<string, { min: 0 | 1; default: number }>;

/** The name of a numeric client option. */
export type CountOption = keyof typeof COUNT_OPTIONS;

/** What a valid value of the option is, for messages: "a positive integer". */
export function countRule(name: CountOption): string {
  return COUNT_OPTIONS[name].min === 0 ? "a non-negative integer" : "a positive integer";
}

/** Whether `value` is valid for the option: a safe integer no smaller than its minimum. */
export function isValidCount(name: CountOption, value: number): boolean {
  return Number.isSafeInteger(value) && value >= COUNT_OPTIONS[name].min;
}

/** The rule of a request quota such as `maxRequestsPerSecond`, for messages. */
export const RATE_RULE = "a positive number";

/** Whether `value` is a valid request quota: a finite number above 0 (fractions allowed: 0.5 is one request every 2 s). */
export function isValidRate(value: number): boolean {
  return Number.isFinite(value) && value > 0;
}

/** The numeric options of a client as it uses them: every count checked and defaulted. */
export type ResolvedCounts = { readonly [O in CountOption]: number } & {
  readonly maxRequestsPerSecond: number | undefined;
};

/**
 * Checks the client's numeric options and fills in the defaults of those left out.
 *
 * @throws BrokerSettingsError `BROKER_SETTINGS_INVALID` naming the first invalid option.
 */
export function resolveCounts(options: {
  readonly [O in CountOption | "maxRequestsPerSecond"]?: number | undefined;
}): ResolvedCounts {
  const invalid = (name: string, value: number, rule: string): BrokerSettingsError =>
    new BrokerSettingsError(
      "BROKER_SETTINGS_INVALID",
      `Invalid broker client option ${name}: ${value} is not ${rule}`,
    );
  const counts: Partial<Record<CountOption, number>> = {};
  for (const name of Object.keys(COUNT_OPTIONS) as CountOption[]) {
    const value = options[name];
    if (value !== undefined && !isValidCount(name, value)) throw invalid(name, value, countRule(name));
    counts[name] = value ?? COUNT_OPTIONS[name].default;
  }
  const quota = options.maxRequestsPerSecond;
  if (quota !== undefined && !isValidRate(quota)) throw invalid("maxRequestsPerSecond", quota, RATE_RULE);
  return { ...(counts as Record<CountOption, number>), maxRequestsPerSecond: quota };
}
