/**
 * A Pulumi project in a scratch directory, run through the real CLI (offline: file backend,
 * passphrase secrets, no update check, no plugin download). Commands are run directly rather than
 * through the Automation API so that the timings are the CLI's own.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/** The result of one CLI command. */
export interface CliRun {
  stdout: string;
  stderr: string;
  /** Wall-clock seconds the command took. */
  seconds: number;
}

/** A failed CLI command; its output is kept for the report (and the secret scan). */
export class CliError extends Error {
  /** What the command printed. */
  readonly stdout: string;
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
  /** The file backend: everything the engine stores. */
  readonly backendDir: string;
  /** Every command's stdout and stderr, for the secret scan. */
  readonly transcript: string[] = [];
  readonly #env: NodeJS.ProcessEnv;

  /**
   * Copies `programDir` into `<parent>/<name>-XXXX/project` and links the fixture's `node_modules`
   * into it, so the program `require()`s the installed package as users do.
   */
  constructor(options: {
    parent: string;
    name: string;
    programDir: string;
    fixture: string;
    pulumiBin: string;
  }) {
    fs.mkdirSync(options.parent, { recursive: true });
    const root = fs.mkdtempSync(path.join(options.parent, `${options.name}-`));
    this.dir = path.join(root, "project");
    this.backendDir = path.join(root, "backend");
    const home = path.join(root, "pulumi-home");
    fs.mkdirSync(this.backendDir, { recursive: true });
    fs.mkdirSync(home, { recursive: true });
    fs.cpSync(options.programDir, this.dir, { recursive: true });
    fs.symlinkSync(path.join(options.fixture, "node_modules"), path.join(this.dir, "node_modules"), "dir");
    fs.writeFileSync(
      path.join(this.dir, "Pulumi.yaml"),
      `name: ${options.name}\nruntime: nodejs\nmain: index.js\n`,
    );
    fs.writeFileSync(
      path.join(this.dir, "package.json"),
      JSON.stringify({ name: options.name, private: true }),
    );
    this.#env = {
      ...process.env,
      PULUMI_BACKEND_URL: `file://${this.backendDir}`,
      PULUMI_CONFIG_PASSPHRASE: "bench-passphrase",
      PULUMI_HOME: home,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      // Neither the environment nor a developer's shell may point the providers elsewhere.
      BROKER_BASE_URL: "",
      BROKER_API_KEY: "",
      PATH: [options.pulumiBin, path.dirname(process.execPath), process.env["PATH"] ?? ""].join(
        path.delimiter,
      ),
    };
  }

  /**
   * Runs `pulumi <args>` in the project; rejects with {@link CliError} on a non-zero exit.
   * `onStart` receives the CLI's process id (to watch its memory).
   */
  run(args: readonly string[], onStart?: (pid: number) => void): Promise<CliRun> {
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const child = execFile(
        "pulumi",
        [...args, "--non-interactive"],
        { cwd: this.dir, env: this.#env, maxBuffer: 256 * 1024 * 1024 },
        (error, stdout, stderr) => {
          this.transcript.push(stdout, stderr);
          const seconds = (performance.now() - started) / 1000;
          if (error)
            reject(new CliError(`pulumi ${args.join(" ")} failed: ${stderr || stdout}`, stdout, stderr));
          else resolve({ stdout, stderr, seconds });
        },
      );
      if (onStart !== undefined && child.pid !== undefined) onStart(child.pid);
    });
  }

  /** Creates stack `name` and sets its config (`secret` values encrypted with the passphrase). */
  async initStack(name: string, config: Record<string, { value: string; secret?: boolean }>): Promise<void> {
    await this.run(["stack", "init", name]);
    for (const [key, { value, secret }] of Object.entries(config)) {
      await this.run([
        "config",
        "set",
        "--stack",
        name,
        ...(secret === true ? ["--secret"] : []),
        key,
        value,
      ]);
    }
  }

  /** Size in bytes of the stack's checkpoint (its current state) in the file backend. */
  stateBytes(stack: string): number {
    const file = this.#findFile(this.backendDir, `${stack}.json`);
    if (file === undefined) throw new Error(`no checkpoint of stack ${stack} under ${this.backendDir}`);
    return fs.statSync(file).size;
  }

  /** Every file the engine wrote (state, backups, history) and every command's output, as text. */
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
    return texts.join("\n");
  }

  /** Removes the project, its backend and its Pulumi home. */
  remove(): void {
    fs.rmSync(path.dirname(this.dir), { recursive: true, force: true });
  }

  #findFile(dir: string, name: string): string | undefined {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        // Backups and history hold older copies; only the live checkpoint counts.
        if (entry.name === ".history" || entry.name === "backups") continue;
        const found = this.#findFile(full, name);
        if (found !== undefined) return found;
      } else if (entry.name === name) return full;
    }
    return undefined;
  }
}
