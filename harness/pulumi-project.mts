/**
 * A Pulumi project in a scratch directory, run with the real CLI offline: a file backend,
 * passphrase secrets, its own Pulumi home, no update check, no plugin download. Its `node_modules`
 * is the package fixture's, so programs `require("pulumi-broker-config")` as users do.
 *
 * Two ways to run it: {@link PulumiProject.stack} through the Automation API (the tests), and
 * {@link PulumiProject.run}, the CLI command itself, so that timings are the CLI's own (the bench).
 *
 * What one command costs beyond the engine's own work, and what the project cuts (measured in
 * docs/offline-engine.md, "The cost of one command"):
 * - every Node.js process a command starts (the program, the dynamic-provider host, the `broker`
 *   plugin when it runs from JavaScript) loads `@pulumi/pulumi` again: the project's commands share a
 *   V8 code cache ({@link NODE_COMPILE_CACHE_DIR}), which leaves what runs exactly as it was;
 * - the Automation API's `up` spawns the CLI three more times after the update (`stack output`
 *   masked, `stack output --show-secrets`, `stack history`, each deriving the passphrase key), and
 *   `refresh` and `destroy` once (`stack history`): the project's stacks read the same from the file
 *   backend instead (harness/file-backend.mts), and `stack()` of a stack that does not exist yet
 *   runs `stack init` alone instead of a failing `stack select` first;
 * - the Automation API's `PulumiCommand.get` runs `pulumi version`: one per CLI for the process.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { LocalWorkspace, PulumiCommand, type Stack } from "@pulumi/pulumi/automation/index.js";
import { readLastUpdate, readStackOutputs } from "./file-backend.mts";
import { seedEncryptionSalt, writeStackConfig, type StackConfig } from "./stack-config-file.mts";
import { childPath, nodeCompileCacheDir } from "./repo.mts";

/**
 * The V8 code cache (`NODE_COMPILE_CACHE`, Node >= 22.1) every Node.js process of a project's
 * commands shares, unless the environment names one already: loading `@pulumi/pulumi` took 5.6 s
 * without it and 2.5 s with it under a load of 21 on 2 cores. The cache holds compiled code keyed by
 * the source's hash and Node's version, so a changed file or another Node simply misses it.
 */
export const NODE_COMPILE_CACHE_DIR = nodeCompileCacheDir();

export type { StackConfig };

/** The Automation API's handle on each CLI, by its root directory: `get` runs `pulumi version`. */
const pulumiCommands = new Map<string, Promise<PulumiCommand>>();

function pulumiCommand(root: string): Promise<PulumiCommand> {
  let command = pulumiCommands.get(root);
  if (command === undefined) {
    command = PulumiCommand.get({ root, skipVersionCheck: true });
    // A failed start is not remembered: the next project tries again and reports its own error.
    command.catch(() => pulumiCommands.delete(root));
    pulumiCommands.set(root, command);
  }
  return command;
}

/** Options of {@link PulumiProject.create}. */
export interface PulumiProjectOptions {
  /** The project name (also the start of its scratch directory's name). */
  name: string;
  /** A JavaScript program (`index.js`), copied into the project. */
  programDir: string;
  /**
   * The package fixture whose `node_modules` the project links; `null` links none (a test that
   * installs the project's dependencies itself, as `npm install` in a user's project does).
   */
  fixture: string | null;
  /** The directory of the Pulumi CLI (see `pulumiBinDir`). */
  pulumiBin: string;
  /** Where the scratch directory goes. @default os.tmpdir() */
  parent?: string;
  /** Added to (and overriding) the environment of every command. */
  env?: Record<string, string | undefined>;
}

/** The result of one CLI command run by {@link PulumiProject.run}. */
export interface CliRun {
  stdout: string;
  stderr: string;
  /** Wall-clock seconds the command took. */
  seconds: number;
}

/** A failed CLI command; its output is kept for the report and the secret scan. */
export class CliError extends Error {
  /** What the command printed on stdout. */
  readonly stdout: string;
  /** What the command printed on stderr. */
  readonly stderr: string;

  constructor(message: string, stdout: string, stderr: string) {
    super(message);
    this.name = "CliError";
    this.stdout = stdout;
    this.stderr = stderr;
  }
}

/** A project directory with its own backend and Pulumi home. */
export class PulumiProject {
  /** The project directory. */
  readonly dir: string;
  /** The file backend's directory: everything the engine stores. */
  readonly backendDir: string;
  /** The project's own Pulumi home (`PULUMI_HOME`). */
  readonly homeDir: string;
  /** The stdout and stderr of every command {@link PulumiProject.run} ran, for secret scans. */
  readonly transcript: string[] = [];
  readonly #env: Record<string, string>;
  /** The passphrase of the project's stacks (`PULUMI_CONFIG_PASSPHRASE`). */
  get #passphrase(): string {
    return this.#env["PULUMI_CONFIG_PASSPHRASE"] ?? "";
  }
  readonly #command: PulumiCommand;
  /** Each stack's checkpoint path, once {@link stateFile} found it. */
  readonly #stateFiles = new Map<string, string>();

  private constructor(root: string, env: Record<string, string>, command: PulumiCommand) {
    this.dir = path.join(root, "project");
    this.backendDir = path.join(root, "backend");
    this.homeDir = path.join(root, "pulumi-home");
    this.#env = env;
    this.#command = command;
  }

  /**
   * Copies `programDir` into `<parent>/pbc-<name>-XXXX/project`, links the fixture's
   * `node_modules` into it (unless `fixture` is `null`) and writes `Pulumi.yaml` and `package.json` where the program has none.
   */
  static async create(options: PulumiProjectOptions): Promise<PulumiProject> {
    const parent = options.parent ?? os.tmpdir();
    fs.mkdirSync(parent, { recursive: true });
    const root = fs.mkdtempSync(path.join(parent, `pbc-${options.name}-`));
    const env: Record<string, string> = {};
    const settings: Record<string, string | undefined> = {
      PULUMI_BACKEND_URL: `file://${path.join(root, "backend")}`,
      PULUMI_CONFIG_PASSPHRASE: "harness-passphrase",
      PULUMI_HOME: path.join(root, "pulumi-home"),
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
      NODE_COMPILE_CACHE: NODE_COMPILE_CACHE_DIR,
      // Neither the environment nor a developer's shell may point the providers elsewhere.
      BROKER_BASE_URL: "",
      BROKER_API_KEY: "",
      PATH: childPath(options.pulumiBin),
      ...options.env,
    };
    for (const [name, value] of Object.entries(settings)) if (value !== undefined) env[name] = value;
    const command = await pulumiCommand(path.dirname(options.pulumiBin));
    const project = new PulumiProject(root, env, command);
    fs.mkdirSync(project.backendDir, { recursive: true });
    fs.mkdirSync(project.homeDir, { recursive: true });
    fs.cpSync(options.programDir, project.dir, { recursive: true });
    if (options.fixture !== null)
      fs.symlinkSync(
        path.join(options.fixture, "node_modules"),
        path.join(project.dir, "node_modules"),
        "dir",
      );
    const pulumiYaml = path.join(project.dir, "Pulumi.yaml");
    if (!fs.existsSync(pulumiYaml))
      fs.writeFileSync(pulumiYaml, `name: ${options.name}\nruntime: nodejs\nmain: index.js\n`);
    const packageJson = path.join(project.dir, "package.json");
    // A project without the fixture brings its own files (`pulumi new`'s layout), not necessarily Node's.
    if (options.fixture !== null && !fs.existsSync(packageJson))
      fs.writeFileSync(packageJson, JSON.stringify({ name: options.name, private: true }));
    return project;
  }

  /**
   * Creates or selects `stackName` through the Automation API and sets `config` on it. The stack
   * reads its outputs and its last operation's summary (what `up`, `refresh` and `destroy` report
   * when they end) from the file backend, as `pulumi stack output` and `pulumi stack history` print
   * them, rather than starting the CLI for each.
   */
  async stack(stackName: string, config: StackConfig = {}): Promise<Stack> {
    const args = { stackName, workDir: this.dir };
    const options = { envVars: this.#env, pulumiCommand: this.#command };
    // `createOrSelectStack` tries `stack select` first, a CLI start that fails for every new stack.
    const isNew = findFile(this.backendDir, `${stackName}.json`) === undefined;
    if (isNew) await seedEncryptionSalt(this.dir, stackName, this.#passphrase);
    const stack = isNew
      ? await LocalWorkspace.createStack(args, options).catch(() => LocalWorkspace.selectStack(args, options))
      : await LocalWorkspace.selectStack(args, options);
    readFromBackend(stack, () => this.stateFile(stackName), this.#passphrase);
    this.#writeConfigOf(stack);
    if (Object.keys(config).length > 0) await stack.setAllConfig(config);
    return stack;
  }

  /**
   * Sets `config` on stack `stack` by writing its `Pulumi.<stack>.yaml` (harness/stack-config-file.mts),
   * as `pulumi config set-all` would without starting the CLI.
   */
  async setConfig(stack: string, config: StackConfig): Promise<void> {
    await writeStackConfig(this.dir, stack, config, this.#passphrase);
  }

  /** Makes `stack`'s `setConfig` and `setAllConfig` (without `path`) write its file, not start the CLI. */
  #writeConfigOf(stack: Stack): void {
    const setAllConfig = stack.setAllConfig.bind(stack);
    const setConfig = stack.setConfig.bind(stack);
    stack.setAllConfig = async (config, path) => {
      if (path === true) await setAllConfig(config, path);
      else await this.setConfig(stack.name, config);
    };
    stack.setConfig = async (key, value, path) => {
      if (path === true) await setConfig(key, value, path);
      else await this.setConfig(stack.name, { [key]: value });
    };
  }

  /**
   * Runs `pulumi <args> --non-interactive` in the project, with the project's environment plus
   * `env`; rejects with {@link CliError} on a non-zero exit. `onStart` receives the CLI's process id
   * as soon as it runs (to watch its memory). With `ownProcessGroup`, the CLI leads a process group
   * of its own, as a CI runner's job does, so a test can kill the group as a cancelled job is killed.
   */
  run(
    args: readonly string[],
    env: Record<string, string> = {},
    onStart?: (pid: number) => void,
    { ownProcessGroup = false }: { ownProcessGroup?: boolean } = {},
  ): Promise<CliRun> {
    const started = performance.now();
    return new Promise((resolve, reject) => {
      // spawn, not execFile: execFile does not pass `detached` on.
      const child = spawn("pulumi", [...args, "--non-interactive"], {
        cwd: this.dir,
        env: { ...process.env, ...this.#env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
        detached: ownProcessGroup,
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
      child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
      child.on("error", reject);
      child.on("close", (code, signal) => {
        const stdout = Buffer.concat(out).toString("utf8");
        const stderr = Buffer.concat(err).toString("utf8");
        this.transcript.push(stdout, stderr);
        const seconds = (performance.now() - started) / 1000;
        if (code !== 0) {
          const how = signal === null ? `exit code ${code}` : `signal ${signal}`;
          reject(
            new CliError(`pulumi ${args.join(" ")} failed (${how}): ${stderr || stdout}`, stdout, stderr),
          );
        } else resolve({ stdout, stderr, seconds });
      });
      if (onStart !== undefined && child.pid !== undefined) onStart(child.pid);
    });
  }

  /**
   * The CLI itself, for commands the Automation API runs differently (it always adds
   * `--show-secrets` to `stack export`) or not at all (`state unprotect`): {@link PulumiProject.run}
   * without the timing.
   */
  async cli(
    args: readonly string[],
    env: Record<string, string> = {},
  ): Promise<{ stdout: string; stderr: string }> {
    const { stdout, stderr } = await this.run(args, env);
    return { stdout, stderr };
  }

  /**
   * Runs `command args` (not the CLI: a tool users run beside it, such as `broker-config recover`)
   * in the project directory with the project's environment, so that the `pulumi` it starts is this
   * project's; resolves with its exit code and output, and keeps the output for secret scans.
   */
  exec(command: string, args: readonly string[]): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, {
        cwd: this.dir,
        env: { ...process.env, ...this.#env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const chunks: Buffer[] = [];
      child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
      child.stderr.on("data", (chunk: Buffer) => chunks.push(chunk));
      child.on("error", reject);
      child.on("close", (code) => {
        const output = Buffer.concat(chunks).toString("utf8");
        this.transcript.push(output);
        resolve({ code, output });
      });
    });
  }

  /** Creates stack `name` with `pulumi stack init` and sets its config by writing its file ({@link setConfig}). */
  async initStack(name: string, config: StackConfig): Promise<void> {
    await seedEncryptionSalt(this.dir, name, this.#passphrase);
    await this.run(["stack", "init", name]);
    await this.setConfig(name, config);
  }

  /**
   * The path of `stack`'s current state file (its checkpoint) in the file backend, not one of its
   * backups or history copies.
   */
  stateFile(stack: string): string {
    // Found once per stack (a walk of the backend directory), then asked of the disk: the file
    // backend keeps a stack's checkpoint at one path, which a removed stack leaves.
    const known = this.#stateFiles.get(stack);
    if (known !== undefined && fs.existsSync(known)) return known;
    const file = findFile(this.backendDir, `${stack}.json`);
    if (file === undefined) throw new Error(`no checkpoint of stack ${stack} under ${this.backendDir}`);
    this.#stateFiles.set(stack, file);
    return file;
  }

  /** Size in bytes of the stack's checkpoint (its current state) in the file backend. */
  stateBytes(stack: string): number {
    return fs.statSync(this.stateFile(stack)).size;
  }

  /**
   * Everything the project produced, as one text for secret scans: the output of every command
   * {@link PulumiProject.run} ran, and every file the engine wrote (state, backups, history) in the
   * backend and the Pulumi home.
   */
  producedText(): string {
    const texts = [...this.transcript];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.isFile()) texts.push(fs.readFileSync(full, "utf8"));
      }
    };
    walk(this.backendDir);
    walk(this.homeDir);
    return texts.join("\n");
  }

  /** Removes the project, its backend and its Pulumi home. */
  remove(): void {
    fs.rmSync(path.dirname(this.dir), { recursive: true, force: true });
  }
}

/**
 * Makes `stack`'s `outputs()` and `info()` (which `up`, `refresh` and `destroy` call when they end)
 * read the file backend instead of starting the CLI for each (harness/file-backend.mts).
 */
function readFromBackend(stack: Stack, stateFile: () => string, passphrase: string): void {
  stack.outputs = async () => await readStackOutputs(stateFile(), passphrase);
  stack.info = async (showSecrets?: boolean) =>
    await readLastUpdate(stateFile(), passphrase, showSecrets ?? true);
}

/** The file `name` under `dir`, outside backups and history (they hold older copies of the checkpoint). */
function findFile(dir: string, name: string): string | undefined {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === ".history" || entry.name === "backups") continue;
      const found = findFile(full, name);
      if (found !== undefined) return found;
    } else if (entry.name === name) return full;
  }
  return undefined;
}
