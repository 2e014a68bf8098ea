/**
 * The rules for the client's numeric options, in one place: the client checks its options with
 * them, and the connection settings (`src/connection.ts`) check values read from stack config.
 */

/** The numeric options of a client and the smallest value each accepts. */
export const COUNT_OPTIONS = {
  timeoutMs: 1,
  maxRetries: 0,
  maxRetryTimeMs: 0,
  maxConcurrency: 1,
  rateLimitTimeoutSeconds: 0,
  readStalenessMs: 0,
} as const satisfies Record<string, 0 | 1>;

/** The name of a numeric client option. */
export type CountOption = keyof typeof COUNT_OPTIONS;

/** What a valid value of the option is, for messages: "a positive integer". */
export function countRule(name: CountOption): string {
  return COUNT_OPTIONS[name] === 0 ? "a non-negative integer" : "a positive integer";
}

/** Whether `value` is valid for the option: a safe integer no smaller than its minimum. */
export function isValidCount(name: CountOption, value: number): boolean {
  return Number.isSafeInteger(value) && value >= COUNT_OPTIONS[name];
}

/** The rule of a request quota such as `maxRequestsPerSecond`, for messages. */
export const RATE_RULE = "a positive number";

/** Whether `value` is a valid request quota: a finite number above 0 (fractions allowed: 0.5 is one request every 2 s). */
export function isValidRate(value: number): boolean {
  return Number.isFinite(value) && value > 0;
}
