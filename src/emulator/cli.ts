#!/usr/bin/env node
/**
 * The `broker-config-emulator` command: runs the emulator until SIGINT or SIGTERM.
 *
 * Exit codes: 0 after a signal, 1 when it cannot start, 2 for bad arguments.
 */
// First, before anything that needs a new Node (undici, node:sqlite, modern syntax in dependencies):
// on an old Node this prints one line naming the version required and exits. The path is the same
// from src/<dir>/ and dist/<dir>/, and the file ships in the package.
import "../../scripts/check-node.cjs";
import { parseArgs } from "node:util";
import { startEmulator, type EmulatorHandle, type EmulatorOptions } from "./index";

/** Port of the command when `--port` is not given. */
export const DEFAULT_CLI_PORT = 4010;

const USAGE = `Usage: broker-config-emulator [options]

Runs a local emulator of the broker configuration API.

Options:
  --port N             TCP port (0 = any free port)            [default: ${DEFAULT_CLI_PORT}]
  --host H             interface to listen on                  [default: 127.0.0.1]
  --db FILE            persist to this SQLite file (created when missing); default: in memory
  --admin-key K        value of the bootstrap ACCOUNT key "admin"; default: the stored one or a new one
  --json               print one JSON line {"url","adminKey"[,"controlUrl"]} and nothing else on stdout
  --controls           serve the test controls under /_emulator
  --merge-permissions  permission updates merge lists instead of replacing them
  --help               show this help
`;

class UsageError extends Error {}

function parseOptions(argv: string[]): { options: EmulatorOptions; json: boolean; help: boolean } {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: "string" },
        host: { type: "string" },
        db: { type: "string" },
        "admin-key": { type: "string" },
        json: { type: "boolean", default: false },
        controls: { type: "boolean", default: false },
        "merge-permissions": { type: "boolean", default: false },
        help: { type: "boolean", default: false },
      },
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const portText = values.port ?? String(DEFAULT_CLI_PORT);
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
  if (!(port <= 65535)) throw new UsageError("--port must be an integer from 0 to 65535");
  if (values.host === "") throw new UsageError("--host must not be empty");
  if (values.db === "") throw new UsageError("--db must not be empty");
  if (values["admin-key"] === "") throw new UsageError("--admin-key must not be empty");

  const options: EmulatorOptions = {
    port,
    controls: values.controls,
    permissionsMode: values["merge-permissions"] ? "merge" : "replace",
  };
  if (values.host !== undefined) options.host = values.host;
  if (values.db !== undefined) options.dbFile = values.db;
  if (values["admin-key"] !== undefined) options.adminKey = values["admin-key"];
  return { options, json: values.json, help: values.help };
}

function banner(handle: EmulatorHandle, dbFile: string | undefined): string {
  const lines = [
    "broker-config-emulator is listening",
    `  base URL (broker:baseUrl):  ${handle.url}`,
    `  ACCOUNT key (broker:apiKey): ${handle.adminKey}`,
    `  storage:                    ${dbFile ?? "memory (lost on exit)"}`,
  ];
  if (handle.controlUrl !== undefined) lines.push(`  controls:                   ${handle.controlUrl}`);
  lines.push("Press Ctrl+C to stop.");
  return `${lines.join("\n")}\n`;
}

function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      resolve(signal);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseOptions(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`broker-config-emulator: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.help) {
    process.stdout.write(USAGE);
    return 0;
  }

  // Listen for signals before starting, so a signal that arrives during startup is not lost.
  const signal = untilSignal();
  let handle: EmulatorHandle;
  try {
    handle = await startEmulator(parsed.options);
  } catch (error) {
    process.stderr.write(
      `broker-config-emulator: cannot start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }

  if (parsed.json) {
    const line: Record<string, string> = { url: handle.url, adminKey: handle.adminKey };
    if (handle.controlUrl !== undefined) line.controlUrl = handle.controlUrl;
    process.stdout.write(`${JSON.stringify(line)}\n`);
  } else {
    process.stdout.write(banner(handle, parsed.options.dbFile));
  }

  await signal;
  await handle.close();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `broker-config-emulator: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
