/**
 * The connection settings of a `broker-config` command that talks to a broker (`export`, `review
 * --from-broker`): one flag per setting but the API key (`--base-url`, `--timeout-ms`, …, from the
 * settings' declaration), the key from the environment only (`BROKER_API_KEY`, or the variable
 * `--api-key-env` names: a key on the command line lands in shell history), resolved as a stack's
 * are (`resolveSettings`) with this command line's names in every message.
 */
import type { BrokerClientOptions } from "../client/client";
import { DEFAULT_SETTING_NAMES, type SettingNames } from "../client/setting-names";
import { ENV_VARS, resolveSettings, type RequiredSetting } from "./connection";
import { FLAG_SETTINGS, flagOf, type SettingName } from "./declarations";

/** One string option of `parseArgs` per setting a command line may set, plus `--api-key-env`. */
export const SETTING_FLAGS = {
  ...Object.fromEntries(
    FLAG_SETTINGS.map((setting) => [flagOf(setting.name).slice(2), { type: "string" as const }]),
  ),
  "api-key-env": { type: "string" as const },
};

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/u;

/**
 * The client options a command line's setting flags (parsed with {@link SETTING_FLAGS}) and the
 * environment give, with messages naming the flags and variables they came from.
 *
 * @param usageError Makes the command's usage error (exit code 2) for a bad `--api-key-env`.
 * @throws BrokerSettingsError for a missing or invalid setting, naming how to set it.
 */
export function commandLineConnection(
  values: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  usageError: (message: string) => Error,
): BrokerClientOptions & { apiKey: string } {
  const given = values["api-key-env"];
  const apiKeyEnv = typeof given === "string" ? given : ENV_VARS.apiKey;
  if (!ENV_NAME.test(apiKeyEnv))
    throw usageError(`--api-key-env must name an environment variable, got ${JSON.stringify(apiKeyEnv)}`);
  const customKeyEnv = typeof given === "string";
  const commandLine: Partial<Record<SettingName, string>> = {};
  for (const setting of FLAG_SETTINGS) {
    const value = values[flagOf(setting.name).slice(2)];
    if (typeof value === "string") commandLine[setting.name] = value;
  }
  // The same resolution and checks as for a stack, with this command's names; there is no stack.
  const settings = resolveSettings({
    commandLine,
    env,
    envVars: { apiKey: apiKeyEnv },
    missingMessage: (missing) => commandLineMissingMessage(missing, apiKeyEnv, customKeyEnv),
  });
  const settingNames: SettingNames = {
    ...DEFAULT_SETTING_NAMES,
    ...Object.fromEntries(
      FLAG_SETTINGS.map((s) => [s.name, "env" in s ? `${flagOf(s.name)} (or ${s.env})` : flagOf(s.name)]),
    ),
    baseUrl: present(commandLine.baseUrl) ? flagOf("baseUrl") : ENV_VARS.baseUrl,
    // A stack's key sits in broker:apiKey: say so, for a key copied from there.
    apiKey: customKeyEnv ? `${apiKeyEnv} (named by --api-key-env)` : `${apiKeyEnv} (broker:apiKey in a stack)`,
  };
  return { ...settings, settingNames };
}

/** The help lines of the setting flags, from each setting's documentation, default and variable. */
export function settingFlagsHelp(): string {
  return FLAG_SETTINGS.map((setting) => {
    const flag = `  ${flagOf(setting.name)} ${setting.type === "string" ? "URL" : "N"}`;
    const fallback =
      "env" in setting ? `$${setting.env}` : "default" in setting ? String(setting.default) : undefined;
    const doc = `${setting.doc.replace(/`/gu, "")}${fallback === undefined ? "" : ` [default: ${fallback}]`}`;
    return `${flag}\n${wrap(doc, 23, 100)}`;
  }).join("\n");
}

/** `text` in lines of at most `width` characters, each indented by `indent` spaces. */
function wrap(text: string, indent: number, width: number): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/u)) {
    if (line !== "" && indent + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines.map((l) => `${" ".repeat(indent)}${l}`).join("\n");
}

function present(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== "";
}

/** What to do when the base URL or the key is missing, in a command line's terms. */
export function commandLineMissingMessage(
  missing: readonly RequiredSetting[],
  apiKeyEnv: string,
  customKeyEnv: boolean,
): string {
  const setUrl = `pass --base-url or set ${ENV_VARS.baseUrl} (it ends in /v1)`;
  const setKey = `set ${apiKeyEnv} to an ACCOUNT access key${customKeyEnv ? "" : " (or name another variable with --api-key-env)"}`;
  if (missing.length > 1) return `no base URL and no API key: ${setUrl}, and ${setKey}`;
  return missing[0] === "baseUrl" ? `no base URL: ${setUrl}` : `no API key: ${setKey}`;
}
