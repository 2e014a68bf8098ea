/**
 * The emulator as a separate process (`node dist/emulator/cli.js --json`), as users run it with
 * `broker-config-emulator`: the bench must not share its own thread with the server it measures,
 * and the reliability tests stop it with SIGTERM and start it again on the same port and database,
 * like a broker restarting.
 */
import { spawn } from "node:child_process";
import * as net from "node:net";
import * as path from "node:path";
import * as readline from "node:readline";
import { REPO_ROOT } from "./repo.mts";

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
  /**
   * Sends SIGTERM (unless it has exited already) and resolves with the exit code once it has
   * exited. The emulator commits every write before answering, so nothing is lost.
   */
  stop(): Promise<number | null>;
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

/** A TCP port that was free a moment ago (to start the emulator again on the same port). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts the built emulator CLI and resolves once it has printed its JSON line. Needs a build (`dist/`). */
export async function startEmulatorProcess(options: EmulatorProcessOptions = {}): Promise<EmulatorProcess> {
  const args = [
    path.join(REPO_ROOT, "dist", "emulator", "cli.js"),
    "--json",
    "--port",
    String(options.port ?? 0),
  ];
  if (options.controls ?? true) args.push("--controls");
  if (options.dbFile !== undefined) args.push("--db", options.dbFile);
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  const stderr: string[] = [];
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => stderr.push(chunk));
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => {
      resolve(code);
    });
  });
  const line = await Promise.race([
    new Promise<string>((resolve) => readline.createInterface({ input: child.stdout }).once("line", resolve)),
    exited.then((code) => {
      throw new Error(`the emulator exited with ${String(code)}: ${stderr.join("")}`);
    }),
  ]);
  const info = JSON.parse(line) as { url: string; adminKey: string; controlUrl?: string };
  return {
    url: info.url,
    adminKey: info.adminKey,
    controlUrl: info.controlUrl ?? "",
    pid: child.pid ?? 0,
    stderr,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
