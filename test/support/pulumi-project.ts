import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { LocalWorkspace, PulumiCommand, type Stack } from "@pulumi/pulumi/automation";

/**
 * A Pulumi project in a temporary directory, run through the Automation API with the real CLI
 * (offline: local file backend, passphrase secrets, no update check, no plugin download). Its
 * `node_modules` is the package fixture's, so programs `require("pulumi-broker-config")` as users do.
 */
export class PulumiProject {
  private constructor(
    /** The project directory. */
    readonly dir: string,
    /** The file backend's directory: everything the engine stores. */
    readonly backendDir: string,
    private readonly command: PulumiCommand,
    private readonly env: Record<string, string>,
    /** The project's name (its state files are under `.pulumi/stacks/<name>/`). */
    readonly name: string,
    private readonly pulumiBin: string,
  ) {}

  /**
   * Copies `programDir` (a JavaScript program) into a new project named `name` and links the
   * fixture's node_modules into it.
   */
  static async create(options: {
    name: string;
    programDir: string;
    fixture: string;
    pulumiBin: string;
    env?: Record<string, string>;
  }): Promise<PulumiProject> {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), `pbc-${options.name}-`));
    const dir = path.join(root, "project");
    const backendDir = path.join(root, "backend");
    const home = path.join(root, "pulumi-home");
    fs.mkdirSync(backendDir, { recursive: true });
    fs.mkdirSync(home, { recursive: true });
    fs.cpSync(options.programDir, dir, { recursive: true });
    fs.symlinkSync(path.join(options.fixture, "node_modules"), path.join(dir, "node_modules"), "dir");
    if (!fs.existsSync(path.join(dir, "Pulumi.yaml"))) {
      fs.writeFileSync(
        path.join(dir, "Pulumi.yaml"),
        `name: ${options.name}\nruntime: nodejs\nmain: index.js\n`,
      );
    }
    if (!fs.existsSync(path.join(dir, "package.json"))) {
      fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: options.name, private: true }));
    }
    const env: Record<string, string> = {
      PULUMI_BACKEND_URL: `file://${backendDir}`,
      PULUMI_CONFIG_PASSPHRASE: "e2e-passphrase",
      PULUMI_HOME: home,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
      PATH: `${options.pulumiBin}${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}${process.env["PATH"] ?? ""}`,
      ...options.env,
    };
    const command = await PulumiCommand.get({
      root: path.dirname(options.pulumiBin),
      skipVersionCheck: true,
    });
    return new PulumiProject(dir, backendDir, command, env, options.name, options.pulumiBin);
  }

  /** Creates or selects `stackName`, with `config` (keys as `ns:key`; `secret` ones encrypted). */
  async stack(
    stackName: string,
    config: Record<string, { value: string; secret?: boolean }> = {},
  ): Promise<Stack> {
    const stack = await LocalWorkspace.createOrSelectStack(
      { stackName, workDir: this.dir },
      { envVars: this.env, pulumiCommand: this.command },
    );
    if (Object.keys(config).length > 0) await stack.setAllConfig(config);
    return stack;
  }

  /**
   * Runs the `pulumi` CLI itself in the project directory, with the project's environment plus `env`:
   * for commands the Automation API runs differently (it always adds `--show-secrets` to
   * `stack export`) or not at all (`state unprotect`). Rejects with the output when it fails.
   */
  cli(
    args: readonly string[],
    env: Record<string, string> = {},
  ): Promise<{ stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      execFile(
        path.join(this.pulumiBin, "pulumi"),
        [...args, "--non-interactive"],
        { cwd: this.dir, env: { ...process.env, ...this.env, ...env }, maxBuffer: 256 * 1024 * 1024 },
        (error, stdout, stderr) => {
          if (error)
            reject(new Error(`pulumi ${args.join(" ")} failed: ${error.message}\n${stdout}\n${stderr}`));
          else resolve({ stdout, stderr });
        },
      );
    });
  }

  /** The path of `stack`'s current state file in the file backend. */
  stateFile(stack: string): string {
    return path.join(this.backendDir, ".pulumi", "stacks", this.name, `${stack}.json`);
  }

  /** Every file the engine wrote (state, backups, history), concatenated: for secret scans. */
  backendText(): string {
    const texts: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else texts.push(fs.readFileSync(full).toString("utf8"));
      }
    };
    walk(this.backendDir);
    walk(this.dir.replace(/project$/u, "pulumi-home"));
    return texts.join("\n");
  }

  /** Removes the project, its backend and its Pulumi home. */
  remove(): void {
    fs.rmSync(path.dirname(this.dir), { recursive: true, force: true });
  }
}
