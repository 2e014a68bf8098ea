/**
 * The provider's own configuration: `CheckConfig`, `DiffConfig` and `Configure`.
 *
 * The provider's inputs arrive as a Struct keyed by the names of the declared settings
 * (`SETTINGS`, `src/settings/declarations.ts`): from stack config `broker:*` for the default
 * provider, from the inputs of an explicit provider otherwise. Values may be strings even where a number is meant (stack config is
 * text, and the Node.js SDK turns the provider's non-string inputs into JSON strings), so `"30000"`
 * counts as 30000. The rules of each setting live in the connection-settings module; this module
 * only hands it the values, so the dynamic and the native provider accept exactly the same settings.
 */
import { normalizeBaseUrl } from "../client/base-url";
import type { CheckFailure } from "../core/results";
import { BrokerClient, type RateLimitWaitEvent } from "../client";
import {
  CONFIG_KEYS,
  configuredBaseUrl,
  isConfiguredApiKey,
  resolveConnection,
  settingProblem,
  type ConfigSource,
  type ConnectionSettings,
} from "../settings/connection";
import { SETTINGS, type SettingDeclaration, type SettingName } from "../settings/declarations";
import {
  originOfProvider,
  settingNamesFor,
  settingPlace,
  STACK_ORIGIN,
  type SettingsOrigin,
} from "../settings/wording";
import type { SettingNames } from "../client/setting-names";
import { buildDiff, type ChangeEntry, type DiffResult } from "./diff";
import { containsComputed, pv, type PropertyMap, type PropertyValue } from "./codec";

export type { SettingName } from "../settings/declarations";

/** The settings in the order the schema lists them. */
export const SETTING_NAMES: readonly SettingName[] = SETTINGS.map((setting) => setting.name);

/** Each setting's declaration, by name. */
const DECLARED: ReadonlyMap<string, SettingDeclaration> = new Map(SETTINGS.map((s) => [s.name, s]));

/** How a message says what a setting of each type must be. */
const TYPE_WORDS: Readonly<Record<SettingDeclaration["type"], string>> = {
  string: "a string",
  integer: "a number",
  number: "a number",
  boolean: "true or false",
};

/** Keys the engine adds to every provider's inputs; they are not settings of ours. */
const ENGINE_KEYS: ReadonlySet<string> = new Set(["version", "pluginDownloadURL"]);

/** A problem with one setting, reported by `CheckConfig` against that property. */
export interface ConfigFailure extends CheckFailure {
  readonly property: SettingName;
}

/** What `CheckConfig` answers. */
export interface CheckedConfig {
  /** The inputs to record: as they arrived, except that a plain `apiKey` becomes a secret. */
  readonly inputs: PropertyMap;
  readonly failures: readonly ConfigFailure[];
  /** Messages for the user (sent through the engine's log, never stdout). */
  readonly warnings: readonly string[];
}

function isSetting(key: string): key is SettingName {
  return Object.hasOwn(CONFIG_KEYS, key);
}

function unwrap(value: PropertyValue): PropertyValue {
  return value.kind === "secret" ? unwrap(value.value) : value;
}

/** The text of a known scalar setting; `undefined` for null, an object or a value not known yet. */
function text(value: PropertyValue | undefined): string | undefined {
  if (value === undefined) return undefined;
  const plain = unwrap(value);
  switch (plain.kind) {
    case "string":
      return plain.value;
    case "number":
    case "bool":
      return String(plain.value);
    default:
      return undefined;
  }
}

/**
 * The warning for an API key that reached `Configure` as a plain value (set without `--secret`, or
 * passed to an explicit provider without `pulumi.secret()`), or `undefined`. `Configure` is the one
 * call whose settings keep their secret marking, so this is where a plain key can be told apart.
 */
export function plainApiKeyWarning(args: PropertyMap): string | undefined {
  const apiKey = args["apiKey"];
  if (
    apiKey === undefined ||
    apiKey.kind === "secret" ||
    apiKey.kind === "computed" ||
    apiKey.kind === "null"
  )
    return undefined;
  return (
    `The broker API key (${CONFIG_KEYS.apiKey}) is not a secret. It is stored encrypted all the same, but set it ` +
    `with \`pulumi config set --secret ${CONFIG_KEYS.apiKey} <key>\` (or wrap it in pulumi.secret() for an ` +
    "explicit provider) so that it is never shown or kept in plain text."
  );
}

/** Reads the provider's inputs the way the connection-settings module reads stack config (`broker:<name>`). */
export function configSource(inputs: PropertyMap): ConfigSource {
  return (key) => {
    const name = key.startsWith("broker:") ? key.slice("broker:".length) : key;
    return isSetting(name) ? text(inputs[name]) : undefined;
  };
}

/**
 * `CheckConfig`: one failure per invalid setting (values not known yet are not checked) and a
 * warning for settings this provider does not know. The API key is recorded as a secret.
 * @param origin whose settings these are, for messages (an explicit provider's are its arguments).
 */
export function checkConfig(news: PropertyMap, origin: SettingsOrigin = STACK_ORIGIN): CheckedConfig {
  const failures: ConfigFailure[] = [];
  const warnings: string[] = [];
  // A Map, not an object: any key the engine sends stays an ordinary property.
  const inputs = new Map<string, PropertyValue>(Object.entries(news));
  for (const [key, value] of Object.entries(news)) {
    if (key.startsWith("__") || ENGINE_KEYS.has(key)) continue;
    if (!isSetting(key)) {
      warnings.push(
        `Unknown broker provider setting "${key}" is ignored; the settings are ${SETTING_NAMES.join(", ")}.`,
      );
      continue;
    }
    if (containsComputed(value)) continue;
    const plain = unwrap(value);
    if (plain.kind === "null") continue;
    const valueText = text(value);
    const reason =
      valueText === undefined
        ? `${settingPlace(origin, key)} must be ${TYPE_WORDS[DECLARED.get(key)?.type ?? "string"]}`
        : settingProblem(key, valueText, origin);
    if (reason !== undefined) failures.push({ property: key, reason });
  }
  // Secret settings (the API key) are recorded as secrets whatever arrived: the engine stores these
  // inputs as they are. No warning here: the engine sends CheckConfig no secrets (a key set with
  // --secret arrives plain too), so only Configure can tell a plain key (see plainApiKeyWarning).
  for (const setting of SETTINGS) {
    if (!("secret" in setting)) continue;
    const value = news[setting.name];
    if (value !== undefined && value.kind !== "secret" && value.kind !== "computed" && value.kind !== "null")
      inputs.set(setting.name, pv.secret(value));
  }
  // In the schema's order, whatever order the engine sent the keys in.
  failures.sort((a, b) => SETTING_NAMES.indexOf(a.property) - SETTING_NAMES.indexOf(b.property));
  return { inputs: Object.fromEntries(inputs), failures, warnings };
}

/**
 * `DiffConfig`: each changed setting is an in-place update of the provider, never a replacement
 * (replacing a provider would replace every resource under it). A changed `baseUrl` is a visible
 * change; the resources under the provider compare it with the endpoint they live at.
 */
export function diffConfig(olds: PropertyMap, news: PropertyMap): DiffResult {
  const changes: ChangeEntry[] = [];
  for (const name of SETTING_NAMES) {
    const before = olds[name];
    const after = news[name];
    if (after !== undefined && containsComputed(after)) {
      changes.push({ path: name, kind: "update", replace: false });
      continue;
    }
    const a = comparable(name, before);
    const b = comparable(name, after);
    if (a === b) continue;
    changes.push({
      path: name,
      kind: a === undefined ? "add" : b === undefined ? "delete" : "update",
      replace: false,
    });
  }
  return buildDiff({ changes });
}

/** A setting's value in a form that compares equal when it means the same: trimmed, URLs normalised. */
function comparable(name: SettingName, value: PropertyValue | undefined): string | undefined {
  const raw = text(value)?.trim();
  if (raw === undefined || raw === "") return undefined;
  if (name === "baseUrl") {
    try {
      return normalizeBaseUrl(raw, CONFIG_KEYS.baseUrl);
    } catch {
      return raw;
    }
  }
  return raw;
}

/**
 * The configuration of one provider instance, as `Configure` received it, and the API client made
 * from it. Making it never fails: a missing or invalid setting fails only the operation that needs
 * the API, with the connection-settings module's message (preview must work without credentials).
 *
 * Each instance owns its client (nothing is shared through module state), so two provider
 * instances with different endpoints never see each other's settings.
 */
export class ProviderConfiguration {
  /** Reads `broker:<name>` from the provider's inputs. */
  readonly source: ConfigSource;
  /** Where this provider's settings come from: stack config (the default provider) or its arguments. */
  readonly origin: SettingsOrigin;
  /** How messages name this provider's settings. */
  readonly settingNames: SettingNames;
  private readonly env: NodeJS.ProcessEnv;
  private made: BrokerClient | undefined;

  /**
   * @param args The `args` of `ConfigureRequest` (never its `variables`, which carry the API key
   *   in plain text).
   * @param env The environment, for the `BROKER_BASE_URL` / `BROKER_API_KEY` fallbacks.
   * @param onRateLimitWait the client's listener for waits on the broker's rate limit (the server
   *   passes one that tells the user through the engine's log).
   * @param origin the provider instance's origin (see {@link originOfProvider}). @default STACK_ORIGIN
   * @param signal aborts when the engine cancels the run (its `Cancel` RPC): the client then sends
   *   nothing more (see the client's `signal` option).
   */
  constructor(
    args: PropertyMap,
    env: NodeJS.ProcessEnv = process.env,
    private readonly onRateLimitWait?: (event: RateLimitWaitEvent) => void,
    origin: SettingsOrigin = STACK_ORIGIN,
    private readonly signal?: AbortSignal,
  ) {
    this.source = configSource(args);
    this.env = env;
    this.origin = origin;
    this.settingNames = settingNamesFor(origin);
  }

  /** The connection settings; throws the settings module's `BrokerConfigError` when some are missing or invalid. */
  connection(): ConnectionSettings {
    return resolveConnection(undefined, this.source, this.env, this.origin);
  }

  /** The configured base URL, normalised, or `undefined` (never throws, needs no API key). */
  baseUrl(): string | undefined {
    return configuredBaseUrl(this.source, this.env);
  }

  /**
   * Whether `accessKey` is the API key this provider instance authenticates with (its argument, stack
   * config or `BROKER_API_KEY`). Compares only; never throws.
   */
  authenticatesWith(accessKey: string): boolean {
    return isConfiguredApiKey(accessKey, this.source, this.env, this.origin);
  }

  /**
   * The API client of this provider instance, made on first use from {@link connection} (so it
   * throws the same `BrokerConfigError` when settings are missing). Every resource served by the
   * instance shares it, and with it the `maxConcurrency` cap.
   */
  client(): BrokerClient {
    if (this.made === undefined || this.made.closed) {
      // Hints name this provider's settings: stack config (broker:apiKey …) or its arguments.
      this.made = new BrokerClient({
        ...this.connection(),
        settingNames: this.settingNames,
        ...(this.onRateLimitWait === undefined ? {} : { onRateLimitWait: this.onRateLimitWait }),
        ...(this.signal === undefined ? {} : { signal: this.signal }),
      });
    }
    return this.made;
  }

  /** Closes the client once the requests in flight finish (when the configuration is replaced or the server stops); never throws. */
  async close(): Promise<void> {
    try {
      await this.made?.close();
    } catch {
      // Nothing is lost: closing only ends idle connections. It must never fail the caller.
    }
  }
}

/**
 * The origin of the provider instance a request is about: its name, or the last part of its URN
 * (`urn:pulumi:dev::app::pulumi:providers:broker::prod`). Either accessor may be missing: the
 * request classes come from the `@pulumi/pulumi` installed beside the plugin, and older ones (3.139)
 * have no `name` field on `CheckRequest` and neither field on `ConfigureRequest`); `undefined` when
 * the request names no provider.
 */
export function requestOrigin(request: object): SettingsOrigin | undefined {
  const read = (accessor: "getName" | "getUrn"): string => {
    const get: unknown = (request as Record<string, unknown>)[accessor];
    const value: unknown = typeof get === "function" ? (get as () => unknown).call(request) : undefined;
    return typeof value === "string" ? value : "";
  };
  const name = read("getName") || (read("getUrn").split("::").pop() ?? "");
  return name === "" ? undefined : originOfProvider(name);
}
