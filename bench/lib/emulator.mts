/**
 * The emulator as a separate process (`node dist/emulator/cli.js --json`), as users run it: the bench
 * must not share its own thread with the server it measures against.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as path from "node:path";
import * as readline from "node:readline";

/** A running emulator process. */
export interface EmulatorProcess {
  /** The API base URL (`broker:baseUrl`). */
  readonly url: string;
  /** The bootstrap ACCOUNT key (`broker:apiKey`). */
  readonly adminKey: string;
  /** The control URL; empty when started without controls. */
  readonly controlUrl: string;
  /** The process id. */
  readonly pid: number;
  /** Everything the process wrote to stderr. */
  readonly stderr: string[];
  /** Stops it with SIGTERM (the emulator commits every write before answering, so nothing is lost). */
  stop(): Promise<void>;
}

/** Options of {@link startEmulatorProcess}. */
export interface EmulatorProcessOptions {
  /** 0 picks a free port. @default 0 */
  port?: number;
  /** SQLite file to persist to; in memory without it. */
  dbFile?: string;
  /** Serve the test controls. @default true */
  controls?: boolean;
}

/** Starts `dist/emulator/cli.js` and resolves once it has printed its JSON line. */
export async function startEmulatorProcess(
  repoRoot: string,
  options: EmulatorProcessOptions = {},
): Promise<EmulatorProcess> {
  const args = [
    path.join(repoRoot, "dist", "emulator", "cli.js"),
    "--json",
    "--port",
    String(options.port ?? 0),
  ];
  if (options.controls ?? true) args.push("--controls");
  if (options.dbFile !== undefined) args.push("--db", options.dbFile);
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  const stderr: string[] = [];
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => stderr.push(chunk));
  const line = await new Promise<string>((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout });
    lines.once("line", resolve);
    child.once("exit", (code) => {
      reject(new Error(`emulator exited with ${String(code)}: ${stderr.join("")}`));
    });
  });
  const info = JSON.parse(line) as { url: string; adminKey: string; controlUrl?: string };
  return {
    url: info.url,
    adminKey: info.adminKey,
    controlUrl: info.controlUrl ?? "",
    pid: child.pid ?? 0,
    stderr,
    stop: () => stopChild(child),
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => {
      resolve();
    });
  });
  child.kill("SIGTERM");
  return exited;
}
