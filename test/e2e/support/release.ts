import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Stack, UpResult } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, expect, inject } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../../src/emulator";
import { nodeFreePath } from "../../../harness/node-free-path.mts";
import { PulumiProject } from "../../../harness/pulumi-project.mts";
import {
  buildRelease,
  PACKAGE_VERSION,
  serveDirectory,
  type FileServer,
  type ReleasePart,
} from "../../../harness/release.mts";
import { childPath, REPO_ROOT } from "../../../harness/repo.mts";
import { sourceDateEpoch } from "../../../scripts/release/reproducible.mts";
import { CLI_TEST_SOURCES, SecretScan } from "../../../harness/secret-scan.mts";
import { emulatorConfig, ensureYamlHost, PROGRAMS_DIR } from "../../support/projects";

// Issue #17: the package installed from its release artifacts as a Pulumi user installs a provider,
// through the real CLI, offline, against the emulator. `scripts/release.mts` writes the release into
// a scratch directory that a loopback HTTP server serves as the release page, and the SDKs'
// pluginDownloadURL points there. Each program runs on a PATH without Node.js: the plugin is the
// single executable from the linux-amd64 archive.
//
// Two test files (issue #50: one took 183 s on a quiet 2-core machine, over the budget of 180 s),
// each with a release of its own, built with the parts its programs install:
// - `release.test.ts`: the release directory (checksums, the archive's entries), the Python program
//   with only the wheel and the plugin the CLI downloads, the archive installed with `--file` and the
//   README's YAML program, and a second release of the same commit compared byte for byte.
// - `release-go-and-component.test.ts`: the Go program with the SDK module from the release's
//   GOPROXY directory, and the Environment component constructed by the single executable.

/** The release's version: the package's. */
export const V = PACKAGE_VERSION;

/** The plugin archive the programs install: the only platform the tests build. */
export const ARCHIVE = `pulumi-resource-broker-v${V}-linux-amd64.tar.gz`;

/**
 * The time one step of a program's describe may take: its CLI runs (an `up` is four) with every core
 * busy. At the 60 s default an `up` was cut short under load, leaving its CLI holding the stack.
 */
export const PROGRAM_STEP_TIMEOUT_MS = 300_000;

/** A release built for one test file, served over HTTP: what {@link useRelease} gives. */
export interface Release {
  /** The file's scratch directory: the release, the projects and anything else, removed after all. */
  readonly scratch: string;
  /** The release directory, as `npm run release` writes it. */
  readonly dir: string;
  /** Serves {@link Release.dir} as the release page the SDKs' pluginDownloadURL names, and logs each request. */
  readonly server: FileServer;
  /**
   * The `SOURCE_DATE_EPOCH` the release stamped (its commit's time), read just before it was built:
   * a second build given it stamps the same commit's time even if a commit is made meanwhile.
   */
  readonly epoch: string;
  /** How many times the server was asked for the linux-amd64 plugin archive. */
  archiveFetches(): number;
  /** Installs the `broker` plugin from the release's linux-amd64 archive, as `pulumi plugin install --file` does. */
  installFromArchive(project: PulumiProject): Promise<void>;
  /**
   * Runs `pulumi <command>` (`plugin install` or `install`, no arguments) in `project`, whose Pulumi
   * home holds no plugin: the CLI installs what the program's language host answers it requires.
   * Expects `broker` at the release's version, downloaded from the release's server (the SDK's
   * `pluginDownloadURL`), and nothing else.
   */
  expectRequiredPluginInstalled(project: PulumiProject, command: readonly string[]): Promise<void>;
  /**
   * The project `name` of the YAML program `test/programs/<program>`, on a PATH with the CLI and
   * without Node.js (the YAML language host made ready beside the CLI). Automatic plugin acquisition
   * stays off: the plugin is the one the test installs from the archive
   * ({@link Release.installFromArchive}).
   */
  nodeFreeYamlProject(name: string, program: string): Promise<PulumiProject>;
}

/** {@link Release}, its data set by the hooks of {@link useRelease}. */
class ServedRelease implements Release {
  scratch!: string;
  dir!: string;
  server!: FileServer;
  epoch!: string;

  archiveFetches(): number {
    return this.server.requests.filter((p) => p === `/${ARCHIVE}`).length;
  }

  async installFromArchive(project: PulumiProject): Promise<void> {
    await project.cli(["plugin", "install", "resource", "broker", V, "--file", path.join(this.dir, ARCHIVE)]);
  }

  async expectRequiredPluginInstalled(project: PulumiProject, command: readonly string[]): Promise<void> {
    const before = this.server.requests.length;
    await project.run(command);
    expect(this.server.requests.slice(before)).toEqual([`/${ARCHIVE}`]);
    const listed = JSON.parse((await project.cli(["plugin", "ls", "--json"])).stdout) as {
      name: string;
      kind: string;
      version: string;
    }[];
    expect(listed.map(({ name, kind, version }) => ({ name, kind, version }))).toEqual([
      { name: "broker", kind: "resource", version: V },
    ]);
  }

  nodeFreeYamlProject(name: string, program: string): Promise<PulumiProject> {
    ensureYamlHost();
    const pulumiBin = inject("pulumiBin");
    return PulumiProject.create({
      name,
      programDir: path.join(PROGRAMS_DIR, program),
      fixture: inject("packageFixture"),
      pulumiBin,
      parent: this.scratch,
      env: { PATH: nodeFreePath(childPath(pulumiBin), path.join(this.scratch, `path-${name}`)) },
    });
  }
}

/**
 * Registers the hooks of a test file that installs from a release: before all, a scratch directory,
 * a loopback server for the release in it and the release itself (`parts`, default every part; about
 * 11 s, the single executable from its cache); after all, the server is closed and the scratch
 * directory removed. Call it before the file's other hooks: their `afterAll` then runs first.
 *
 * @param parts - What the file's programs install (`scripts/release.mts --only`); default all.
 * @returns The release, filled in once the hooks ran.
 */
export function useRelease(parts?: readonly ReleasePart[]): Release {
  const release = new ServedRelease();
  beforeAll(async () => {
    release.scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-release-test-"));
    release.epoch = String(sourceDateEpoch(REPO_ROOT));
    release.dir = path.join(release.scratch, "release");
    release.server = await serveDirectory(release.dir);
    buildRelease(release.dir, release.server.url, parts);
  }, 600_000);
  afterAll(async () => {
    // Unset when the hook above failed before it.
    await (release.server as FileServer | undefined)?.close();
    if ((release.scratch as string | undefined) !== undefined)
      fs.rmSync(release.scratch, { recursive: true, force: true });
  });
  return release;
}

/** What one program's describe runs against; `stack` is set by its first test that makes it. */
export interface ReleaseProgram {
  emulator: EmulatorHandle;
  project: PulumiProject;
  stack: Stack;
  /** Looks for the emulator's admin key and every secret the tests add. */
  scan: SecretScan;
  /**
   * The program's first `up`: its stack config set to the program's emulator (the admin key as a
   * secret), then `pulumi up`, whose output the scan reads. Resolves with the result, whose outputs
   * `up` has read.
   */
  upWithEmulatorConfig(): Promise<UpResult>;
  /**
   * The program's last check: its finished project (without the plugin binaries its Pulumi home
   * holds: no state is in them), its CLI transcript and everything the scan was given hold no secret
   * in plain text, and the scan read every source a CLI test must (state, backups, history, output).
   *
   * @param name - The project's name in the scan's findings.
   */
  expectNoSecretInPlainText(name: string): void;
}

/**
 * Registers the hooks of one program's describe: before all, an emulator of its own (workspaces
 * cannot be deleted, and each program makes the same ones) and the project `createProject` makes;
 * after all, both are closed and removed. The returned object is filled in once the hooks ran.
 */
export function useReleaseProgram(createProject: () => Promise<PulumiProject>): ReleaseProgram {
  const program = {
    scan: new SecretScan(),
    async upWithEmulatorConfig() {
      await program.stack.setAllConfig(emulatorConfig(program.emulator));
      const up = await program.stack.up();
      program.scan.text("up", up.stdout + up.stderr, "cli output");
      return up;
    },
    expectNoSecretInPlainText(name) {
      fs.rmSync(path.join(program.project.homeDir, "plugins"), { recursive: true, force: true });
      program.scan.text("transcript", program.project.transcript.join("\n"), "cli output");
      program.scan.project(name, program.project);
      expect(program.scan.unread(CLI_TEST_SOURCES)).toEqual([]);
      expect(program.scan.leaks()).toEqual([]);
    },
  } as ReleaseProgram;
  beforeAll(async () => {
    program.emulator = await startEmulator({ controls: true });
    program.scan.secrets(program.emulator.adminKey);
    program.project = await createProject();
  }, 300_000);
  afterAll(async () => {
    await program.emulator.close();
    program.project.remove();
  });
  return program;
}
