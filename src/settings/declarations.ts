/**
 * The provider settings, declared once: each one's name, type, documentation, default, secrecy and
 * environment variable. The stack config keys (`broker:<name>`), the names in messages, and the
 * package schema's `config` and `provider` sections are derived from this list; add a setting here
 * first.
 */
import {
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_MAX_RETRIES,
  DEFAULT_RATE_LIMIT_TIMEOUT_SECONDS,
  DEFAULT_READ_STALENESS_MS,
  DEFAULT_TIMEOUT_MS,
} from "../client/constants";
import type { ClientSettingName } from "../client/setting-names";

/** One provider setting. */
export interface SettingDeclaration {
  /** How it is spelled in code, and in stack config after `broker:`. */
  readonly name: string;
  /**
   * Its type, as the package schema spells it. Every setting arrives as text (stack config, flags,
   * the environment) and is parsed by its type: an integer or number by the client's rule for it
   * (`src/client/options.ts`), a boolean as `true` or `false`, a string as it is. A string that is
   * not `required` is optional: absent from the connection settings when unset.
   */
  readonly type: "string" | "integer" | "number" | "boolean";
  /** For the user, in every SDK and the schema. */
  readonly doc: string;
  /** The engine keeps it encrypted; messages never show it. */
  readonly secret?: boolean;
  /** The environment variable read when neither the provider's arguments nor stack config set it. */
  readonly env?: string;
  /** The value an unset setting takes (the client's default). */
  readonly default?: number | boolean;
  /**
   * No client can be made without it. The required settings are the provider's identity: the
   * outputs of a `Provider` resource.
   */
  readonly required?: boolean;
  /** What a valid value means, after the rule in messages, such as `requests per second, such as 20`. */
  readonly example?: string;
}

/** Every provider setting, in the order users read them. */
export const SETTINGS = [
  {
    name: "baseUrl",
    type: "string",
    doc: "The API base URL: an http(s) URL ending in `/v1`, such as `https://broker.example.com/v1`.",
    env: "BROKER_BASE_URL",
    required: true,
  },
  {
    name: "apiKey",
    type: "string",
    doc: "An ACCOUNT access key of the configuration API. Set it with `pulumi config set --secret broker:apiKey <key>`.",
    secret: true,
    env: "BROKER_API_KEY",
    required: true,
  },
  {
    name: "timeoutMs",
    type: "integer",
    doc: "Per-request timeout in milliseconds.",
    default: DEFAULT_TIMEOUT_MS,
  },
  {
    name: "maxRetries",
    type: "integer",
    doc: "Retries after the first attempt of a request.",
    default: DEFAULT_MAX_RETRIES,
  },
  {
    name: "maxConcurrency",
    type: "integer",
    doc: "Requests in flight at once.",
    default: DEFAULT_MAX_CONCURRENCY,
  },
  {
    name: "rateLimitTimeoutSeconds",
    type: "integer",
    doc: "How long, in seconds, one call may wait out the broker's rate limit (429 answers) before it fails. 429s do not count against `maxRetries`.",
    default: DEFAULT_RATE_LIMIT_TIMEOUT_SECONDS,
  },
  {
    name: "maxRequestsPerSecond",
    type: "number",
    doc: "A known request quota of the broker: requests of this provider are paced below it from the start, so no 429 is ever seen. Unset: the pace is learned from 429 answers.",
    env: "BROKER_MAX_REQUESTS_PER_SECOND",
    example: "requests per second, such as 20 or 0.5",
  },
  {
    name: "readStalenessMs",
    type: "integer",
    doc: "How old, in milliseconds, a page of the broker's lists may be when it answers a read of one key or workspace (a refresh's): sent at most this long before the read began, and never before this provider's own last write of that object. It lets a refresh read a stack a page at a time at the engine's default parallelism. 0: only pages sent after the read began.",
    default: DEFAULT_READ_STALENESS_MS,
  },
] as const satisfies readonly SettingDeclaration[];

/** The name of a provider setting. */
export type SettingName = (typeof SETTINGS)[number]["name"];

/**
 * Every provider setting is a client option the client's messages can name, and every such option
 * is a setting: a setting added here without its client option (or the reverse) fails to compile.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
export type SettingsAreClientOptions = Holds<Same<SettingName, ClientSettingName>>;

/** The settings without which no client can be made. */
export type RequiredSetting = Extract<(typeof SETTINGS)[number], { required: true }>["name"];

/** The settings that are numbers. */
export type NumericSetting = Extract<(typeof SETTINGS)[number], { type: "integer" | "number" }>["name"];

/** The settings that are `true` or `false`. */
export type BooleanSetting = Extract<(typeof SETTINGS)[number], { type: "boolean" }>["name"];

/** The strings a client can do without. */
export type OptionalStringSetting = Exclude<
  Extract<(typeof SETTINGS)[number], { type: "string" }>["name"],
  RequiredSetting
>;

/** The settings that have an environment variable. */
type EnvSetting = Extract<(typeof SETTINGS)[number], { env: string }>;

/** The declaration of the setting `name`. */
export function settingNamed(name: SettingName): (typeof SETTINGS)[number] {
  // Every name of SettingName is declared: the find cannot miss.
  return SETTINGS.find((setting) => setting.name === name) as (typeof SETTINGS)[number];
}

/**
 * The command-line flag of a setting, such as `--max-requests-per-second`. Secret settings have
 * none: a key on the command line lands in shell history.
 */
export function flagOf(name: SettingName): string {
  return `--${name.replace(/[A-Z]/gu, (letter) => `-${letter.toLowerCase()}`)}`;
}

/** The settings a command line may set: every one but the secrets. */
export const FLAG_SETTINGS = SETTINGS.filter((setting) => !("secret" in setting));

/** The stack config key of each setting: `broker:<name>`. */
export const CONFIG_KEYS = Object.fromEntries(SETTINGS.map((s) => [s.name, `broker:${s.name}`])) as {
  readonly [S in (typeof SETTINGS)[number] as S["name"]]: `broker:${S["name"]}`;
};

/** The environment variable of each setting that has one. */
export const ENV_VARS = Object.fromEntries(
  SETTINGS.flatMap((s) => ("env" in s ? [[s.name, s.env]] : [])),
) as { readonly [S in EnvSetting as S["name"]]: S["env"] };
