/**
 * Where the broker connection settings come from: explicit options, then stack config
 * (`broker:*`), then the environment (`BROKER_BASE_URL`, `BROKER_API_KEY`); else a clear error naming
 * both the config key and the environment variable.
 *
 * This module reads nothing by itself and knows nothing of Pulumi: the caller passes a
 * {@link ConfigSource} (a provider's `configure` request, or `pulumi.Config`) and the environment.
 */
import { normalizeBaseUrl } from "./client/base-url";
import { BrokerConfigError } from "./client/errors";
import { redactSecrets } from "./client/redact";

/** The settings a broker client needs. */
export interface ConnectionSettings {
  /** The API base URL, normalised: http(s), ending in `/v1`, no trailing slash. */
  baseUrl: string;
  /** An ACCOUNT access key. */
  apiKey: string;
  /** Per-attempt timeout in milliseconds; the client's default when absent. */
  timeoutMs?: number;
  /** Retries after the first attempt; the client's default when absent. */
  maxRetries?: number;
  /** Requests in flight at once; the client's default when absent. */
  maxConcurrency?: number;
}

/** Reads one namespaced stack config value, such as `broker:baseUrl`; `undefined` when unset. */
export type ConfigSource = (key: string) => string | undefined;

/** The stack config keys of each setting. */
export const CONFIG_KEYS = {
  baseUrl: "broker:baseUrl",
  apiKey: "broker:apiKey",
  timeoutMs: "broker:timeoutMs",
  maxRetries: "broker:maxRetries",
  maxConcurrency: "broker:maxConcurrency",
} as const;

/** The environment variables consulted when stack config does not set a value. */
export const ENV_VARS = {
  baseUrl: "BROKER_BASE_URL",
  apiKey: "BROKER_API_KEY",
} as const;

/** A value and where it came from, for error messages. */
interface Found {
  value: string;
  source: string;
}

/** Empty values count as unset: `pulumi config set broker:baseUrl ""` must not hide the env var. */
function present(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

function lookup(
  explicit: string | undefined,
  explicitName: string,
  configKey: string,
  envVar: string | undefined,
  stackConfig: ConfigSource | undefined,
  env: NodeJS.ProcessEnv,
): Found | undefined {
  const fromExplicit = present(explicit);
  if (fromExplicit !== undefined) return { value: fromExplicit, source: `the ${explicitName} option` };
  const fromStack = present(stackConfig?.(configKey));
  if (fromStack !== undefined) return { value: fromStack, source: configKey };
  const fromEnv = envVar === undefined ? undefined : present(env[envVar]);
  if (fromEnv !== undefined && envVar !== undefined)
    return { value: fromEnv, source: `the ${envVar} environment variable` };
  return undefined;
}

/** A count setting: a positive integer (`min` 1), or a non-negative one (`min` 0, for retries). */
function count(
  explicit: number | undefined,
  name: "timeoutMs" | "maxRetries" | "maxConcurrency",
  min: 0 | 1,
  stackConfig: ConfigSource | undefined,
): number | undefined {
  const what = min === 0 ? "a non-negative integer" : "a positive integer";
  if (explicit !== undefined) {
    if (Number.isSafeInteger(explicit) && explicit >= min) return explicit;
    throw new BrokerConfigError(
      "BROKER_CONFIG_INVALID",
      `Invalid ${name} option ${explicit}: it must be ${what}`,
    );
  }
  const text = present(stackConfig?.(CONFIG_KEYS[name]));
  if (text === undefined) return undefined;
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (Number.isSafeInteger(value) && value >= min) return value;
  throw new BrokerConfigError(
    "BROKER_CONFIG_INVALID",
    `Invalid ${CONFIG_KEYS[name]} "${text}": it must be ${what}; fix it with \`pulumi config set ${CONFIG_KEYS[name]} <number>\``,
  );
}

/** Every candidate API key value, so that no message can echo one, whichever setting it sits in. */
function apiKeyCandidates(
  explicit: Partial<ConnectionSettings>,
  stackConfig: ConfigSource | undefined,
  env: NodeJS.ProcessEnv,
): string[] {
  return [explicit.apiKey, stackConfig?.(CONFIG_KEYS.apiKey), env[ENV_VARS.apiKey]]
    .map(present)
    .filter((v): v is string => v !== undefined);
}

function resolve(
  explicit: Partial<ConnectionSettings>,
  stackConfig: ConfigSource | undefined,
  env: NodeJS.ProcessEnv,
): ConnectionSettings {
  const baseUrl = lookup(
    explicit.baseUrl,
    "baseUrl",
    CONFIG_KEYS.baseUrl,
    ENV_VARS.baseUrl,
    stackConfig,
    env,
  );
  if (baseUrl === undefined) {
    throw new BrokerConfigError(
      "BROKER_CONFIG_MISSING",
      `No broker API base URL: set it with \`pulumi config set ${CONFIG_KEYS.baseUrl} https://…/v1\` or the ${ENV_VARS.baseUrl} environment variable`,
    );
  }
  const apiKey = lookup(explicit.apiKey, "apiKey", CONFIG_KEYS.apiKey, ENV_VARS.apiKey, stackConfig, env);
  if (apiKey === undefined) {
    throw new BrokerConfigError(
      "BROKER_CONFIG_MISSING",
      `No broker API key: set an ACCOUNT access key with \`pulumi config set --secret ${CONFIG_KEYS.apiKey} <key>\` or the ${ENV_VARS.apiKey} environment variable`,
    );
  }
  // A header value cannot hold these; undici would refuse the request with a confusing error.
  // eslint-disable-next-line no-control-regex
  if (/[\s\x00-\x1f\x7f]/.test(apiKey.value)) {
    throw new BrokerConfigError(
      "BROKER_CONFIG_INVALID",
      `Invalid broker API key in ${apiKey.source}: it contains whitespace or control characters; copy the key again`,
    );
  }
  const settings: ConnectionSettings = {
    baseUrl: normalizeBaseUrl(baseUrl.value, baseUrl.source),
    apiKey: apiKey.value,
  };
  const timeoutMs = count(explicit.timeoutMs, "timeoutMs", 1, stackConfig);
  if (timeoutMs !== undefined) settings.timeoutMs = timeoutMs;
  const maxRetries = count(explicit.maxRetries, "maxRetries", 0, stackConfig);
  if (maxRetries !== undefined) settings.maxRetries = maxRetries;
  const maxConcurrency = count(explicit.maxConcurrency, "maxConcurrency", 1, stackConfig);
  if (maxConcurrency !== undefined) settings.maxConcurrency = maxConcurrency;
  return settings;
}

/**
 * Resolves the connection settings. Explicit options win, then stack config (`broker:baseUrl`,
 * `broker:apiKey`, `broker:timeoutMs`, `broker:maxRetries`, `broker:maxConcurrency`), then the
 * environment (`BROKER_BASE_URL`, `BROKER_API_KEY`). Empty values count as unset.
 *
 * Validates that the base URL is http(s) and ends in `/v1` (a trailing slash is dropped), that
 * `timeoutMs` and `maxConcurrency` are positive integers and `maxRetries` a non-negative one.
 *
 * @param explicit Settings given in code; they override everything else.
 * @param stackConfig Reads stack config, e.g. `(key) => request.config.get(key)` in `configure`.
 * @param env The environment. @default process.env
 * @throws BrokerConfigError `BROKER_CONFIG_MISSING` naming the config key and environment variable
 *   to set, or `BROKER_CONFIG_INVALID` saying what is wrong. No message contains the API key.
 *
 * @example
 * ```ts
 * const broker = new pulumi.Config("broker");
 * const settings = resolveConnection(undefined, (key) => broker.get(key.slice("broker:".length)));
 * ```
 */
export function resolveConnection(
  explicit: Partial<ConnectionSettings> = {},
  stackConfig?: ConfigSource,
  env: NodeJS.ProcessEnv = process.env,
): ConnectionSettings {
  try {
    return resolve(explicit, stackConfig, env);
  } catch (error) {
    // Belt and braces: a key pasted into the wrong setting (say broker:baseUrl) must not be echoed.
    if (error instanceof BrokerConfigError) {
      const secrets = apiKeyCandidates(explicit, stackConfig, env);
      const message = redactSecrets(error.message, secrets);
      const code = error.code === "BROKER_CONFIG_MISSING" ? "BROKER_CONFIG_MISSING" : "BROKER_CONFIG_INVALID";
      if (message !== error.message) throw new BrokerConfigError(code, message);
    }
    throw error;
  }
}

/**
 * The base URL the settings point at, normalised, or `undefined` when none is set or it is invalid.
 * Never throws and needs no API key: `pulumi preview` uses it to compare with the endpoint a
 * resource was created at, even without credentials.
 *
 * @param stackConfig Reads stack config, as for {@link resolveConnection}.
 * @param env The environment. @default process.env
 */
export function configuredBaseUrl(
  stackConfig?: ConfigSource,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const found = lookup(undefined, "baseUrl", CONFIG_KEYS.baseUrl, ENV_VARS.baseUrl, stackConfig, env);
  if (found === undefined) return undefined;
  try {
    return normalizeBaseUrl(found.value, found.source);
  } catch {
    return undefined;
  }
}
