/**
 * How the client's caller names the settings behind the client's options, for the "what to do"
 * part of error messages. The client knows nothing of where settings come from: the Pulumi
 * providers pass `broker:apiKey (or BROKER_API_KEY)`, the `broker-config` CLI its flags and
 * environment variables, and a program using the client directly gets neutral names. The list of
 * settings is the declarations' (`src/settings/declarations.ts`): a setting added there is named
 * here without an edit.
 */
import { SETTINGS, type SettingName } from "../settings/declarations";

/**
 * The name to show for each setting in error messages, such as `broker:apiKey (or BROKER_API_KEY)`;
 * by default (see {@link DEFAULT_SETTING_NAMES}) `the API key`, `the API base URL` or
 * `the <setting> option`.
 */
export type SettingNames = { readonly [S in SettingName]: string };

/** The names a client uses when its caller gives none: each setting's `label`, else `the <name> option`. */
export const DEFAULT_SETTING_NAMES: SettingNames = Object.fromEntries(
  SETTINGS.map((setting) => [
    setting.name,
    "label" in setting ? setting.label : `the ${setting.name} option`,
  ]),
) as SettingNames;
