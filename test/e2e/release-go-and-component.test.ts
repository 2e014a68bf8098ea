import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { EXAMPLE_FILES } from "../../src/core/declarations/examples";
import { allKeys, allWorkspaces, keyById } from "../../harness/broker-native.mts";
import { PulumiProject } from "../../harness/pulumi-project.mts";
import { GO_BUILD_ENV, goSdkModule, REPO_ROOT } from "../../harness/repo.mts";
import { numberOutput, PROGRAMS_DIR } from "../support/projects";
import { PROGRAM_STEP_TIMEOUT_MS, useRelease, useReleaseProgram, V } from "./support/release";

// Issue #17's release, installed as users install it (test/e2e/support/release.ts says how): the Go
// SDK module from the release's GOPROXY directory with the plugin the CLI downloads, and the
// Environment component constructed by the single executable from the plugin archive. The release
// directory, Python, the YAML program and the second build: release.test.ts. The release here has
// only the parts these programs install: the plugin archive and the Go module.

const release = useRelease(["plugin", "go"]);

describe(
  "the Environment component, constructed by the single executable (its bundled SDK runtime)",
  { timeout: PROGRAM_STEP_TIMEOUT_MS },
  () => {
    const program = useReleaseProgram(() =>
      release.nodeFreeYamlProject("release-environment", "environment-yaml"),
    );
    const documentName = "broker.yaml";

    it("previews the document's workspaces and key as the component's children, with no request", async () => {
      await release.installFromArchive(program.project);
      fs.writeFileSync(path.join(program.project.dir, documentName), EXAMPLE_FILES[documentName] ?? "");
      program.stack = await program.project.stack("dev", { documentFile: { value: documentName } });
      await program.emulator.controls!.clearRequests();
      const preview = await program.stack.preview();
      // The stack, the component, its 2 workspaces and its key: only `Construct` declares the children.
      expect(preview.changeSummary).toEqual({ create: 5 });
      expect(await program.emulator.controls!.requests()).toEqual([]);
    });

    it("up deploys them; the key's value is a secret output; no secret in plain text", async () => {
      const up = await program.upWithEmulatorConfig();
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
      // Delete, which the Python program's destroy runs through the same executable (release.test.ts).
      program.expectNoSecretInPlainText("environment");
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
      const sdkModule = goSdkModule();
      const project = await PulumiProject.create({
        name: "release-go",
        programDir: path.join(PROGRAMS_DIR, "go-native"),
        fixture: inject("packageFixture"),
        pulumiBin: inject("pulumiBin"),
        parent: release.scratch,
        env: {
          // The release's directory first, then the machine's module cache as a read-only mirror (a
          // module cache of the test's own, so no earlier release's copy of the SDK is taken), then the
          // usual proxy. Our module is in no checksum database (as a company's private module).
          GOPROXY: [
            `file://${path.join(release.dir, "goproxy")}`,
            `file://${path.join(goEnv("GOMODCACHE"), "cache", "download")}`,
            goEnv("GOPROXY"),
          ].join(","),
          GOMODCACHE: path.join(release.scratch, "gomodcache"),
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
        const before = release.archiveFetches();
        // `pulumi install`: the Go host runs `go mod tidy`, which fetches the SDK's module (a host reads
        // pulumi-plugin.json only from a module on disk), then answers the program's required plugins.
        await release.expectRequiredPluginInstalled(program.project, ["install"]);
        expect(release.archiveFetches()).toBe(before + 1);
      },
    );

    it(
      "previews with no credentials and no request, with the plugin installed",
      { timeout: 900_000 },
      async () => {
        const before = release.archiveFetches();
        program.stack = await program.project.stack("dev");
        await program.emulator.controls!.clearRequests();
        const preview = await program.stack.preview();
        expect(preview.changeSummary).toEqual({ create: 4 });
        expect(await program.emulator.controls!.requests()).toEqual([]);
        expect(release.archiveFetches()).toBe(before);
        expect(fs.readFileSync(path.join(program.project.dir, "go.mod"), "utf8")).toContain(
          `${goSdkModule()} v${V}`,
        );
      },
    );

    it("up creates the workspaces and the key; no secret in plain text", async () => {
      const up = await program.upWithEmulatorConfig();
      expect(up.summary.resourceChanges).toEqual({ create: 4 });
      const out = up.outputs; // `up` read them
      const key = keyById(await allKeys(program.emulator), numberOutput(out, "ordersServiceId"));
      expect(out["ordersKey"]).toEqual({ value: key?.["key"], secret: true });
      program.scan.secrets(String(key?.["key"]));
      // No destroy: a destroy does not run the Go program, only the executable's Delete, which the
      // Python program's destroy runs (release.test.ts).
      program.expectNoSecretInPlainText("go");
    });
  },
);
