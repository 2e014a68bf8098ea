/**
 * The emulator as a separate process with a database file, as `broker-config-emulator --db` runs:
 * stopped with SIGTERM and started again on the same port and database, like a broker restarting.
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import * as net from "node:net";
import * as path from "node:path";
import * as readline from "node:readline";
import type { Readable } from "node:stream";
import { REPO_ROOT } from "../../support/package-fixture";

/** A running emulator process. */
export interface EmulatorProcess {
  url: string;
  adminKey: string;
  controlUrl: string;
  /** Everything it wrote to stderr. */
  stderr: string[];
  /** SIGTERM, then waits for the exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** A TCP port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts `dist/emulator/cli.js --json --controls --db <dbFile> --port <port>`. */
export async function startEmulatorProcess(dbFile: string, port: number): Promise<EmulatorProcess> {
  const cli = path.join(REPO_ROOT, "dist", "emulator", "cli.js");
  const child: ChildProcessByStdio<null, Readable, Readable> = spawn(
    process.execPath,
    [cli, "--json", "--controls", "--db", dbFile, "--port", String(port)],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
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
      throw new Error(`the emulator exited with ${code}: ${stderr.join("")}`);
    }),
  ]);
  const info = JSON.parse(line) as { url: string; adminKey: string; controlUrl: string };
  return {
    ...info,
    stderr,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
