import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { EXAMPLE_FILES } from "../../src/core/declarations/examples";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { allKeys, allWorkspaces, keyById } from "../../harness/broker-native.mts";
import { nodeFreePath } from "../../harness/node-free-path.mts";
import { PulumiProject, type StackConfig } from "../../harness/pulumi-project.mts";
import { programsVenv, sdkVirtualenv } from "../../harness/python-sdk.mts";
import {
  buildRelease,
  buildReleaseInBackground,
  PACKAGE_VERSION,
  serveDirectory,
  type FileServer,
} from "../../harness/release.mts";
import { childPath, GO_BUILD_ENV, REPO_ROOT } from "../../harness/repo.mts";
import { sourceDateEpoch } from "../../scripts/release/reproducible.mts";
import { CLI_TEST_SOURCES, SecretScan } from "../../harness/secret-scan.mts";
import { ensureYamlHost } from "../support/projects";
import { isEncryptedSecret, stateOutputs } from "../support/state";

// Issue #17: the package installed from its release artifacts as a Pulumi user installs a provider,
// through the real CLI, offline, against the emulator. `scripts/release.mts` writes the release into
// a scratch directory that a loopback HTTP server serves as the release page, and the SDKs' pluginDownloadURL
// points there. Each program runs on a PATH without Node.js: the plugin is the single executable
// from the linux-amd64 archive.

const V = PACKAGE_VERSION;
const ARCHIVE = `pulumi-resource-broker-v${V}-linux-amd64.tar.gz`;
const programs = path.join(__dirname, "..", "programs");
/**
 * The time one step of a program's describe may take: its CLI runs (an `up` is four) with every core
 * busy. At the 60 s default an `up` was cut short under load, leaving its CLI holding the stack.
 */
const PROGRAM_STEP_TIMEOUT_MS = 300_000;

let scratch: string;
let releaseDir: string;
let server: FileServer;
/** The second release of the same commit, built while the programs below run (the last describe compares it). */
let again: { dir: string; built: Promise<void> };

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-release-test-"));
  const epoch = String(sourceDateEpoch(REPO_ROOT));
  releaseDir = path.join(scratch, "release");
  server = await serveDirectory(releaseDir);
  buildRelease(releaseDir, server.url);
  // The npm tarball is left out of the second build and of the comparison: `npm pack` stamps no
  // time but is not this artifact to pin.
  const dir = path.join(scratch, "release-again");
  // The second build stamps the first one's time (its commit's, scripts/release/reproducible.mts),
  // read before it: the same commit's, even when one is made in the worktree while the programs run.
  again = {
    dir,
    built: buildReleaseInBackground(dir, server.url, ["plugin", "python", "go"], {
      SOURCE_DATE_EPOCH: epoch,
    }),
  };
  // Awaited by the last test; a failure here must not surface as an unhandled rejection before it.
  again.built.catch(() => undefined);
}, 600_000);

afterAll(async () => {
  // Unset when the first build failed.
  await (again as typeof again | undefined)?.built.catch(() => undefined);
  await server.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** How many times the server was asked for the linux-amd64 plugin archive. */
function archiveFetches(): number {
  return server.requests.filter((p) => p === `/${ARCHIVE}`).length;
}

function brokerConfig(emulator: EmulatorHandle): StackConfig {
  return {
    "broker:baseUrl": { value: emulator.url },
    "broker:apiKey": { value: emulator.adminKey, secret: true },
  };
}

function number(outputs: Record<string, { value: unknown }>, name: string): number {
  const value = outputs[name]?.value;
  if (typeof value !== "number")
    throw new Error(`stack output ${name} is ${JSON.stringify(value)}, not a number`);
  return value;
}

/**
 * Runs `pulumi <command>` (`plugin install` or `install`, no arguments) in `project`, whose Pulumi
 * home holds no plugin: the CLI installs what the program's language host answers it requires.
 * Expects `broker` at the release's version, downloaded from the release's server (the SDK's
 * `pluginDownloadURL`), and nothing else.
 */
async function expectRequiredPluginInstalled(
  project: PulumiProject,
  command: readonly string[],
): Promise<void> {
  const before = server.requests.length;
  await project.run(command);
  expect(server.requests.slice(before)).toEqual([`/${ARCHIVE}`]);
  const listed = JSON.parse((await project.cli(["plugin", "ls", "--json"])).stdout) as {
    name: string;
    kind: string;
    version: string;
  }[];
  expect(listed.map(({ name, kind, version }) => ({ name, kind, version }))).toEqual([
    { name: "broker", kind: "resource", version: V },
  ]);
}

/** Installs the `broker` plugin from the release's linux-amd64 archive, as `pulumi plugin install --file` does. */
async function installFromArchive(project: PulumiProject): Promise<void> {
  await project.cli(["plugin", "install", "resource", "broker", V, "--file", path.join(releaseDir, ARCHIVE)]);
}

/** Scans a finished project (without the plugin binaries its Pulumi home holds: no state is in them). */
function scanProject(scan: SecretScan, name: string, project: PulumiProject): void {
  fs.rmSync(path.join(project.homeDir, "plugins"), { recursive: true, force: true });
  scan.text("transcript", project.transcript.join("\n"), "cli output");
  scan.project(name, project);
}

/** What one program's describe runs against; `stack` is set by its first test that makes it. */
interface ReleaseProgram {
  emulator: EmulatorHandle;
  project: PulumiProject;
  stack: Stack;
  /** Looks for the emulator's admin key and every secret the tests add. */
  scan: SecretScan;
}

/**
 * Registers the hooks of one program's describe: before all, an emulator of its own (workspaces
 * cannot be deleted, and each program makes the same ones) and the project `createProject` makes;
 * after all, both are closed and removed. The returned object is filled in once the hooks ran.
 */
function useReleaseProgram(createProject: () => Promise<PulumiProject>): ReleaseProgram {
  const program = { scan: new SecretScan() } as ReleaseProgram;
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

describe("the release directory", () => {
  it("checksums.txt holds the sha256 of every file, and sha256sum agrees", () => {
    const listed = fs
      .readFileSync(path.join(releaseDir, "checksums.txt"), "utf8")
      .trim()
      .split("\n")
      .map((line) => line.split("  ")[1]);
    expect(listed).toEqual(
      expect.arrayContaining([
        `pulumi-broker-config-${V}.tgz`,
        ARCHIVE,
        `pulumi_broker-${V}-py3-none-any.whl`,
        `pulumi_broker-${V}.tar.gz`,
        `goproxy/github.com/pulumi-broker-config/pulumi-broker-config/sdk/go/broker/@v/v${V}.zip`,
      ]),
    );
    const files = fs.readdirSync(releaseDir, { recursive: true, encoding: "utf8" });
    const plain = files.filter(
      (f) => fs.statSync(path.join(releaseDir, f)).isFile() && f !== "checksums.txt",
    );
    expect(listed.sort()).toEqual(plain.sort());
    const check = execFileSync("sha256sum", ["--check", "--strict", "checksums.txt"], {
      cwd: releaseDir,
      encoding: "utf8",
    });
    expect(check.trim().split("\n")).toHaveLength(plain.length);
  });

  it("the archive holds the executable at its root with LICENSE and README.md", () => {
    const listing = execFileSync("tar", ["--list", "--gzip", "--file", path.join(releaseDir, ARCHIVE)], {
      encoding: "utf8",
    });
    expect(listing.trim().split("\n").sort()).toEqual(["LICENSE", "README.md", "pulumi-resource-broker"]);
  });
});

describe(
  "Python: only the release wheel, no Node.js, the plugin downloaded by the CLI",
  { timeout: PROGRAM_STEP_TIMEOUT_MS },
  () => {
    const program = useReleaseProgram(async () => {
      const venv = sdkVirtualenv(
        programsVenv(inject("pulumiVersion")),
        fs.mkdtempSync(path.join(scratch, "python-")),
        path.join(releaseDir, `pulumi_broker-${V}-py3-none-any.whl`),
      );
      const pulumiBin = inject("pulumiBin");
      const project = await PulumiProject.create({
        name: "release-python",
        programDir: path.join(programs, "python-native"),
        fixture: inject("packageFixture"),
        pulumiBin,
        parent: scratch,
        env: {
          PATH: nodeFreePath(
            [path.join(venv, "bin"), pulumiBin, process.env["PATH"] ?? ""].join(path.delimiter),
            path.join(scratch, "path-python"),
          ),
          // As a user's CLI: it installs what a program needs from the SDK's pluginDownloadURL.
          PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "false",
        },
      });
      // The program must not be able to see the repository's SDK: only the wheel's is installed.
      const location = execFileSync(
        path.join(venv, "bin", "python"),
        ["-c", "import pulumi_broker; print(pulumi_broker.__file__)"],
        {
          encoding: "utf8",
        },
      );
      expect(location).toContain(path.join(venv, "lib"));
      return project;
    });

    /** The SERVICE key's id after the first `up`. */
    let serviceId = 0;

    it(
      "the language host names broker at the wheel's version and download URL: `pulumi plugin install` fetches it",
      { timeout: 300_000 },
      async () => {
        expect(fs.readdirSync(program.project.homeDir)).toEqual([]);
        // Not `pulumi install`: the Python host built here would make a virtualenv of its own and fill
        // it from PyPI, where this wheel is not.
        await expectRequiredPluginInstalled(program.project, ["plugin", "install"]);
        expect(archiveFetches()).toBe(1);
      },
    );

    it(
      "previews with no credentials and no request, with the plugin installed",
      { timeout: 300_000 },
      async () => {
        program.stack = await program.project.stack("dev");
        await program.emulator.controls!.clearRequests();
        const preview = await program.stack.preview();
        expect(preview.changeSummary).toEqual({ create: 6 });
        expect(await program.emulator.controls!.requests()).toEqual([]);
        expect(archiveFetches()).toBe(1);
      },
    );

    it("up creates everything; the secret outputs are encrypted in the state", async () => {
      await program.stack.setAllConfig(brokerConfig(program.emulator));
      const up = await program.stack.up();
      program.scan.text("up", up.stdout + up.stderr, "cli output");
      expect(up.summary.resourceChanges).toEqual({ create: 6 });
      const out = up.outputs; // `up` read them
      serviceId = number(out, "ordersServiceId");
      const service = keyById(await allKeys(program.emulator), serviceId);
      expect(service).toMatchObject({ name: "orders-service", permissions: { send: ["orders/created"] } });
      expect(out["ordersKey"]).toEqual({ value: service?.["key"], secret: true });
      program.scan.secrets(
        String(service?.["key"]),
        String(out["opsAdminKey"]?.value),
        String(out["ordersPrivateKey"]?.value),
      );
      // Encrypted in the checkpoint `pulumi stack export` prints from, read where it lies (issue #50).
      const stored = stateOutputs(program.project, "dev");
      for (const name of ["ordersKey", "opsAdminKey", "ordersPrivateKey"])
        expect(isEncryptedSecret(stored[name]), name).toBe(true);
    });

    it("a permissions change is an update in place", async () => {
      const id = serviceId;
      await program.stack.setConfig("ordersSend", {
        value: JSON.stringify(["orders/created", "orders/cancelled"]),
      });
      const up = await program.stack.up();
      program.scan.text("permissions up", up.stdout + up.stderr, "cli output");
      expect(up.summary.resourceChanges).toEqual({ same: 5, update: 1 });
      expect(number(up.outputs, "ordersServiceId")).toBe(id);
      expect(keyById(await allKeys(program.emulator), id)?.["permissions"]).toMatchObject({
        send: ["orders/cancelled", "orders/created"],
      });
    });

    it("destroy; the archive was fetched once in all; no secret in plain text", async () => {
      const destroy = await program.stack.destroy();
      program.scan.text("destroy", destroy.stdout + destroy.stderr, "cli output");
      expect(destroy.summary.resourceChanges).toEqual({ delete: 6 });
      expect(archiveFetches()).toBe(1);
      scanProject(program.scan, "python", program.project);
      expect(program.scan.unread(CLI_TEST_SOURCES)).toEqual([]);
      expect(program.scan.leaks()).toEqual([]);
    });
  },
);

describe(
  "the plugin archive installed with --file, and the README's YAML program, without Node.js",
  { timeout: PROGRAM_STEP_TIMEOUT_MS },
  () => {
    const program = useReleaseProgram(async () => {
      ensureYamlHost();
      const pulumiBin = inject("pulumiBin");
      const project = await PulumiProject.create({
        name: "release-yaml",
        programDir: path.join(programs, "yaml-native"),
        fixture: inject("packageFixture"),
        pulumiBin,
        parent: scratch,
        // Automatic plugin acquisition stays off: the plugin is the one installed from the file.
        env: { PATH: nodeFreePath(childPath(pulumiBin), path.join(scratch, "path-yaml")) },
      });
      return project;
    });

    it("pulumi plugin install --file installs it; plugin ls lists it; it serves package get-schema", async () => {
      await installFromArchive(program.project);
      const listed = JSON.parse((await program.project.cli(["plugin", "ls", "--json"])).stdout) as {
        name: string;
        kind: string;
        version: string;
      }[];
      expect(listed).toEqual([expect.objectContaining({ name: "broker", kind: "resource", version: V })]);
      // `get-schema` starts the plugin and asks it `GetSchema`: the single executable, with no Node.js.
      const schema = JSON.parse((await program.project.cli(["package", "get-schema", "broker"])).stdout) as {
        name: string;
        version: string;
        resources: Record<string, unknown>;
      };
      expect(schema.name).toBe("broker");
      expect(schema.version).toBe(V);
      expect(Object.keys(schema.resources)).toEqual(
        expect.arrayContaining([
          "broker:index:Workspace",
          "broker:index:AccessKey",
          "broker:index:ServiceKeyPair",
        ]),
      );
      expect(archiveFetches()).toBe(1); // the Python test's download; this one came from the file
    });

    it("answers the access review with no Node.js: pulumi plugin run --kind resource broker -- review preview.json", async () => {
      // A real preview (test/fixtures/preview/README.md): it broadens access.
      const preview = path.join(REPO_ROOT, "test", "fixtures", "preview", "native-yaml.json");
      const byNode = (args: string[]): string =>
        execFileSync(
          process.execPath,
          [path.join(REPO_ROOT, "dist", "cli", "broker-config.js"), "review", ...args],
          {
            encoding: "utf8",
          },
        );
      const plugin = (args: string[]) =>
        program.project.exec("pulumi", [
          "plugin",
          "run",
          "--kind",
          "resource",
          "broker",
          "--",
          "review",
          ...args,
        ]);
      // The executable's review is broker-config's, word for word; exit 3 is passed through the CLI.
      const markdown = await plugin([preview, "--fail-on", "broadening"]);
      expect(markdown.code).toBe(3);
      expect(markdown.output).toBe(byNode([preview]));
      const json = await plugin([preview, "--format", "json"]);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.output)).toEqual(JSON.parse(byNode([preview, "--format", "json"])));
      // Bad input: one line and exit 2, from the executable too.
      const bad = await plugin([path.join(REPO_ROOT, "README.md")]);
      expect(bad.code).toBe(2);
      expect(bad.output.trim().split("\n")).toHaveLength(1);
    });

    it("previews with no credentials and no request", async () => {
      program.stack = await program.project.stack("dev");
      await program.emulator.controls!.clearRequests();
      const preview = await program.stack.preview();
      expect(preview.changeSummary).toEqual({ create: 5 }); // the stack, 2 workspaces, a key, a pair
      expect(await program.emulator.controls!.requests()).toEqual([]);
    });

    it("up creates the resources; secret outputs show as [secret] and are encrypted in the state", async () => {
      await program.stack.setAllConfig(brokerConfig(program.emulator));
      const up = await program.stack.up();
      program.scan.text("up", up.stdout + up.stderr, "cli output");
      expect(up.summary.resourceChanges).toEqual({ create: 5 });
      const out = up.outputs; // `up` read them
      expect(out["ordersPath"]?.value).toBe("/platform/orders");
      expect((await allWorkspaces(program.emulator)).some((w) => w["name"] === "orders")).toBe(true);
      const key = keyById(await allKeys(program.emulator), number(out, "ordersServiceId"));
      expect(out["ordersKey"]).toEqual({ value: key?.["key"], secret: true });
      expect(out["ordersPrivateKey"]?.secret).toBe(true);
      program.scan.secrets(String(key?.["key"]), String(out["ordersPrivateKey"]?.value));
      // What the CLI shows of it: `secret: true` above is the CLI's `stack output --json` printing
      // "[secret]" for it (the reads after `up`, harness/pulumi-project.mts), so no `stack output` again.
      expect(isEncryptedSecret(stateOutputs(program.project, "dev")["ordersKey"])).toBe(true);
    });

    // No destroy: the Python program's destroys through the same executable (one Delete per resource,
    // whatever language declared it).
    it("no secret in plain text", () => {
      scanProject(program.scan, "yaml", program.project);
      expect(program.scan.unread(CLI_TEST_SOURCES)).toEqual([]);
      expect(program.scan.leaks()).toEqual([]);
    });
  },
);

describe(
  "the Environment component, constructed by the single executable (its bundled SDK runtime)",
  { timeout: PROGRAM_STEP_TIMEOUT_MS },
  () => {
    const program = useReleaseProgram(async () => {
      ensureYamlHost();
      const pulumiBin = inject("pulumiBin");
      return PulumiProject.create({
        name: "release-environment",
        programDir: path.join(programs, "environment-yaml"),
        fixture: inject("packageFixture"),
        pulumiBin,
        parent: scratch,
        env: { PATH: nodeFreePath(childPath(pulumiBin), path.join(scratch, "path-environment")) },
      });
    });
    const documentName = "broker.yaml";

    it("previews the document's workspaces and key as the component's children, with no request", async () => {
      await installFromArchive(program.project);
      fs.writeFileSync(path.join(program.project.dir, documentName), EXAMPLE_FILES[documentName] ?? "");
      program.stack = await program.project.stack("dev", { documentFile: { value: documentName } });
      await program.emulator.controls!.clearRequests();
      const preview = await program.stack.preview();
      // The stack, the component, its 2 workspaces and its key: only `Construct` declares the children.
      expect(preview.changeSummary).toEqual({ create: 5 });
      expect(await program.emulator.controls!.requests()).toEqual([]);
    });

    it("up deploys them; the key's value is a secret output; no secret in plain text", async () => {
      await program.stack.setAllConfig(brokerConfig(program.emulator));
      const up = await program.stack.up();
      program.scan.text("up", up.stdout + up.stderr, "cli output");
      expect(up.summary.resourceChanges).toEqual({ create: 5 });
      const out = up.outputs; // `up` read them
      const workspaces = out["workspaces"]?.value as Record<string, number>;
      const byId = new Map((await allWorkspaces(program.emulator)).map((w) => [w["id"], w["name"]]));
      expect(byId.get(workspaces["/shop/checkout"])).toBe("checkout");
      const keyId = (out["accessKeys"]?.value as Record<string, number>)["checkout-svc"] ?? -1;
      const key = keyById(await allKeys(program.emulator), keyId);
      expect(out["accessKeyValues"]).toEqual({ value: { "checkout-svc": key?.["key"] }, secret: true });
      expect(out["privateKeys"]?.secret).toBe(true);
      program.scan.secrets(
        String(key?.["key"]),
        ...Object.values(out["privateKeys"]?.value as Record<string, string>),
      );
      // No destroy: the engine deletes a component's children as any resources, with the provider's
      // Delete, which the Python program's destroy runs through the same executable.
      scanProject(program.scan, "environment", program.project);
      expect(program.scan.unread(CLI_TEST_SOURCES)).toEqual([]);
      expect(program.scan.leaks()).toEqual([]);
    });
  },
);

describe(
  "Go: the SDK module from the release's GOPROXY directory, no replace",
  { timeout: PROGRAM_STEP_TIMEOUT_MS },
  () => {
    const program = useReleaseProgram(async () => {
      execFileSync("bash", [path.join(REPO_ROOT, "scripts", "ensure-go-host.sh"), inject("pulumiVersion")], {
        cwd: REPO_ROOT,
        stdio: ["ignore", "ignore", "inherit"],
      });
      const goEnv = (name: string) => execFileSync("go", ["env", name], { encoding: "utf8" }).trim();
      const sdkModule = "github.com/pulumi-broker-config/pulumi-broker-config/sdk/go/broker";
      const project = await PulumiProject.create({
        name: "release-go",
        programDir: path.join(programs, "go-native"),
        fixture: inject("packageFixture"),
        pulumiBin: inject("pulumiBin"),
        parent: scratch,
        env: {
          // The release's directory first, then the machine's module cache as a read-only mirror (a
          // module cache of the test's own, so no earlier release's copy of the SDK is taken), then the
          // usual proxy. Our module is in no checksum database (as a company's private module).
          GOPROXY: [
            `file://${path.join(releaseDir, "goproxy")}`,
            `file://${path.join(goEnv("GOMODCACHE"), "cache", "download")}`,
            goEnv("GOPROXY"),
          ].join(","),
          GOMODCACHE: path.join(scratch, "gomodcache"),
          // The flags of every test's Go build (GO_BUILD_ENV), whose -trimpath keeps each package's
          // directory out of Go's build-cache keys: without it every run's new module cache made the
          // Pulumi Go SDK and its dependencies compile again (150 s of the preview below); with it
          // they come from the machine's build cache, keyed by content, compiled by whichever test
          // built a Go program first. -modcacherw lets the test remove its module cache.
          ...GO_BUILD_ENV,
          GOFLAGS: `${GO_BUILD_ENV.GOFLAGS} -modcacherw`,
          GONOSUMDB: sdkModule,
          PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "false",
        },
      });
      // The program requires the released version, as a user's go.mod would after `go get`.
      const goMod = path.join(project.dir, "go.mod");
      const text = fs.readFileSync(goMod, "utf8");
      expect(text).not.toContain("replace");
      fs.writeFileSync(goMod, text.replace(`${sdkModule} v0.0.0`, `${sdkModule} v${V}`));
      return project;
    });

    it(
      "the language host names broker at the module's version and download URL: `pulumi install` fetches it",
      { timeout: 900_000 },
      async () => {
        expect(fs.readdirSync(program.project.homeDir)).toEqual([]);
        const before = archiveFetches();
        // `pulumi install`: the Go host runs `go mod tidy`, which fetches the SDK's module (a host reads
        // pulumi-plugin.json only from a module on disk), then answers the program's required plugins.
        await expectRequiredPluginInstalled(program.project, ["install"]);
        expect(archiveFetches()).toBe(before + 1);
      },
    );

    it(
      "previews with no credentials and no request, with the plugin installed",
      { timeout: 900_000 },
      async () => {
        const before = archiveFetches();
        program.stack = await program.project.stack("dev");
        await program.emulator.controls!.clearRequests();
        const preview = await program.stack.preview();
        expect(preview.changeSummary).toEqual({ create: 4 });
        expect(await program.emulator.controls!.requests()).toEqual([]);
        expect(archiveFetches()).toBe(before);
        expect(fs.readFileSync(path.join(program.project.dir, "go.mod"), "utf8")).toContain(
          `github.com/pulumi-broker-config/pulumi-broker-config/sdk/go/broker v${V}`,
        );
      },
    );

    it("up creates the workspaces and the key; no secret in plain text", async () => {
      await program.stack.setAllConfig(brokerConfig(program.emulator));
      const up = await program.stack.up();
      program.scan.text("up", up.stdout + up.stderr, "cli output");
      expect(up.summary.resourceChanges).toEqual({ create: 4 });
      const out = up.outputs; // `up` read them
      const key = keyById(await allKeys(program.emulator), number(out, "ordersServiceId"));
      expect(out["ordersKey"]).toEqual({ value: key?.["key"], secret: true });
      program.scan.secrets(String(key?.["key"]));
      // No destroy: a destroy does not run the Go program, only the executable's Delete, which the
      // Python program's destroy runs.
      scanProject(program.scan, "go", program.project);
      expect(program.scan.unread(CLI_TEST_SOURCES)).toEqual([]);
      expect(program.scan.leaks()).toEqual([]);
    });
  },
);

// Last, so that the second build had the programs' runs above to overlap with (each mostly waits on
// the CLI); awaited here.
describe("the release directory, built again from the same commit", () => {
  it(
    "a second release of the same commit gives the same bytes for the Python, Go and plugin artifacts",
    { timeout: 600_000 },
    async () => {
      await again.built;
      const sums = (dir: string): Record<string, string> => {
        const entries: [string, string][] = [];
        for (const line of fs.readFileSync(path.join(dir, "checksums.txt"), "utf8").trim().split("\n")) {
          const [sum = "", file = ""] = line.split("  ");
          if (!file.endsWith(".tgz")) entries.push([file, sum]);
        }
        return Object.fromEntries(entries);
      };
      const first = sums(releaseDir);
      expect(Object.keys(first)).toHaveLength(7); // archive, wheel, sdist, and the module's 4 files
      expect(sums(again.dir)).toEqual(first);
    },
  );
});
