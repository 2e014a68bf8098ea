/**
 * How messages name a provider's settings, for the provider that produced them.
 *
 * The default provider reads stack config (`broker:baseUrl`) and the environment; an explicit
 * `Provider` resource reads its own arguments (`new broker.Provider("prod", { baseUrl })`) and the
 * environment, never stack config. A message that tells a user to `pulumi config set
 * broker:baseUrl` for an explicit provider sends them to the wrong place, so every message about a
 * setting asks this module where that provider's setting lives.
 */
import type { SettingNames } from "../client/setting-names";
import { CONFIG_KEYS, SETTINGS, settingNamed, type RequiredSetting, type SettingName } from "./declarations";

/** Where a provider's settings come from. */
export type SettingsOrigin =
  /** The default provider: stack config (`broker:<name>`), then the environment. */
  | { readonly kind: "stack" }
  /** An explicit `Provider` resource named `name`: its arguments, then the environment. */
  | { readonly kind: "provider"; readonly name: string };

/** The default provider's origin: stack config and the environment. */
export const STACK_ORIGIN: SettingsOrigin = { kind: "stack" };

/**
 * The origin of the provider instance named `name` (the name part of its URN). The engine names
 * the providers it makes itself `default` or `default_<version>…` and tells them apart by that
 * prefix; we use its rule.
 */
export function originOfProvider(name: string | undefined): SettingsOrigin {
  return name === undefined || name === "" || name.startsWith("default")
    ? STACK_ORIGIN
    : { kind: "provider", name };
}

/**
 * A schema name with its other spellings, once: `` `allowEndpointChange` (`allow_endpoint_change`
 * in Python, `AllowEndpointChange` in Go and .NET) ``, `` `adopt` (`Adopt` in Go and .NET) ``.
 * TypeScript, JavaScript, YAML and (for one word) Python use the schema's own spelling.
 */
export function spellings(name: string): string {
  const snake = name.replace(/[A-Z]/gu, (letter) => `_${letter.toLowerCase()}`);
  const pascal = `${name.charAt(0).toUpperCase()}${name.slice(1)}`;
  return snake === name
    ? `\`${name}\` (\`${pascal}\` in Go and .NET)`
    : `\`${name}\` (\`${snake}\` in Python, \`${pascal}\` in Go and .NET)`;
}

/** The place of `setting` for this origin alone: `broker:timeoutMs`, or `the timeoutMs argument of provider "prod"`. */
export function settingPlace(origin: SettingsOrigin, setting: SettingName): string {
  return origin.kind === "stack"
    ? CONFIG_KEYS[setting]
    : `the ${setting} argument of provider "${origin.name}"`;
}

/** The environment variable a setting falls back to, if it has one. */
function envOf(setting: SettingName): string | undefined {
  const declaration = settingNamed(setting);
  return "env" in declaration ? declaration.env : undefined;
}

/**
 * How the client's messages name each setting for this origin, such as `broker:apiKey (or
 * BROKER_API_KEY)` or `the apiKey argument of provider "prod" (or BROKER_API_KEY)`.
 */
export function settingNamesFor(origin: SettingsOrigin): SettingNames {
  return Object.fromEntries(
    SETTINGS.map((s) => {
      const env = envOf(s.name);
      const place = settingPlace(origin, s.name);
      return [s.name, env === undefined ? place : `${place} (or ${env})`];
    }),
  ) as Record<SettingName, string>;
}

/** How to set a setting for this origin, in a sentence: a command for stack config, the argument for a provider. */
function howToSet(origin: SettingsOrigin, setting: RequiredSetting): string {
  const env = envOf(setting) ?? "";
  if (origin.kind === "stack") {
    return setting === "baseUrl"
      ? `\`pulumi config set ${CONFIG_KEYS.baseUrl} https://…/v1\` or the ${env} environment variable`
      : `\`pulumi config set --secret ${CONFIG_KEYS.apiKey} <key>\` or the ${env} environment variable`;
  }
  const secret = setting === "apiKey" ? " (as a secret)" : "";
  return `the ${spellings(setting)} argument of provider "${origin.name}"${secret}, or the ${env} environment variable`;
}

/**
 * The message for missing required settings for this origin: one message for all of them, naming
 * how to set each.
 */
export function missingSettingsMessage(origin: SettingsOrigin, missing: readonly RequiredSetting[]): string {
  const setBaseUrl = howToSet(origin, "baseUrl");
  const setApiKey = howToSet(origin, "apiKey");
  if (missing.length > 1)
    return `No broker API base URL and no API key: set the base URL with ${setBaseUrl}, and an ACCOUNT access key with ${setApiKey}`;
  return missing[0] === "baseUrl"
    ? `No broker API base URL: set it with ${setBaseUrl}`
    : `No broker API key: set an ACCOUNT access key with ${setApiKey}`;
}
