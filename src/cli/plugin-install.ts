/**
 * `broker-config plugin install` / `plugin uninstall`: put the `broker` provider plugin where the
 * Pulumi engine looks for it, or take it away again.
 *
 * The engine finds a resource plugin `broker` at version V in `$PULUMI_HOME/plugins/resource-broker-vV/`
 * (PULUMI_HOME defaults to `~/.pulumi`), as the executable `pulumi-resource-broker` in that directory.
 * A sibling `resource-broker-vV.partial` file means "installation not finished": the engine and
 * `pulumi plugin ls` skip such a directory. Installation therefore writes that marker first and
 * removes it last, so an interrupted install is never mistaken for a working plugin.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { packageVersion } from "../native/schema";

/** The plugin's name as the engine knows it (`pulumi:providers:broker`, `broker:index:*`). */
export const PLUGIN_NAME = "broker";

/** The executable the engine runs inside the plugin directory. */
export const PLUGIN_EXECUTABLE = `pulumi-resource-${PLUGIN_NAME}`;

/**
 * The compiled plugin entry point of this package. It lies at the same place relative to the
 * package root whether this module runs from `src/cli` (tests) or `dist/cli` (the installed package).
 */
export const DEFAULT_PLUGIN_MAIN = path.join(__dirname, "..", "..", "dist", "native", "main.js");

/** Where and what to install; every field has a default taken from the running package and process. */
export interface PluginInstallOptions {
  /** Pulumi's home directory. Default: `$PULUMI_HOME`, else `~/.pulumi`. */
  readonly pulumiHome?: string;
  /** The plugin version. Default: this package's version, which is the version the SDK asks the engine for. */
  readonly version?: string;
  /** The Node.js executable that runs the plugin. Default: the one running this command (`process.execPath`). */
  readonly nodePath?: string;
  /** The plugin's JavaScript entry point. Default: this package's `dist/native/main.js`. */
  readonly pluginMain?: string;
}

/** What an install or uninstall did, for the command's one-line report. */
export interface PluginInstallResult {
  /** The plugin directory (`…/plugins/resource-broker-v<version>`). */
  readonly directory: string;
  /** The plugin version installed or removed. */
  readonly version: string;
  /** For uninstall: whether there was anything to remove. */
  readonly existed: boolean;
}

/** `$PULUMI_HOME` when set and not empty, else `~/.pulumi`, as the Pulumi CLI itself decides. */
export function pulumiHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env["PULUMI_HOME"]?.trim();
  return home !== undefined && home !== "" ? home : path.join(os.homedir(), ".pulumi");
}

/** The directory the engine looks in for the `broker` plugin at `version`. */
export function pluginDirectory(home: string, version: string): string {
  return path.join(home, "plugins", `resource-${PLUGIN_NAME}-v${version}`);
}

/** Quotes a value for a POSIX shell script: single quotes, with embedded ones closed and reopened. */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'"'"'`)}'`;
}

/**
 * The executable the engine starts: a shell script that runs the plugin entry point with a fixed
 * Node.js, by absolute path. The plugin needs Node 22 or newer, and the engine's PATH may hold an
 * older `node`, so the script does not look Node up.
 */
export function shimScript(nodePath: string, pluginMain: string): string {
  return [
    "#!/bin/sh",
    "# The broker Pulumi provider plugin, installed by `broker-config plugin install`.",
    "# It runs the plugin of the npm package pulumi-broker-config with the Node.js that installed it;",
    "# run `npx broker-config plugin install` again after moving or upgrading either.",
    `exec ${shellQuote(nodePath)} ${shellQuote(pluginMain)} "$@"`,
    "",
  ].join("\n");
}

function resolved(options: PluginInstallOptions): { home: string; version: string } {
  return { home: options.pulumiHome ?? pulumiHome(), version: options.version ?? packageVersion() };
}

/**
 * Installs the plugin: `$PULUMI_HOME/plugins/resource-broker-v<version>/pulumi-resource-broker`.
 * Replaces an earlier install of the same version (for example one pointing at another Node).
 *
 * @throws Error when the plugin entry point or Node.js executable does not exist (say which, and
 *   that `npm run build` creates the entry point in a checkout of the repository).
 */
export function installPlugin(options: PluginInstallOptions = {}): PluginInstallResult {
  const { home, version } = resolved(options);
  const nodePath = path.resolve(options.nodePath ?? process.execPath);
  const pluginMain = path.resolve(options.pluginMain ?? DEFAULT_PLUGIN_MAIN);
  if (!fs.existsSync(pluginMain))
    throw new Error(
      `the plugin entry point ${pluginMain} does not exist: the package is not built (run \`npm run build\` in a checkout)`,
    );
  if (!fs.existsSync(nodePath)) throw new Error(`the Node.js executable ${nodePath} does not exist`);

  const directory = pluginDirectory(home, version);
  const partial = `${directory}.partial`;
  fs.mkdirSync(path.dirname(directory), { recursive: true });
  // Marked unfinished first: while the marker exists the engine ignores the directory.
  fs.writeFileSync(partial, "");
  fs.rmSync(directory, { recursive: true, force: true });
  fs.mkdirSync(directory);
  const executable = path.join(directory, PLUGIN_EXECUTABLE);
  fs.writeFileSync(executable, shimScript(nodePath, pluginMain), { mode: 0o755 });
  fs.rmSync(partial);
  return { directory, version, existed: true };
}

/**
 * Removes the plugin directory of `version` (default: this package's version) with the engine's
 * marker files beside it. Removing a plugin that is not installed is no error (`existed: false`).
 */
export function uninstallPlugin(options: PluginInstallOptions = {}): PluginInstallResult {
  const { home, version } = resolved(options);
  const directory = pluginDirectory(home, version);
  const existed = fs.existsSync(directory);
  fs.rmSync(directory, { recursive: true, force: true });
  for (const marker of [".partial", ".lock", ".lastused"]) fs.rmSync(directory + marker, { force: true });
  return { directory, version, existed };
}
