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
import { countRule, isValidCount, isValidRate, RATE_RULE, type CountOption } from "../client/options";
import { redactSecrets } from "../client/redact";
import type { SettingNames } from "../client/setting-names";
import {
  CONFIG_KEYS,
  ENV_VARS,
  flagOf,
  SETTINGS,
  settingNamed,
  type NumericSetting,
  type SettingDeclaration,
  type RequiredSetting,
  type SettingName,
} from "./declarations";
import {
  missingSettingsMessage,
  settingNamesFor,
  settingPlace,
  STACK_ORIGIN,
  type SettingsOrigin,
} from "./wording";

/**
 * The settings a broker client needs: the base URL (normalised: http(s), ending in `/v1`, no
 * trailing slash) and an ACCOUNT access key, and each numeric setting of {@link SETTINGS} that is
 * set (the client's default applies to the others).
 */
export type ConnectionSettings = Record<RequiredSetting, string> & {
  [S in Exclude<SettingName, RequiredSetting>]?: SettingValue<S>;
};

/** The value of setting `S` once parsed, by its declared type. */
type SettingValue<S extends SettingName> = Extract<
  (typeof SETTINGS)[number],
  { name: S }
>["type"] extends "boolean"
  ? boolean
  : Extract<(typeof SETTINGS)[number], { name: S }>["type"] extends "string"
    ? string
    : number;

/** Reads one namespaced stack config value, such as `broker:baseUrl`; `undefined` when unset. */
export type ConfigSource = (key: string) => string | undefined;

export type { RequiredSetting } from "./declarations";

// The stack config keys and environment variables come from the settings' one declaration.
export { CONFIG_KEYS, ENV_VARS } from "./declarations";

/**
 * How the default provider names the settings in the client's error messages, such as
 * `check that broker:apiKey (or BROKER_API_KEY) holds an ACCOUNT access key`.
 */
export const STACK_SETTING_NAMES: SettingNames = settingNamesFor(STACK_ORIGIN);

/**
 * The message for missing required settings when they are set through stack config or the
 * environment: one message for all of them, naming both ways to set each.
 */
export function stackMissingMessage(missing: readonly RequiredSetting[]): string {
  return missingSettingsMessage(STACK_ORIGIN, missing);
}

/**
 * Where {@link resolveSettings} looks, in this order, and how it names what it found and what is
 * missing: explicit values, the command line, stack config, the environment.
 */
export interface SettingSources {
  /** Values given in code; they override everything else. */
  explicit?: Partial<ConnectionSettings>;
  /**
   * How an explicit value is named in messages, per setting.
   * @default "the <setting> option"
   */
  explicitNames?: Partial<Record<SettingName, string>>;
  /** Values given on a command line, as text; messages name each by its flag (`--base-url`). */
  commandLine?: Partial<Record<SettingName, string>>;
  /**
   * Reads stack config (`broker:<name>`) or, for an explicit provider, its arguments under the
   * same keys; none when the caller has no stack (the CLI).
   */
  stackConfig?: ConfigSource | undefined;
  /** Whose settings `stackConfig` reads, for messages. @default STACK_ORIGIN (stack config) */
  origin?: SettingsOrigin;
  /** The environment. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Environment variables that replace the declared ones, such as another one for the API key. */
  envVars?: Partial<Record<SettingName, string>>;
  /** The message when required settings are missing. @default the message for {@link origin} */
  missingMessage?: (missing: readonly RequiredSetting[]) => string;
}

/** A value given as text, where it came from, and how messages name that place. */
interface Found {
  value: string;
  from: "explicit" | "commandLine" | "stack" | "provider" | "env";
  /** The place alone, such as `broker:timeoutMs` or `BROKER_BASE_URL`. */
  name: string;
  /** The place in a sentence, such as `the BROKER_BASE_URL environment variable`. */
  source: string;
}

/** Empty values count as unset: `pulumi config set broker:baseUrl ""` must not hide the env var. */
function present(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

/** The environment variable of `setting` for these sources, if it has one. */
function envVarOf(setting: SettingName, sources: SettingSources): string | undefined {
  return sources.envVars?.[setting] ?? (ENV_VARS as Partial<Record<SettingName, string>>)[setting];
}

/** The first text value of `setting` among the sources, in their order. */
function find(setting: SettingName, sources: SettingSources): Found | undefined {
  const explicit = sources.explicit?.[setting];
  const fromExplicit = typeof explicit === "string" ? present(explicit) : undefined;
  if (fromExplicit !== undefined) {
    const source = sources.explicitNames?.[setting] ?? `the ${setting} option`;
    return { value: fromExplicit, from: "explicit", name: source, source };
  }
  const fromCommandLine = present(sources.commandLine?.[setting]);
  if (fromCommandLine !== undefined) {
    const flag = flagOf(setting);
    return { value: fromCommandLine, from: "commandLine", name: flag, source: flag };
  }
  const fromStack = present(sources.stackConfig?.(CONFIG_KEYS[setting]));
  if (fromStack !== undefined) {
    const origin = sources.origin ?? STACK_ORIGIN;
    const place = settingPlace(origin, setting);
    return { value: fromStack, from: origin.kind, name: place, source: place };
  }
  const envVar = envVarOf(setting, sources);
  const fromEnv = envVar === undefined ? undefined : present((sources.env ?? process.env)[envVar]);
  if (envVar !== undefined && fromEnv !== undefined)
    return { value: fromEnv, from: "env", name: envVar, source: `the ${envVar} environment variable` };
  return undefined;
}

/** The integer settings are the client's count options, checked by its rule: this fails to compile otherwise. */
function countOption(setting: Extract<(typeof SETTINGS)[number], { type: "integer" }>["name"]): CountOption {
  return setting;
}

/** The client's rule for a numeric setting, in words, such as `a positive integer`. */
function ruleOf(setting: NumericSetting): string {
  const declaration = settingNamed(setting);
  return declaration.type === "integer" ? countRule(countOption(declaration.name)) : RATE_RULE;
}

/** Whether `value` passes the client's rule for `setting`. */
function isValidValue(setting: NumericSetting, value: number): boolean {
  const declaration = settingNamed(setting);
  return declaration.type === "integer"
    ? isValidCount(countOption(declaration.name), value)
    : isValidRate(value);
}

/** A numeric setting's text parsed, or the message saying what is wrong with it. */
function parseNumeric(setting: NumericSetting, found: Found): number | string {
  const declaration = settingNamed(setting);
  const syntax = declaration.type === "integer" ? /^\d+$/u : /^\d+(\.\d+)?$/u;
  const value = syntax.test(found.value) ? Number(found.value) : NaN;
  if (isValidValue(setting, value)) return value;
  const explained =
    "example" in declaration
      ? ` (${declaration.example})`
      : found.from === "stack"
        ? `; fix it with \`pulumi config set ${found.name} <number>\``
        : "";
  return `Invalid ${found.name} "${found.value}": it must be ${ruleOf(setting)}${explained}`;
}

/** A numeric setting, explicit or from the first source that sets it, checked with the client's rule. */
function numeric(setting: NumericSetting, sources: SettingSources): number | undefined {
  const explicit = sources.explicit?.[setting];
  if (explicit !== undefined) {
    if (isValidValue(setting, explicit)) return explicit;
    const name = sources.explicitNames?.[setting] ?? `${setting} option`;
    throw new BrokerSettingsError(
      "BROKER_SETTINGS_INVALID",
      `Invalid ${name} ${explicit}: it must be ${ruleOf(setting)}`,
    );
  }
  const found = find(setting, sources);
  if (found === undefined) return undefined;
  const parsed = parseNumeric(setting, found);
  if (typeof parsed === "string") throw new BrokerSettingsError("BROKER_SETTINGS_INVALID", parsed);
  return parsed;
}

/** The problem with an API key value, or `undefined`. */
function apiKeyProblem(found: Found): string | undefined {
  // A header value cannot hold these; undici would refuse the request with a confusing error.
  // eslint-disable-next-line no-control-regex
  if (!/[\s\x00-\x1f\x7f]/.test(found.value)) return undefined;
  return `Invalid broker API key in ${found.source}: it contains whitespace or control characters; copy the key again`;
}

/** The numeric settings, in declaration order. */
const NUMERIC_SETTINGS: readonly NumericSetting[] = SETTINGS.flatMap((s) =>
  s.type === "integer" || s.type === "number" ? [s.name] : [],
);

// Read through the declaration's wide type: a kind no setting has today narrows to nothing.
const DECLARED: readonly SettingDeclaration[] = SETTINGS;

/** The boolean settings, in declaration order. */
const BOOLEAN_SETTINGS = DECLARED.filter((s) => s.type === "boolean").map((s) => s.name as SettingName);

/** The strings a client can do without, in declaration order: their text as it is set. */
const OPTIONAL_STRING_SETTINGS = DECLARED.filter((s) => s.type === "string" && s.required !== true).map(
  (s) => s.name as SettingName,
);

/** A boolean setting's text parsed (`true` or `false`, any case), or the message saying what is wrong. */
function parseBoolean(found: Found): boolean | string {
  const value = found.value.toLowerCase();
  if (value === "true" || value === "false") return value === "true";
  return `Invalid ${found.name} "${found.value}": it must be true or false`;
}

/** A boolean setting, explicit or from the first source that sets it. */
function flag(setting: SettingName, sources: SettingSources): boolean | undefined {
  const explicit: unknown = (sources.explicit as Partial<Record<string, unknown>> | undefined)?.[setting];
  if (typeof explicit === "boolean") return explicit;
  const found = find(setting, sources);
  if (found === undefined) return undefined;
  const parsed = parseBoolean(found);
  if (typeof parsed === "string") throw new BrokerSettingsError("BROKER_SETTINGS_INVALID", parsed);
  return parsed;
}

/** Every candidate API key value, so that no message can echo one, whichever setting it sits in. */
function apiKeyCandidates(sources: SettingSources): string[] {
  const envVar = envVarOf("apiKey", sources) ?? ENV_VARS.apiKey;
  return [
    sources.explicit?.apiKey,
    sources.stackConfig?.(CONFIG_KEYS.apiKey),
    (sources.env ?? process.env)[envVar],
  ]
    .map(present)
    .filter((v): v is string => v !== undefined);
}

function resolve(sources: SettingSources): ConnectionSettings {
  const baseUrl = find("baseUrl", sources);
  const apiKey = find("apiKey", sources);
  if (baseUrl === undefined || apiKey === undefined) {
    // Every missing setting at once: fixing one only to learn about the next wastes a run.
    const missing: RequiredSetting[] = [];
    if (baseUrl === undefined) missing.push("baseUrl");
    if (apiKey === undefined) missing.push("apiKey");
    const message =
      sources.missingMessage?.(missing) ?? missingSettingsMessage(sources.origin ?? STACK_ORIGIN, missing);
    throw new BrokerSettingsError("BROKER_SETTINGS_MISSING", message);
  }
  const keyProblem = apiKeyProblem(apiKey);
  if (keyProblem !== undefined) throw new BrokerSettingsError("BROKER_SETTINGS_INVALID", keyProblem);
  // Where the key belongs instead of in the URL: a caller without a stack (the CLI) names its variable.
  const apiKeyName =
    sources.stackConfig === undefined && sources.envVars?.apiKey !== undefined
      ? sources.envVars.apiKey
      : settingPlace(sources.origin ?? STACK_ORIGIN, "apiKey");
  const settings: ConnectionSettings = {
    baseUrl: normalizeBaseUrl(baseUrl.value, baseUrl.source, apiKeyName),
    apiKey: apiKey.value,
  };
  const values = settings as Record<SettingName, unknown>;
  for (const setting of NUMERIC_SETTINGS) {
    const value = numeric(setting, sources);
    if (value !== undefined) values[setting] = value;
  }
  for (const setting of BOOLEAN_SETTINGS) {
    const value = flag(setting, sources);
    if (value !== undefined) values[setting] = value;
  }
  for (const setting of OPTIONAL_STRING_SETTINGS) {
    const found = find(setting, sources);
    if (found !== undefined) values[setting] = found.value;
  }
  return settings;
}

/**
 * What is wrong with `text` as the value of the setting `name` of a provider of `origin` (stack
 * config `broker:<name>` for the default provider), or `undefined` when
 * it is valid (an empty value is unset, which is valid). The same rule and message as when the
 * setting is resolved; for a provider's `CheckConfig`, which checks each setting on its own.
 */
export function settingProblem(
  name: SettingName,
  text: string,
  origin: SettingsOrigin = STACK_ORIGIN,
): string | undefined {
  const value = present(text);
  if (value === undefined) return undefined;
  const place = settingPlace(origin, name);
  const found: Found = { value, from: origin.kind, name: place, source: place };
  if (name === "apiKey") return apiKeyProblem(found);
  if (name === "baseUrl") {
    try {
      normalizeBaseUrl(value, found.source);
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
  const parsed = isNumeric(name)
    ? parseNumeric(name, found)
    : (settingNamed(name) as SettingDeclaration).type === "boolean"
      ? parseBoolean(found)
      : undefined;
  return typeof parsed === "string" ? parsed : undefined;
}

/** Whether `name` is a number setting (by its declaration). */
function isNumeric(name: SettingName): name is NumericSetting {
  const type: SettingDeclaration["type"] = settingNamed(name).type;
  return type === "integer" || type === "number";
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
 * Resolves the connection settings. Explicit options win, then stack config (`broker:<name>` for
 * each setting of `SETTINGS`), then the environment variable a setting declares (`BROKER_BASE_URL`,
 * `BROKER_API_KEY`, …). Empty values count as unset.
 *
 * Validates that the base URL is http(s) and ends in `/v1` (a trailing slash is dropped), that
 * `timeoutMs` and `maxConcurrency` are positive integers, `maxRetries` and
 * `rateLimitTimeoutSeconds` non-negative ones, and `maxRequestsPerSecond` a positive number.
 *
 * @param explicit Settings given in code; they override everything else.
 * @param stackConfig Reads stack config, e.g. `(key) => request.config.get(key)` in `configure`.
 * @param env The environment. @default process.env
 * @param origin Whose settings `stackConfig` reads (an explicit provider reads its arguments), for
 *   messages. @default STACK_ORIGIN
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
  origin: SettingsOrigin = STACK_ORIGIN,
): ConnectionSettings {
  return resolveSettings({ explicit, stackConfig, env, origin });
}

/**
 * Whether `value` is the API key the settings hold (explicit, stack config or environment, in that
 * order, as {@link resolveConnection} finds it). Never throws, needs nothing else configured, and
 * never returns or reports either value: the core uses it to refuse revoking the provider's own key.
 *
 * @param value An access key's value.
 * @param stackConfig Reads stack config, as for {@link resolveConnection}.
 * @param env The environment. @default process.env
 * @param origin Whose settings `stackConfig` reads. @default STACK_ORIGIN
 */
export function isConfiguredApiKey(
  value: string,
  stackConfig?: ConfigSource,
  env: NodeJS.ProcessEnv = process.env,
  origin: SettingsOrigin = STACK_ORIGIN,
): boolean {
  const found = find("apiKey", { stackConfig, env, origin });
  return found !== undefined && value !== "" && found.value === value;
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
  const found = find("baseUrl", { stackConfig, env });
  if (found === undefined) return undefined;
  try {
    return normalizeBaseUrl(found.value, found.source);
  } catch {
    return undefined;
  }
}
