/**
 * The Pulumi CLI as `broker-config recover` uses it: the stack's state out and back in, the lock of
 * an interrupted update, and one repair of the file backend. Every command runs in the current
 * directory with the caller's environment, so it reaches the same backend and stack the user's
 * `pulumi up` did.
 */
import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { parse } from "yaml";
import type { ExportedStack } from "./migrate-state";
import { BrokerError } from "../client/errors";

const run = promisify(execFile);

/** A `pulumi` command failed; the message says which, and what the CLI said. */
export class PulumiCommandError extends BrokerError {
  constructor(args: readonly string[], said: string) {
    super("BROKER_PULUMI_COMMAND_FAILED", `\`pulumi ${args.join(" ")}\` failed: ${said.trim()}`);
    this.name = "PulumiCommandError";
  }
}

/** Runs `pulumi args`; its standard output, or a {@link PulumiCommandError}. */
async function pulumi(args: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  try {
    const { stdout } = await run("pulumi", [...args], { env, maxBuffer: 1 << 30 });
    return stdout;
  } catch (error) {
    const failed = error as { stderr?: string; message: string };
    throw new PulumiCommandError(args, failed.stderr ?? failed.message);
  }
}

/** The name of the stack selected in the current directory. */
export async function selectedStack(env: NodeJS.ProcessEnv): Promise<string> {
  return (await pulumi(["stack", "--show-name"], env)).trim();
}

/** `pulumi stack export --show-secrets`, parsed: secrets in plain text, in memory only. */
export async function exportStack(
  stackArgs: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<ExportedStack> {
  return JSON.parse(await pulumi(["stack", "export", "--show-secrets", ...stackArgs], env)) as ExportedStack;
}

/** `pulumi cancel --yes`: ends an update's hold on the stack (the lock a killed CLI kept). */
export async function cancelUpdate(stackArgs: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  await pulumi(["cancel", "--yes", ...stackArgs], env);
}

/**
 * `pulumi stack import` with `exported` written to its standard input, so plain-text secrets never
 * touch the disk; the CLI encrypts them with the stack's secrets provider.
 */
export function importStack(
  stackArgs: readonly string[],
  exported: ExportedStack,
  env: NodeJS.ProcessEnv,
): Promise<{ ok: true } | { ok: false; message: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("pulumi", ["stack", "import", ...stackArgs], {
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const output: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => output.push(chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) {
        resolve({ ok: true });
        return;
      }
      const said = Buffer.concat(output).toString("utf8").trim();
      resolve({
        ok: false,
        message: /locked/iu.test(said)
          ? `the stack is still locked by the interrupted update; when no \`pulumi\` command runs on it any more, run \`broker-config recover --cancel\` (pulumi said: ${said})`
          : `\`pulumi stack import\` failed and the state was not changed (pulumi said: ${said})`,
      });
    });
    child.stdin.end(JSON.stringify(exported));
  });
}

/**
 * Removes the empty metadata file (`<stack>.json.attrs`) that a CLI killed while saving the state
 * leaves beside the checkpoint of a file backend (`file://`): the backend writes that file in place,
 * before it renames the new checkpoint over the old one, so a kill in between leaves it empty and
 * every later command fails with `failed to load checkpoint: EOF`. Without the file the backend
 * reads the checkpoint as it is. Only an empty file of this stack is removed; returns its path.
 */
export async function repairCheckpointMetadata(
  stack: string,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  const url = (JSON.parse(await pulumi(["whoami", "--output", "json"], env)) as { url?: string }).url ?? "";
  if (!url.startsWith("file://")) return undefined;
  const stacks = path.join(fileURLToPath(url), ".pulumi", "stacks");
  const stackName = stack.slice(stack.lastIndexOf("/") + 1);
  const project = projectName();
  const directories = project === undefined ? [stacks] : [path.join(stacks, project), stacks];
  for (const directory of directories) {
    for (const extension of [".json", ".json.gz", ".json.zst"]) {
      const attrs = path.join(directory, `${stackName}${extension}.attrs`);
      const stat = fs.statSync(attrs, { throwIfNoEntry: false });
      if (
        stat?.isFile() === true &&
        stat.size === 0 &&
        fs.existsSync(path.join(directory, `${stackName}${extension}`))
      ) {
        fs.rmSync(attrs);
        return attrs;
      }
    }
  }
  return undefined;
}

/** The project name of `Pulumi.yaml` in the current directory, if there is one. */
function projectName(): string | undefined {
  for (const file of ["Pulumi.yaml", "Pulumi.yml"]) {
    if (!fs.existsSync(file)) continue;
    let project: unknown;
    try {
      project = parse(fs.readFileSync(file, "utf8"));
    } catch {
      // A file the CLI cannot read either: the stack's directory is then searched without it.
      continue;
    }
    const name =
      typeof project === "object" && project !== null ? (project as { name?: unknown }).name : undefined;
    if (typeof name === "string") return name;
  }
  return undefined;
}
