// `npm run demo` / `npm run demo:destroy`: deploys the quickstart program (Pulumi.yaml at the
// repository root) to the embedded emulator, offline, with nothing to set up beyond `npm install`.
//
// State lives in .demo/: the emulator's database (so a second run finds everything again and
// reports no changes), the Pulumi file backend, and the port the emulator listens on.
import { execFileSync, spawn, spawnSync, type ChildProcessByStdio } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import * as readline from "node:readline";
import type { Readable } from "node:stream";

const repo = path.resolve(import.meta.dirname, "..");
const demoDir = path.join(repo, ".demo");
const stackName = "demo";
const action = process.argv[2] === "destroy" ? "destroy" : "up";

// A fixed passphrase is fine for a local demo whose only secrets are emulator keys; real stacks
// use a secret passphrase or a cloud secrets provider.
const DEMO_PASSPHRASE = "pulumi-broker-config-demo";

function say(message: string): void {
  process.stdout.write(`\n▶ ${message}\n`);
}

/** The program at the root requires the package by name; from its own root a package cannot, so link it. */
function linkPackageIntoItself(): void {
  const link = path.join(repo, "node_modules", "pulumi-broker-config");
  if (!fs.existsSync(link)) fs.symlinkSync("..", link, "dir");
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer().once("error", () => {
      resolve(false);
    });
    server.listen(port, "127.0.0.1", () => {
      server.close(() => {
        resolve(true);
      });
    });
  });
}

/** The emulator's port: the one of earlier runs (the stack records its endpoint), else 4010 or a free one. */
async function demoPort(): Promise<number> {
  const file = path.join(demoDir, "port");
  if (fs.existsSync(file)) return Number(fs.readFileSync(file, "utf8"));
  let port = Number(process.env["BROKER_DEMO_PORT"] ?? 4010);
  while (!(await portIsFree(port))) port++;
  fs.writeFileSync(file, String(port));
  return port;
}

async function startEmulator(
  port: number,
): Promise<{ child: ChildProcessByStdio<null, Readable, null>; url: string; adminKey: string }> {
  if (!(await portIsFree(port))) {
    throw new Error(
      `port ${port} (recorded in .demo/port) is in use; stop what uses it, or delete .demo/ to start over`,
    );
  }
  const child = spawn(
    process.execPath,
    [
      path.join(repo, "dist/emulator/cli.js"),
      "--json",
      "--port",
      String(port),
      "--db",
      path.join(demoDir, "emulator.db"),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once("line", resolve);
    child.once("exit", (code) => {
      reject(new Error(`the emulator exited with code ${String(code)}`));
    });
  });
  const { url, adminKey } = JSON.parse(line) as { url: string; adminKey: string };
  return { child, url, adminKey };
}

function pulumi(bin: string, env: NodeJS.ProcessEnv, args: string[], input?: string): void {
  const result = spawnSync(path.join(bin, "pulumi"), args, {
    cwd: repo,
    env,
    stdio: [input === undefined ? "inherit" : "pipe", "inherit", "inherit"],
    ...(input === undefined ? {} : { input }),
  });
  if (result.status !== 0) throw new Error(`pulumi ${args.join(" ")} failed (exit ${String(result.status)})`);
}

async function main(): Promise<void> {
  // .demo/ holds the emulator's database (key values in plain text) and the demo stack's state, whose
  // passphrase is printed below: only its owner may read it, whatever the umask.
  fs.mkdirSync(path.join(demoDir, "state"), { recursive: true, mode: 0o700 });
  fs.chmodSync(demoDir, 0o700);
  linkPackageIntoItself();
  say(
    "Making sure the Pulumi CLI is available (built offline the first time; see scripts/ensure-pulumi-cli.sh)",
  );
  const bin = execFileSync("bash", [path.join(repo, "scripts/ensure-pulumi-cli.sh")], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();

  const port = await demoPort();
  say(`Starting the emulator on 127.0.0.1:${port} with its data in .demo/emulator.db`);
  const emulator = await startEmulator(port);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${bin}${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}${process.env["PATH"] ?? ""}`,
    PULUMI_BACKEND_URL: `file://${path.join(demoDir, "state")}`,
    PULUMI_CONFIG_PASSPHRASE: DEMO_PASSPHRASE,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
  };
  delete env["BROKER_BASE_URL"];
  delete env["BROKER_API_KEY"];
  try {
    pulumi(bin, env, ["stack", "select", stackName, "--create", "--non-interactive"]);
    pulumi(bin, env, ["config", "set", "broker:baseUrl", emulator.url]);
    // Through stdin, so the key never shows in a process list.
    pulumi(bin, env, ["config", "set", "--secret", "broker:apiKey"], emulator.adminKey);
    if (action === "destroy") {
      say("pulumi destroy");
      pulumi(bin, env, ["destroy", "--yes", "--non-interactive"]);
      say("Done. The emulator's data stays in .demo/ (delete the folder to start from scratch).");
      return;
    }
    say("pulumi up");
    pulumi(bin, env, ["up", "--yes", "--non-interactive"]);
    say("Stack outputs (secrets masked)");
    pulumi(bin, env, ["stack", "output"]);
    process.stdout.write(
      [
        "",
        "Next:",
        "  npm run demo                 run it again: nothing changes",
        "  npm run demo:destroy         revoke the keys and empty the stack",
        "  Show the secrets, with the demo's backend and passphrase:",
        `    PULUMI_BACKEND_URL=file://${path.join(demoDir, "state")} PULUMI_CONFIG_PASSPHRASE=${DEMO_PASSPHRASE} \\`,
        `      PATH=${bin}:$PATH pulumi stack output --show-secrets --stack ${stackName}`,
        "  Edit examples/quickstart/index.ts (the program) and run `npm run demo` to apply it.",
        "",
      ].join("\n"),
    );
  } finally {
    emulator.child.kill("SIGTERM");
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
