/**
 * The connection settings: where the broker client's base URL, API key and limits come from.
 * Explicit values first, then stack config (`broker:*`), then the environment (`BROKER_BASE_URL`,
 * `BROKER_API_KEY`); else one clear error naming every missing setting and both ways to set each.
 *
 * This module reads nothing by itself and knows nothing of Pulumi: the caller passes a
 * {@link ConfigSource} (a provider's `configure` request, or `pulumi.Config`) and the environment.
 * The Pulumi providers use {@link resolveConnection}; the `broker-config` CLI, which has flags and
 * no stack, uses {@link resolveSettings} with its own names.
 */
import { normalizeBaseUrl } from "../client/base-url";
import { BrokerSettingsError } from "../client/errors";
import { countRule, isValidCount, isValidRate, RATE_RULE } from "../client/options";
import { redactSecrets } from "../client/redact";
import type { SettingNames } from "../client/setting-names";
import { CONFIG_KEYS, ENV_VARS, SETTINGS, type RequiredSetting, type SettingName } from "./declarations";

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
  /** How long one call may wait on the rate limit, in seconds; the client's default when absent. */
  rateLimitTimeoutSeconds?: number;
  /** The broker's known request quota; when absent, the client learns the pace from 429s. */
  maxRequestsPerSecond?: number;
}

/** Reads one namespaced stack config value, such as `broker:baseUrl`; `undefined` when unset. */
export type ConfigSource = (key: string) => string | undefined;

export type { RequiredSetting } from "./declarations";

/** The integer settings, read from explicit values or stack config only. */
type CountSetting = "timeoutMs" | "maxRetries" | "maxConcurrency" | "rateLimitTimeoutSeconds";

// The stack config keys and environment variables come from the settings' one declaration.
export { CONFIG_KEYS, ENV_VARS } from "./declarations";

/**
 * How the Pulumi providers name the settings in the client's error messages, such as
 * `check that broker:apiKey (or BROKER_API_KEY) holds an ACCOUNT access key`.
 */
export const STACK_SETTING_NAMES: SettingNames = Object.fromEntries(
  SETTINGS.map((s) => [s.name, "env" in s ? `broker:${s.name} (or ${s.env})` : `broker:${s.name}`]),
) as Record<SettingName, string>;

/**
 * The message for missing required settings when they are set through stack config or the
 * environment: one message for all of them, naming both ways to set each.
 */
export function stackMissingMessage(missing: readonly RequiredSetting[]): string {
  const setBaseUrl = `\`pulumi config set ${CONFIG_KEYS.baseUrl} https://…/v1\` or the ${ENV_VARS.baseUrl} environment variable`;
  const setApiKey = `\`pulumi config set --secret ${CONFIG_KEYS.apiKey} <key>\` or the ${ENV_VARS.apiKey} environment variable`;
  if (missing.length > 1)
    return `No broker API base URL and no API key: set the base URL with ${setBaseUrl}, and an ACCOUNT access key with ${setApiKey}`;
  return missing[0] === "baseUrl"
    ? `No broker API base URL: set it with ${setBaseUrl}`
    : `No broker API key: set an ACCOUNT access key with ${setApiKey}`;
}

/** Where {@link resolveSettings} looks, and how it names what it found and what is missing. */
export interface SettingSources {
  /** Values given in code or on the command line; they override everything else. */
  explicit?: Partial<ConnectionSettings>;
  /**
   * How an explicit value is named in messages, per setting, such as `--base-url`.
   * @default "the <setting> option"
   */
  explicitNames?: Partial<Record<RequiredSetting | "maxRequestsPerSecond", string>>;
  /** Reads stack config; none when the caller has no stack (the CLI). */
  stackConfig?: ConfigSource | undefined;
  /** The environment. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** The environment variables of the base URL, the API key and the quota. @default ENV_VARS */
  envVars?: Partial<Record<RequiredSetting | "maxRequestsPerSecond", string>>;
  /** The message when required settings are missing. @default stackMissingMessage */
  missingMessage?: (missing: readonly RequiredSetting[]) => string;
}

/** A value and where it came from, for error messages. */
interface Found {
  value: string;
  source: string;
}

/** Empty values count as unset: `pulumi config set broker:baseUrl ""` must not hide the env var. */
function present(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

function lookup(setting: RequiredSetting, sources: SettingSources): Found | undefined {
  const fromExplicit = present(sources.explicit?.[setting]);
  if (fromExplicit !== undefined)
    return { value: fromExplicit, source: sources.explicitNames?.[setting] ?? `the ${setting} option` };
  const configKey = CONFIG_KEYS[setting];
  const fromStack = present(sources.stackConfig?.(configKey));
  if (fromStack !== undefined) return { value: fromStack, source: configKey };
  const envVar = sources.envVars?.[setting] ?? ENV_VARS[setting];
  const fromEnv = present((sources.env ?? process.env)[envVar]);
  if (fromEnv !== undefined) return { value: fromEnv, source: `the ${envVar} environment variable` };
  return undefined;
}

/** A count setting, checked with the client's own rule for that option. */
function count(name: CountSetting, sources: SettingSources): number | undefined {
  const explicit = sources.explicit?.[name];
  if (explicit !== undefined) {
    if (isValidCount(name, explicit)) return explicit;
    throw new BrokerSettingsError(
      "BROKER_SETTINGS_INVALID",
      `Invalid ${name} option ${explicit}: it must be ${countRule(name)}`,
    );
  }
  const text = present(sources.stackConfig?.(CONFIG_KEYS[name]));
  if (text === undefined) return undefined;
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (isValidCount(name, value)) return value;
  throw new BrokerSettingsError(
    "BROKER_SETTINGS_INVALID",
    `Invalid ${CONFIG_KEYS[name]} "${text}": it must be ${countRule(name)}; fix it with \`pulumi config set ${CONFIG_KEYS[name]} <number>\``,
  );
}

/** The known quota: a positive number, explicit, from stack config, or from the environment. */
function quota(sources: SettingSources): number | undefined {
  const explicit = sources.explicit?.maxRequestsPerSecond;
  const name = sources.explicitNames?.maxRequestsPerSecond ?? "maxRequestsPerSecond option";
  if (explicit !== undefined) {
    if (isValidRate(explicit)) return explicit;
    throw new BrokerSettingsError(
      "BROKER_SETTINGS_INVALID",
      `Invalid ${name} ${explicit}: it must be ${RATE_RULE}`,
    );
  }
  const key = CONFIG_KEYS.maxRequestsPerSecond;
  const envVar = sources.envVars?.maxRequestsPerSecond ?? ENV_VARS.maxRequestsPerSecond;
  const fromStack = present(sources.stackConfig?.(key));
  const text = fromStack ?? present((sources.env ?? process.env)[envVar]);
  if (text === undefined) return undefined;
  const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
  if (isValidRate(value)) return value;
  const where = fromStack === undefined ? envVar : key;
  throw new BrokerSettingsError(
    "BROKER_SETTINGS_INVALID",
    `Invalid ${where} "${text}": it must be ${RATE_RULE} (requests per second, such as 20 or 0.5)`,
  );
}

/** Every candidate API key value, so that no message can echo one, whichever setting it sits in. */
function apiKeyCandidates(sources: SettingSources): string[] {
  const envVar = sources.envVars?.apiKey ?? ENV_VARS.apiKey;
  return [
    sources.explicit?.apiKey,
    sources.stackConfig?.(CONFIG_KEYS.apiKey),
    (sources.env ?? process.env)[envVar],
  ]
    .map(present)
    .filter((v): v is string => v !== undefined);
}

function resolve(sources: SettingSources): ConnectionSettings {
  const baseUrl = lookup("baseUrl", sources);
  const apiKey = lookup("apiKey", sources);
  if (baseUrl === undefined || apiKey === undefined) {
    // Every missing setting at once: fixing one only to learn about the next wastes a run.
    const missing: RequiredSetting[] = [];
    if (baseUrl === undefined) missing.push("baseUrl");
    if (apiKey === undefined) missing.push("apiKey");
    const message = (sources.missingMessage ?? stackMissingMessage)(missing);
    throw new BrokerSettingsError("BROKER_SETTINGS_MISSING", message);
  }
  // A header value cannot hold these; undici would refuse the request with a confusing error.
  // eslint-disable-next-line no-control-regex
  if (/[\s\x00-\x1f\x7f]/.test(apiKey.value)) {
    throw new BrokerSettingsError(
      "BROKER_SETTINGS_INVALID",
      `Invalid broker API key in ${apiKey.source}: it contains whitespace or control characters; copy the key again`,
    );
  }
  // Where the key belongs instead of in the URL: a caller without a stack (the CLI) names its variable.
  const apiKeyName =
    sources.stackConfig === undefined && sources.envVars?.apiKey !== undefined
      ? sources.envVars.apiKey
      : CONFIG_KEYS.apiKey;
  const settings: ConnectionSettings = {
    baseUrl: normalizeBaseUrl(baseUrl.value, baseUrl.source, apiKeyName),
    apiKey: apiKey.value,
  };
  const timeoutMs = count("timeoutMs", sources);
  if (timeoutMs !== undefined) settings.timeoutMs = timeoutMs;
  const maxRetries = count("maxRetries", sources);
  if (maxRetries !== undefined) settings.maxRetries = maxRetries;
  const maxConcurrency = count("maxConcurrency", sources);
  if (maxConcurrency !== undefined) settings.maxConcurrency = maxConcurrency;
  const rateLimitTimeoutSeconds = count("rateLimitTimeoutSeconds", sources);
  if (rateLimitTimeoutSeconds !== undefined) settings.rateLimitTimeoutSeconds = rateLimitTimeoutSeconds;
  const maxRequestsPerSecond = quota(sources);
  if (maxRequestsPerSecond !== undefined) settings.maxRequestsPerSecond = maxRequestsPerSecond;
  return settings;
}

/**
 * Resolves and validates the connection settings from the given sources; see
 * {@link resolveConnection} for the rules. For callers with their own names, such as a CLI whose
 * base URL comes from `--base-url` and whose key comes from a variable of the user's choice.
 *
 * @throws BrokerSettingsError `BROKER_SETTINGS_MISSING` naming every missing setting and how to set
 *   it, or `BROKER_SETTINGS_INVALID` saying what is wrong. No message contains the API key.
 */
export function resolveSettings(sources: SettingSources): ConnectionSettings {
  try {
    return resolve(sources);
  } catch (error) {
    // Belt and braces: a key pasted into the wrong setting (say broker:baseUrl) must not be echoed.
    if (error instanceof BrokerSettingsError) {
      const message = redactSecrets(error.message, apiKeyCandidates(sources));
      const code = error.code === "BROKER_SETTINGS_MISSING" ? error.code : "BROKER_SETTINGS_INVALID";
      if (message !== error.message) throw new BrokerSettingsError(code, message);
    }
    throw error;
  }
}

/**
 * Resolves the connection settings. Explicit options win, then stack config (`broker:baseUrl`,
 * `broker:apiKey`, `broker:timeoutMs`, `broker:maxRetries`, `broker:maxConcurrency`,
 * `broker:rateLimitTimeoutSeconds`, `broker:maxRequestsPerSecond`), then the environment
 * (`BROKER_BASE_URL`, `BROKER_API_KEY`, `BROKER_MAX_REQUESTS_PER_SECOND`). Empty values count as unset.
 *
 * Validates that the base URL is http(s) and ends in `/v1` (a trailing slash is dropped), that
 * `timeoutMs` and `maxConcurrency` are positive integers, `maxRetries` and
 * `rateLimitTimeoutSeconds` non-negative ones, and `maxRequestsPerSecond` a positive number.
 *
 * @param explicit Settings given in code; they override everything else.
 * @param stackConfig Reads stack config, e.g. `(key) => request.config.get(key)` in `configure`.
 * @param env The environment. @default process.env
 * @throws BrokerSettingsError `BROKER_SETTINGS_MISSING` naming every missing setting with its config
 *   key and environment variable, or `BROKER_SETTINGS_INVALID` saying what is wrong. No message
 *   contains the API key.
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
  return resolveSettings({ explicit, stackConfig, env });
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
  const found = lookup("baseUrl", { stackConfig, env });
  if (found === undefined) return undefined;
  try {
    return normalizeBaseUrl(found.value, found.source);
  } catch {
    return undefined;
  }
}
