#!/usr/bin/env node
/**
 * The `broker-config` command.
 *
 * `broker-config plugin install|uninstall` installs (or removes) the `broker` Pulumi provider plugin
 * in `$PULUMI_HOME/plugins` (see `plugin-install.ts`).
 *
 * `broker-config export [--base-url URL] [--api-key-env NAME] [--<setting> N …] [--out FILE]
 *   [--format yaml|json|import] [--progress]`: one flag per provider setting but the API key
 *   (`--timeout-ms`, `--max-requests-per-second`, …, from the settings' declaration)
 * reads an environment and writes its configuration as a document that the BrokerConfig component
 * deploys (see `exportBrokerConfig`), or with `--format import` as a `pulumi import --file` document
 * for the native resources.
 *
 * `broker-config review [FILE] [--format markdown|json] [--fail-on broadening] [--from F --to F]
 *   [--from-broker --to F]` writes the access review of a change (see `../review/command.ts`).
 *
 * `broker-config migrate-state [--in FILE] [--out FILE]` rewrites a `pulumi stack export` of dynamic
 * resources into native ones (see `migrate-state.ts`).
 *
 * The API key is read from the environment only (`BROKER_API_KEY`, or the variable `--api-key-env`
 * names), never from a flag: a flag's value would land in shell history and process listings.
 *
 * Exit codes: 0 success; 1 the API failed (authentication, connection, server) or the file could not
 * be written, with a one-line message; 2 usage error (bad arguments, no base URL or API key).
 */
// First, before anything that needs a new Node (undici, node:sqlite, modern syntax in dependencies):
// on an old Node this prints one line naming the version required and exits. The path is the same
// from src/<dir>/ and dist/<dir>/, and the file ships in the package.
import "../../scripts/check-node.cjs";
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { BrokerClient, type BrokerClientOptions } from "../client/client";
import { isBrokerApiError, isBrokerSettingsError } from "../client/errors";
import { redactSecrets } from "../client/redact";
import { commandLineConnection, SETTING_FLAGS, settingFlagsHelp } from "../settings/command-line";
import { exportBrokerConfig, type ExportProgress } from "../export/document";
import {
  BROKER_CONFIG_FORMATS,
  formatBrokerConfig,
  formatOfFile,
  type BrokerConfigFormat,
} from "../export/format";
import { packageVersion } from "../native/schema";
import { migrateDeployment, MigrateStateError } from "./migrate-state";
import { recover } from "./recover";
import { installPlugin, uninstallPlugin } from "./plugin-install";
import { runReview } from "../review/command";

const USAGE = `Usage: broker-config export [options]
       broker-config plugin install|uninstall
       broker-config migrate-state [--in FILE] [--out FILE]
       broker-config recover [--stack NAME] [--cancel] [--dry-run]
       broker-config review [PREVIEW.json] [--format markdown|json] [--fail-on broadening]

Writes the configuration of a broker environment (workspace tree, access keys with their
permissions; never key values) as a document for the BrokerConfig component.

Options:
${settingFlagsHelp()}
  --api-key-env NAME   read the ACCOUNT API key from $NAME   [default: BROKER_API_KEY]
  --out FILE           write to FILE (replaced only when the export succeeds) [default: stdout]
  --format yaml|json|import
                       output format [default: json for *.json, else yaml];
                       import: a \`pulumi import --file\` document for the native
                       resources (broker:index:*): types, names and ids, no values
  --progress           report progress on stderr             [default: when stderr is a terminal]
  --help               show this help

The API key is never accepted as a flag: set BROKER_API_KEY (or the variable --api-key-env names).
Every key is listed by name, the ACCOUNT key used for the export included; no value is written.
Exit codes: 0 ok, 1 API, connection or file failure, 2 usage error.

plugin install     puts the broker Pulumi provider plugin (for pulumi-broker-config/native and
                   other languages' SDKs) into $PULUMI_HOME/plugins (default ~/.pulumi/plugins),
                   run by the Node.js running this command
plugin uninstall   removes it again

migrate-state      rewrites the output of \`pulumi stack export\` (from --in FILE or stdin) so
                   that the stack's dynamic resources become the native ones (broker:index:*),
                   keeping every id, input and output, secrets as they are (still encrypted);
                   writes it to --out FILE or stdout, for \`pulumi stack import\`, and lists
                   what it changed on stderr

recover            after a \`pulumi up\` that was killed: records in the stack every object the
                   run created on the broker and drops the creates that never reached it, so
                   the next \`pulumi up\` makes no second key of the same name; refuses to guess
                   when two objects match, naming both. Runs \`pulumi\` in the current directory.
                   --stack NAME   the stack [default: the selected one]
                   --cancel       first end the killed update's lock (\`pulumi cancel\`): only
                                  when no \`pulumi\` command runs on the stack any more
                   --dry-run      report, but do not write the state

review             the access review of a change: which keys gain or lose which event paths,
                   and whether it broadens access, as Markdown for a pull-request comment or
                   JSON; reads \`pulumi preview --json\` (a file or stdin), two documents
                   (--from/--to), or the live broker against a document (--from-broker --to).
                   \`broker-config review --help\` lists its options and exit codes
`;

/** Waits on the rate limit this long or longer are reported on stderr. */
const RATE_LIMIT_NOTE_MS = 5_000;

/** `plugin install|uninstall`: one line on stdout saying what changed. */
function runPlugin(argv: string[]): number {
  const [action, extra] = argv;
  if ((action !== "install" && action !== "uninstall") || extra !== undefined) {
    process.stderr.write(`broker-config: plugin takes one argument, install or uninstall\n\n${USAGE}`);
    return 2;
  }
  if (action === "install") {
    const result = installPlugin();
    process.stdout.write(
      `broker-config: installed the broker plugin v${result.version} in ${result.directory}\n`,
    );
  } else {
    const result = uninstallPlugin();
    process.stdout.write(
      result.existed
        ? `broker-config: removed the broker plugin v${result.version} from ${result.directory}\n`
        : `broker-config: the broker plugin v${result.version} was not installed (${result.directory})\n`,
    );
  }
  return 0;
}

/**
 * `migrate-state [--in FILE] [--out FILE]`: the export in, the rewritten export out, one line per
 * change on stderr.
 */
async function runMigrateState(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseCommandLine(argv, false, {
      in: { type: "string" },
      out: { type: "string", short: "o" },
    }));
  } catch (error) {
    process.stderr.write(`broker-config: ${errorText(error)}\n\n${USAGE}`);
    return 2;
  }
  const source = values.in ?? "stdin";
  let text: string;
  try {
    text = values.in === undefined ? await readStdin() : fs.readFileSync(values.in, "utf8");
  } catch (error) {
    process.stderr.write(
      `broker-config: cannot read ${source}: ${(error as NodeJS.ErrnoException).code ?? String(error)}\n`,
    );
    return 1;
  }
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    process.stderr.write(
      `broker-config: ${source} is not JSON: pass the output of \`pulumi stack export\`\n`,
    );
    return 1;
  }
  let result;
  try {
    result = migrateDeployment(input, { version: packageVersion() });
  } catch (error) {
    if (!(error instanceof MigrateStateError)) throw error;
    process.stderr.write(`broker-config: ${error.message}\n`);
    return 1;
  }
  const output = `${JSON.stringify(result.exported, null, 2)}\n`;
  if (values.out === undefined) process.stdout.write(output);
  else writeAtomically(values.out, output);
  for (const change of result.changes) process.stderr.write(`broker-config: ${change}\n`);
  process.stderr.write(
    result.migrated === 0
      ? "broker-config: no dynamic broker resources in this stack; nothing changed\n"
      : `broker-config: migrated ${result.migrated} resource(s); now run \`pulumi stack import --file <the output>\` and switch the program to pulumi-broker-config/native\n`,
  );
  return 0;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Bad arguments or missing settings: exit code 2. */
class UsageError extends Error {}

/** An error's message, for a one-line report. */
function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `argv` parsed strictly against `options`; a {@link UsageError} for anything else. */
function parseCommandLine<O extends ParseArgsOptionsConfig, P extends boolean>(
  argv: string[],
  allowPositionals: P,
  options: O,
): ReturnType<typeof parseArgs<{ args: string[]; strict: true; allowPositionals: P; options: O }>> {
  try {
    return parseArgs({ args: argv, strict: true, allowPositionals, options });
  } catch (error) {
    throw new UsageError(errorText(error));
  }
}

/** The parsed arguments of `export`. */
interface ExportArgs {
  /** The client's options; its messages name the flags and variables the settings came from. */
  client: BrokerClientOptions;
  out?: string;
  /** A document format, or `import`: the \`pulumi import --file\` document (JSON). */
  format: BrokerConfigFormat | "import";
  progress: boolean;
}

/** The API key once read, so that no message of an unexpected failure can echo it. */
const knownSecrets: string[] = [];

function parseExportArgs(argv: string[], env: NodeJS.ProcessEnv): ExportArgs | "help" {
  // Checked before parseArgs, whose "unknown option" message would not say why or what to do instead.
  if (argv.some((arg) => arg === "--api-key" || arg.startsWith("--api-key="))) {
    throw new UsageError(
      "--api-key is not accepted: a key on the command line lands in shell history; set BROKER_API_KEY, or name another variable with --api-key-env",
    );
  }
  const { values, positionals } = parseCommandLine(argv, true, {
    ...SETTING_FLAGS,
    out: { type: "string", short: "o" },
    format: { type: "string" },
    progress: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  });
  if (values.help) return "help";
  // Stray arguments are echoed only when they look like command words: one may be a pasted key.
  const shown = (arg: string): string => (/^[a-z][a-z-]{0,30}$/u.test(arg) ? ` ${JSON.stringify(arg)}` : "");
  const [command, extra] = positionals;
  if (command !== "export")
    throw new UsageError(command === undefined ? "no command given" : `unknown command${shown(command)}`);
  if (extra !== undefined)
    throw new UsageError(`unexpected argument${shown(extra)}: export takes options only`);

  const format = values.format ?? (values.out === undefined ? "yaml" : formatOfFile(values.out));
  if (!(BROKER_CONFIG_FORMATS as readonly string[]).includes(format) && format !== "import")
    throw new UsageError(
      `--format must be yaml or json (or import, for a \`pulumi import --file\` document), got ${JSON.stringify(format)}`,
    );
  if (values.out === "") throw new UsageError("--out must not be empty");

  const client = commandLineConnection(values as Record<string, unknown>, env, (message) => new UsageError(message));
  knownSecrets.push(client.apiKey);

  const args: ExportArgs = {
    client,
    format: format as BrokerConfigFormat | "import",
    progress: values.progress,
  };
  if (values.out !== undefined) args.out = values.out;
  return args;
}

/** Progress lines such as `exported 300 access keys…`. */
function progressLine(progress: ExportProgress): string {
  const what = progress.kind === "accessKeys" ? "access keys" : "workspaces";
  return `broker-config: exported ${progress.count} ${what}${progress.done ? "" : "…"}\n`;
}

/** Replaces `file` only once the whole text is written: a failed export never leaves half a file. */
function writeAtomically(file: string, text: string): void {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(temporary, text);
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new Error(`cannot write ${file}: ${reason}`, { cause: error });
  }
}

async function runExport(args: ExportArgs): Promise<number> {
  const client = new BrokerClient({
    ...args.client,
    // A long silence would look like a hang: say why.
    onRateLimitWait: (event) => {
      if (event.waitMs >= RATE_LIMIT_NOTE_MS)
        process.stderr.write(
          `broker-config: waiting on the broker's rate limit for ${Math.ceil(event.waitMs / 1000)} s\n`,
        );
    },
  });
  try {
    const result = await exportBrokerConfig(client, {
      ...(args.progress ? { onProgress: (p: ExportProgress) => process.stderr.write(progressLine(p)) } : {}),
    });
    for (const warning of result.warnings) process.stderr.write(`broker-config: warning: ${warning}\n`);
    const text =
      args.format === "import"
        ? `${JSON.stringify(result.importFile, null, 2)}\n`
        : formatBrokerConfig(result.document, args.format);
    if (args.out === undefined) process.stdout.write(text);
    else {
      writeAtomically(args.out, text);
      process.stderr.write(
        `broker-config: wrote ${result.counts.workspaces} workspaces and ${result.counts.accessKeys} access keys to ${args.out}\n`,
      );
    }
    return 0;
  } catch (error) {
    if (!isBrokerApiError(error)) throw error;
    process.stderr.write(`broker-config: ${error.message}\n`);
    return 1;
  } finally {
    await client.close();
  }
}

/** `recover [--stack NAME] [--dry-run]`: the report on stdout. */
async function runRecover(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let values;
  try {
    ({ values } = parseCommandLine(argv, false, {
      stack: { type: "string", short: "s" },
      "dry-run": { type: "boolean", default: false },
      cancel: { type: "boolean", default: false },
    }));
  } catch (error) {
    process.stderr.write(`broker-config: ${errorText(error)}\n\n${USAGE}`);
    return 2;
  }
  return recover({
    stack: values.stack,
    dryRun: values["dry-run"],
    cancel: values.cancel,
    env,
    report: (line) => process.stdout.write(`${line}\n`),
  });
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  if (argv[0] === "plugin") return runPlugin(argv.slice(1));
  if (argv[0] === "recover") return runRecover(argv.slice(1), env);
  if (argv[0] === "migrate-state") return runMigrateState(argv.slice(1));
  if (argv[0] === "review")
    return runReview(argv.slice(1), {
      stdin: process.stdin,
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      env,
    });
  let args;
  try {
    args = parseExportArgs(argv, env);
  } catch (error) {
    if (!(error instanceof UsageError) && !isBrokerSettingsError(error)) throw error;
    process.stderr.write(`broker-config: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (args === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  return runExport({ ...args, progress: args.progress || process.stderr.isTTY });
}

main(process.argv.slice(2), process.env).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // Unexpected (a file that cannot be written, a bug): one line, and never the API key.
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`broker-config: ${redactSecrets(message, knownSecrets)}\n`);
    process.exitCode = 1;
  },
);
