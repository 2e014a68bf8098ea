import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { allKeys, allWorkspaces, keyById } from "../../harness/broker-native.mts";
import { nodeFreePath } from "../../harness/node-free-path.mts";
import { PulumiProject } from "../../harness/pulumi-project.mts";
import { programsVenv, sdkVirtualenv } from "../../harness/python-sdk.mts";
import { buildReleaseInBackground } from "../../harness/release.mts";
import { REPO_ROOT } from "../../harness/repo.mts";
import { numberOutput, PROGRAMS_DIR } from "../support/projects";
import { isEncryptedSecret, stateOutputs } from "../support/state";
import { ARCHIVE, PROGRAM_STEP_TIMEOUT_MS, useRelease, useReleaseProgram, V } from "./support/release";

// Issue #17's release, installed as users install it (test/e2e/support/release.ts says how): the
// release directory, Python with only the wheel and the plugin the CLI downloads, the plugin archive
// installed with `--file` and the README's YAML program, then a second release of the same commit
// compared byte for byte. The Go SDK module and the Environment component:
// release-go-and-component.test.ts.

const release = useRelease();
/** The second release of the same commit, built while the programs below run (the last describe compares it). */
let again: { dir: string; built: Promise<void> };

beforeAll(() => {
  // The npm tarball is left out of the second build and of the comparison: `npm pack` stamps no
  // time but is not this artifact to pin.
  const dir = path.join(release.scratch, "release-again");
  // The second build stamps the first one's time (its commit's, scripts/release/reproducible.mts),
  // read before it: the same commit's, even when one is made in the worktree while the programs run.
  again = {
    dir,
    built: buildReleaseInBackground(dir, release.server.url, ["plugin", "python", "go"], {
      SOURCE_DATE_EPOCH: release.epoch,
    }),
  };
  // Awaited by the last test; a failure here must not surface as an unhandled rejection before it.
  again.built.catch(() => undefined);
});

afterAll(async () => {
  // Before useRelease's afterAll removes the scratch directory the build writes into (hooks after
  // all run in the reverse order of their registration).
  // Unset when the first build failed.
  await (again as typeof again | undefined)?.built.catch(() => undefined);
});

describe("the release directory", () => {
  it("checksums.txt holds the sha256 of every file, and sha256sum agrees", () => {
    const listed = fs
      .readFileSync(path.join(release.dir, "checksums.txt"), "utf8")
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
    const files = fs.readdirSync(release.dir, { recursive: true, encoding: "utf8" });
    const plain = files.filter(
      (f) => fs.statSync(path.join(release.dir, f)).isFile() && f !== "checksums.txt",
    );
    expect(listed.sort()).toEqual(plain.sort());
    const check = execFileSync("sha256sum", ["--check", "--strict", "checksums.txt"], {
      cwd: release.dir,
      encoding: "utf8",
    });
    expect(check.trim().split("\n")).toHaveLength(plain.length);
  });

  it("the archive holds the executable at its root with LICENSE and README.md", () => {
    const listing = execFileSync("tar", ["--list", "--gzip", "--file", path.join(release.dir, ARCHIVE)], {
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
        fs.mkdtempSync(path.join(release.scratch, "python-")),
        path.join(release.dir, `pulumi_broker-${V}-py3-none-any.whl`),
      );
      const pulumiBin = inject("pulumiBin");
      const project = await PulumiProject.create({
        name: "release-python",
        programDir: path.join(PROGRAMS_DIR, "python-native"),
        fixture: inject("packageFixture"),
        pulumiBin,
        parent: release.scratch,
        env: {
          PATH: nodeFreePath(
            [path.join(venv, "bin"), pulumiBin, process.env["PATH"] ?? ""].join(path.delimiter),
            path.join(release.scratch, "path-python"),
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
        await release.expectRequiredPluginInstalled(program.project, ["plugin", "install"]);
        expect(release.archiveFetches()).toBe(1);
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
        expect(release.archiveFetches()).toBe(1);
      },
    );

    it("up creates everything; the secret outputs are encrypted in the state", async () => {
      const up = await program.upWithEmulatorConfig();
      expect(up.summary.resourceChanges).toEqual({ create: 6 });
      const out = up.outputs; // `up` read them
      serviceId = numberOutput(out, "ordersServiceId");
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
      expect(numberOutput(up.outputs, "ordersServiceId")).toBe(id);
      expect(keyById(await allKeys(program.emulator), id)?.["permissions"]).toMatchObject({
        send: ["orders/cancelled", "orders/created"],
      });
    });

    it("destroy; the archive was fetched once in all; no secret in plain text", async () => {
      const destroy = await program.stack.destroy();
      program.scan.text("destroy", destroy.stdout + destroy.stderr, "cli output");
      expect(destroy.summary.resourceChanges).toEqual({ delete: 6 });
      expect(release.archiveFetches()).toBe(1);
      program.expectNoSecretInPlainText("python");
    });
  },
);

describe(
  "the plugin archive installed with --file, and the README's YAML program, without Node.js",
  { timeout: PROGRAM_STEP_TIMEOUT_MS },
  () => {
    // Automatic plugin acquisition stays off: the plugin is the one installed from the file.
    const program = useReleaseProgram(() => release.nodeFreeYamlProject("release-yaml", "yaml-native"));

    it("pulumi plugin install --file installs it; plugin ls lists it; it serves package get-schema", async () => {
      await release.installFromArchive(program.project);
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
      expect(release.archiveFetches()).toBe(1); // the Python test's download; this one came from the file
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
      const up = await program.upWithEmulatorConfig();
      expect(up.summary.resourceChanges).toEqual({ create: 5 });
      const out = up.outputs; // `up` read them
      expect(out["ordersPath"]?.value).toBe("/platform/orders");
      expect((await allWorkspaces(program.emulator)).some((w) => w["name"] === "orders")).toBe(true);
      const key = keyById(await allKeys(program.emulator), numberOutput(out, "ordersServiceId"));
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
      program.expectNoSecretInPlainText("yaml");
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
      const first = sums(release.dir);
      expect(Object.keys(first)).toHaveLength(7); // archive, wheel, sdist, and the module's 4 files
      expect(sums(again.dir)).toEqual(first);
    },
  );
});
