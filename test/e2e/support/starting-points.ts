import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { BrokerClient } from "../../../src/client";
import { startEmulator, type EmulatorHandle } from "../../../src/emulator";
import { allWorkspaces, installBrokerPlugin } from "../../../harness/broker-native.mts";
import { fixtureTarball, npmInstallCached } from "../../../harness/package-fixture.mts";
import { PulumiProject } from "../../../harness/pulumi-project.mts";
import { programsVenv, sdkVirtualenv } from "../../../harness/python-sdk.mts";
import { GO_BUILD_ENV, GO_SDK_DIR, goSdkModule, PULUMI_VERSION, REPO_ROOT } from "../../../harness/repo.mts";
import { brokerSettingsArgs, ensureYamlHost } from "../../support/projects";
import { isEncryptedSecret, stateOutputs, stateResources } from "../../support/state";

// Issue #32: where users start. For each `pulumi new` template (typescript, javascript, python, go,
// yaml), the project is laid out exactly as `pulumi new <template>` writes it (the templates cannot
// be downloaded here, so their files are written below), this package is added the way the README
// says for that language, and the README's quickstart for it runs through the real CLI, offline,
// against an emulator: a preview with no credentials, then one `up` of the quickstart plus look-ups
// of objects made outside Pulumi (a workspace and a SERVICE key, made through the API first, as
// another team's tooling would), then destroy. The `up` also checks what README, Look-ups says is
// secret in each language. Each CLI start counts (issue #50): what the engine stored is read from
// the state file where the CLI would only print it, and only the two providers destroy (`pulumi
// destroy` runs no program: Python's, Go's and YAML's stacks hold the same plugin's resources as
// TypeScript's).
//
// The templates share nothing (each has its emulator and project), so they are two test files
// (issue #50: one file took 181 s on a quiet 2-core machine, over the budget of 180 s), split where
// the README's install differs: `starting-points-nodejs.test.ts` holds the Node.js templates, which
// `npm install` the package (the native door in TypeScript, the dynamic door in JavaScript: the two
// providers, so both destroy), and `starting-points-python-go-yaml.test.ts` the templates that use
// the plugin installed with `npx broker-config plugin install`, each with its language's SDK (YAML
// with none). Each file calls {@link describeStartingPoints} with its templates.

const readme = fs.readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");

/** The first code block of `language` in the README after the line `after` (a heading or sentence). */
function readmeBlock(after: string, language: string): string {
  const start = readme.indexOf(after);
  if (start < 0) throw new Error(`README.md has no "${after}"`);
  const block = new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, "mu").exec(readme.slice(start));
  if (block === null) throw new Error(`README.md has no ${language} block after "${after}"`);
  return block[1]!;
}

/** A directory holding `files` (relative path → text): a template's project as `pulumi new` writes it. */
function layout(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-template-"));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

/** `Pulumi.yaml` of a template: its runtime block and the template tag `pulumi new` adds. */
function pulumiYaml(name: string, template: string, runtime: string): string {
  return [
    `name: ${name}`,
    `description: A minimal ${template} Pulumi program`,
    runtime,
    "config:",
    "  pulumi:tags:",
    "    value:",
    `      pulumi:template: ${template}`,
    "",
  ].join("\n");
}

const NODEJS_RUNTIME = "runtime:\n  name: nodejs\n  options:\n    packagemanager: npm";

/** The `tsconfig.json` of the `typescript` template (no `skipLibCheck`, `moduleResolution: node`). */
const TEMPLATE_TSCONFIG = `{
    "compilerOptions": {
        "strict": true,
        "outDir": "bin",
        "target": "es2020",
        "module": "commonjs",
        "moduleResolution": "node",
        "sourceMap": true,
        "experimentalDecorators": true,
        "pretty": true,
        "noFallthroughCasesInSwitch": true,
        "noImplicitReturns": true,
        "forceConsistentCasingInFileNames": true
    },
    "files": [
        "index.ts"
    ]
}
`;

/** What the look-ups find: made through the API before the program runs. */
interface Made {
  sharedId: number;
  keyValue: string;
}

/** An emulator with the workspace `/shared` and the SERVICE key `orders-svc` made through its API. */
async function emulatorWithObjects(): Promise<{ emulator: EmulatorHandle; made: Made }> {
  const emulator = await startEmulator();
  const api = new BrokerClient({ baseUrl: emulator.url, apiKey: emulator.adminKey });
  try {
    const shared = await api.createWorkspaceAndFind({ name: "shared" });
    const key = await api.createAccessKeyOnce({
      name: "orders-svc",
      type: "SERVICE",
      permissions: { send: ["orders/created"], receive: [] },
    });
    return { emulator, made: { sharedId: shared.id, keyValue: key.record.key } };
  } finally {
    await api.close();
  }
}

/**
 * `npm install pulumi-broker-config @pulumi/pulumi` (README, Quickstart) in a template project: the
 * packed package of the global setup's fixture, installed as the README says; the install's result
 * is cached by its exact inputs (harness/package-fixture.mts), as it is the same on every run.
 */
function npmInstall(project: PulumiProject): void {
  npmInstallCached(project.dir, [
    fixtureTarball(inject("packageFixture")),
    `@pulumi/pulumi@${PULUMI_VERSION}`,
  ]);
}

/**
 * `npx broker-config plugin install` (README, Python and Go) for a project that is not a Node.js
 * project: the command of the installed package (the fixture's), with the project's Pulumi home.
 */
function installPluginWithNpx(project: PulumiProject): void {
  installBrokerPlugin({ dir: inject("packageFixture"), homeDir: project.homeDir });
}

/** The stack outputs as `pulumi stack output --json --show-secrets` prints them: every value. */
async function outputs(
  project: PulumiProject,
  env: Record<string, string>,
): Promise<Record<string, unknown>> {
  const { stdout } = await project.run(["stack", "output", "--json", "--show-secrets"], env);
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** A `pulumi new` template whose project {@link describeStartingPoints} runs the quickstart in. */
export type Template = "typescript" | "javascript" | "python" | "go" | "yaml";

interface StartingPoint {
  /** The `pulumi new` template. */
  readonly template: Template;
  /** The template's files, with the README's quickstart as the program. */
  files(name: string): Record<string, string>;
  /**
   * Adds the look-ups to the program in `dir` (after the preview without credentials, since
   * look-ups read the API during preview too): the workspace `/shared` as `sharedId` and the parent
   * of a new workspace `team`, the key `orders-svc` as `ordersSvcKey` and `ordersSvcId`, whether it
   * is valid as `ordersSvcValid`, and the stack's name as `stackName`.
   */
  addLookups(dir: string): void;
  /** How many resources the quickstart creates, its stack included. */
  readonly creates: number;
  /** The quickstart's secret outputs in this language's README program. */
  readonly secrets: readonly string[];
  /** Adds the package as the README says for the language; returns the environment its commands need. */
  install(project: PulumiProject): Record<string, string>;
  /**
   * Whether the test destroys the stack: one program per provider (the `broker` plugin, the dynamic
   * provider), as a destroy runs the providers of the state and no program.
   */
  readonly destroys: boolean;
}

/** Appends `text` to the program file `file` of the project in `dir`. */
function append(file: string, text: string): (dir: string) => void {
  return (dir) => {
    fs.appendFileSync(path.join(dir, file), text);
  };
}

const QUICKSTART_SECRETS = ["ordersKey", "ordersPrivateKey"];

const STARTING_POINTS: readonly StartingPoint[] = [
  {
    template: "typescript",
    files: (name) => ({
      "Pulumi.yaml": pulumiYaml(name, "typescript", NODEJS_RUNTIME),
      "package.json": `${JSON.stringify(
        {
          name,
          main: "index.ts",
          devDependencies: { "@types/node": "^18", typescript: "^5.0.0" },
          dependencies: { "@pulumi/pulumi": "^3.113.0" },
        },
        null,
        4,
      )}\n`,
      "tsconfig.json": TEMPLATE_TSCONFIG,
      ".gitignore": "/bin/\n/node_modules/\n",
      // The template's program is this line; the quickstart goes after it.
      "index.ts": `import * as pulumi from "@pulumi/pulumi";\n\n${readmeBlock("## Quickstart", "ts")}`,
    }),
    // The README's look-ups (TypeScript, native SDK) of objects another team made.
    addLookups: append(
      "index.ts",
      `
import { getAccessKeyOutput, getWorkspaceOutput, verifyAccessKeyOutput, Workspace as NativeWorkspace } from "pulumi-broker-config/native";

const shared = getWorkspaceOutput({ path: "/shared" });
new NativeWorkspace("team", { name: "team", parentId: shared.id });
const ordersSvc = getAccessKeyOutput({ name: "orders-svc", type: "SERVICE" });
export const sharedId = shared.id;
export const ordersSvcKey = ordersSvc.accessKey; // [secret]
export const ordersSvcId = ordersSvc.id; // [secret]: the whole result of the Output form is
export const ordersSvcValid = verifyAccessKeyOutput({ accessKey: ordersSvc.accessKey }).valid;
export const stackName: string = pulumi.getStack();
`,
    ),
    creates: 5, // the stack, two workspaces, the key and its pair
    secrets: QUICKSTART_SECRETS,
    destroys: true,
    install: (project) => {
      npmInstall(project);
      // README, Install: TypeScript: the plugin for the native resources and functions.
      installBrokerPlugin(project);
      return {};
    },
  },
  {
    template: "javascript",
    files: (name) => ({
      "Pulumi.yaml": pulumiYaml(name, "javascript", NODEJS_RUNTIME),
      "package.json": `${JSON.stringify(
        { name, main: "index.js", dependencies: { "@pulumi/pulumi": "^3.113.0" } },
        null,
        4,
      )}\n`,
      ".gitignore": "/node_modules/\n",
      // The template's program, then the README's quickstart as a JavaScript user writes it.
      "index.js": `"use strict";
const pulumi = require("@pulumi/pulumi");
const { AccessKey, ServiceKeyPair, Workspace } = require("pulumi-broker-config");

const platform = new Workspace("platform", { name: "platform" });
const orders = new Workspace("orders", { name: "orders", parentId: platform.workspaceId });

const ordersService = new AccessKey("orders-service", {
  name: "orders-service",
  type: "SERVICE",
  permissions: { send: ["orders/created"], receive: ["payments/*"] },
});

const ordersPair = new ServiceKeyPair("orders-pair", {
  accessKey: ordersService.accessKey,
  rotationTriggers: { generation: "1" },
});

exports.ordersPath = orders.path;
exports.ordersKey = ordersService.accessKey; // [secret]
exports.ordersPrivateKey = ordersPair.privateKey; // [secret]
`,
    }),
    // The dynamic door's look-ups (README, Look-ups: the same functions from "pulumi-broker-config").
    addLookups: append(
      "index.js",
      `
const { getAccessKeyOutput, getWorkspaceOutput, verifyAccessKeyOutput } = require("pulumi-broker-config");

const shared = getWorkspaceOutput({ path: "/shared" });
new Workspace("team", { name: "team", parentId: shared.id });
const ordersSvc = getAccessKeyOutput({ name: "orders-svc", type: "SERVICE" });
exports.sharedId = shared.id;
exports.ordersSvcKey = ordersSvc.accessKey; // [secret]
exports.ordersSvcId = ordersSvc.id; // [secret]: the whole result of the Output form is
exports.ordersSvcValid = verifyAccessKeyOutput({ accessKey: ordersSvc.accessKey }).valid;
exports.stackName = pulumi.getStack();
`,
    ),
    creates: 5, // the stack, two workspaces, the key and its pair
    secrets: QUICKSTART_SECRETS,
    destroys: true,
    install: (project) => {
      npmInstall(project);
      return {};
    },
  },
  {
    template: "python",
    files: (name) => ({
      "Pulumi.yaml": pulumiYaml(
        name,
        "python",
        "runtime:\n  name: python\n  options:\n    toolchain: pip\n    virtualenv: venv",
      ),
      "requirements.txt": "pulumi>=3.0.0,<4.0.0\n",
      ".gitignore": "*.pyc\nvenv/\n",
      // The template's program is its docstring and import; the README's Python quickstart replaces it.
      "__main__.py": `"""A Python Pulumi program"""\n\n${readmeBlock("`__main__.py`, the program of the", "python")}`,
    }),
    addLookups: append(
      "__main__.py",
      `
shared = broker.get_workspace_output(path="/shared")
broker.Workspace("team", name="team", parent_id=shared.id)
orders_svc = broker.get_access_key_output(name="orders-svc", type="SERVICE")
pulumi.export("sharedId", shared.id)
pulumi.export("ordersSvcKey", orders_svc.access_key)  # [secret]
pulumi.export("ordersSvcId", orders_svc.id)  # [secret]: the whole result of the Output form is
pulumi.export("ordersSvcValid", broker.verify_access_key_output(access_key=orders_svc.access_key).valid)
pulumi.export("stackName", pulumi.get_stack())
`,
    ),
    creates: 5, // the stack, two workspaces, the key and its pair
    secrets: QUICKSTART_SECRETS,
    destroys: false,
    install: (project) => {
      // README, Install: Python: a venv (the template's `venv`, which `pulumi new` creates and fills
      // from requirements.txt: here PyPI `pulumi` comes from the programs venv) with the SDK's wheel
      // installed by pip, active when pulumi runs; the plugin installed with broker-config.
      const venv = sdkVirtualenv(programsVenv(inject("pulumiVersion")), project.dir);
      installPluginWithNpx(project);
      return {
        PATH: [path.join(venv, "bin"), inject("pulumiBin"), process.env["PATH"] ?? ""].join(path.delimiter),
      };
    },
  },
  {
    template: "go",
    files: (name) => ({
      "Pulumi.yaml": pulumiYaml(name, "go", "runtime: go"),
      "go.mod": `module ${name}\n\ngo 1.20\n\nrequire github.com/pulumi/pulumi/sdk/v3 v3.113.0\n`,
      ".gitignore": `/${name}\n`,
      // The README's Go program replaces the template's (an empty pulumi.Run).
      "main.go": readmeBlock("Go 1.25.11 or later", "go"),
    }),
    addLookups: (dir) => {
      const file = path.join(dir, "main.go");
      const program = fs.readFileSync(file, "utf8");
      const end = program.lastIndexOf("\t\treturn nil");
      fs.writeFileSync(
        file,
        `${program.slice(0, end)}\t\tshared := broker.LookupWorkspaceOutput(ctx, broker.LookupWorkspaceOutputArgs{Path: pulumi.String("/shared")})
\t\tif _, err := broker.NewWorkspace(ctx, "team", &broker.WorkspaceArgs{Name: pulumi.String("team"), ParentId: shared.Id()}); err != nil {
\t\t\treturn err
\t\t}
\t\tordersSvc := broker.LookupAccessKeyOutput(ctx, broker.LookupAccessKeyOutputArgs{Name: pulumi.String("orders-svc"), Type: broker.AccessKeyTypeSERVICE})
\t\tctx.Export("sharedId", shared.Id())
\t\tctx.Export("ordersSvcKey", ordersSvc.AccessKey()) // a secret
\t\tctx.Export("ordersSvcId", ordersSvc.Id())        // a secret: the whole result of the Output form is
\t\tctx.Export("ordersSvcValid", broker.VerifyAccessKeyOutput(ctx, broker.VerifyAccessKeyOutputArgs{AccessKey: ordersSvc.AccessKey()}).Valid())
\t\tctx.Export("stackName", pulumi.String(ctx.Stack()))
${program.slice(end)}`,
      );
    },
    creates: 4, // the stack, two workspaces and the key
    secrets: ["ordersKey"],
    destroys: false,
    install: (project) => {
      // README, Go: from a clone, the SDK's module replaced by sdk/go/broker; the plugin installed with
      // broker-config. The Go language host beside the CLI.
      execFileSync("bash", [path.join(REPO_ROOT, "scripts", "ensure-go-host.sh"), inject("pulumiVersion")], {
        cwd: REPO_ROOT,
        stdio: ["ignore", "ignore", "inherit"],
      });
      const sdk = goSdkModule();
      for (const args of [
        ["mod", "edit", `-require=${sdk}@v0.0.0`],
        ["mod", "edit", `-replace=${sdk}=${GO_SDK_DIR}`],
        ["mod", "tidy"],
      ])
        execFileSync("go", args, { cwd: project.dir, stdio: ["ignore", "ignore", "inherit"] });
      installPluginWithNpx(project);
      // The Go host's `go build` of the program, with the flags of the SDK's own build.
      return { ...GO_BUILD_ENV };
    },
  },
  {
    template: "yaml",
    files: (name) => {
      // The README's YAML quickstart is a whole Pulumi.yaml; the template's name and tag are kept.
      const program = parseYaml(readmeBlock("`Pulumi.yaml`, the program of the", "yaml")) as Record<
        string,
        unknown
      >;
      const template = parseYaml(pulumiYaml(name, "yaml", "runtime: yaml")) as Record<string, unknown>;
      return { "Pulumi.yaml": stringifyYaml({ ...program, ...template }) };
    },
    addLookups: (dir) => {
      const file = path.join(dir, "Pulumi.yaml");
      const program = parseYaml(fs.readFileSync(file, "utf8")) as {
        resources: Record<string, unknown>;
        outputs: Record<string, unknown>;
        variables?: Record<string, unknown>;
      };
      program.variables = {
        ...program.variables,
        shared: { "fn::invoke": { function: "broker:index:getWorkspace", arguments: { path: "/shared" } } },
        ordersSvc: {
          "fn::invoke": {
            function: "broker:index:getAccessKey",
            arguments: { name: "orders-svc", type: "SERVICE" },
          },
        },
        ordersSvcCheck: {
          "fn::invoke": {
            function: "broker:index:verifyAccessKey",
            arguments: { accessKey: "${ordersSvc.accessKey}" },
          },
        },
      };
      program.resources["team"] = {
        type: "broker:index:Workspace",
        properties: { name: "team", parentId: "${shared.id}" },
      };
      Object.assign(program.outputs, {
        sharedId: "${shared.id}",
        ordersSvcKey: "${ordersSvc.accessKey}",
        ordersSvcId: "${ordersSvc.id}",
        ordersSvcValid: "${ordersSvcCheck.valid}",
        stackName: "${pulumi.stack}",
      });
      fs.writeFileSync(file, stringifyYaml(program));
    },
    creates: 5,
    secrets: ["ordersKey", "ordersPrivateKey"],
    destroys: false,
    install: (project) => {
      // README, YAML: no SDK; the YAML language host beside the CLI, the plugin installed.
      ensureYamlHost();
      installPluginWithNpx(project);
      return {};
    },
  },
];

/**
 * Registers, for each of `templates`, the describe "`pulumi new <template>`, then the README's
 * quickstart": the project as the template lays it out, with the package added as the README says
 * for its language, previewed with no credentials, `up` with the look-ups (secrets checked in the
 * state), and destroyed where the template's provider is one no other template's stack uses
 * ({@link StartingPoint.destroys}). Each template has its own emulator and project, so a test file
 * may hold any of them; every template belongs in exactly one file.
 *
 * @param templates - The templates of the calling test file, in the order their describes run.
 */
export function describeStartingPoints(templates: readonly Template[]): void {
  const starts = templates.map((template) => {
    const start = STARTING_POINTS.find((s) => s.template === template);
    if (start === undefined) throw new Error(`no starting point for the template ${template}`);
    return start;
  });
  describe.each(starts)("`pulumi new $template`, then the README's quickstart", (start) => {
    let emulator: EmulatorHandle;
    let made: Made;
    let project: PulumiProject;
    let env: Record<string, string>;
    let templateDir: string;

    beforeAll(async () => {
      ({ emulator, made } = await emulatorWithObjects());
      const name = `start-${start.template}`;
      templateDir = layout(start.files(name));
      project = await PulumiProject.create({
        name,
        programDir: templateDir,
        fixture: null,
        pulumiBin: inject("pulumiBin"),
      });
      env = start.install(project);
      await project.run(["stack", "init", "dev"], env);
    }, 300_000);

    afterAll(async () => {
      await emulator.close();
      project.remove();
      fs.rmSync(templateDir, { recursive: true, force: true });
    });

    // A Go program's first run compiles it and the Pulumi Go SDK: minutes with an empty build cache on a
    // loaded 2-core machine. The timeouts are bounds against a hang, not speed figures.
    const CLI_RUN_TIMEOUT_MS = 600_000;

    it("previews the quickstart with no credentials", { timeout: CLI_RUN_TIMEOUT_MS }, async () => {
      const { stdout } = await project.run(["preview", "--json"], env);
      const steps = (JSON.parse(stdout) as { steps: { op: string; urn: string }[] }).steps;
      expect(steps.map((s) => s.op)).toEqual(Array<string>(start.creates).fill("create"));
    });

    it(
      "up: the quickstart and the look-ups, secrets as secrets",
      { timeout: CLI_RUN_TIMEOUT_MS },
      async () => {
        start.addLookups(project.dir);
        // README, Quickstart: the settings, the key as a secret (one `config set-all` for its two
        // `config set`s: the CLI stores both alike).
        await project.run(["config", "set-all", ...brokerSettingsArgs(emulator)], env);
        await project.run(["up", "--yes", "--skip-preview"], env);

        const out = await outputs(project, env);
        expect(out["ordersPath"]).toBe("/platform/orders");
        expect(out["ordersKey"]).toMatch(/^bk[as]_/u);
        expect(out["sharedId"]).toBe(made.sharedId);
        expect(out["ordersSvcKey"]).toBe(made.keyValue);
        expect(out["ordersSvcValid"]).toBe(true);
        expect(out["stackName"]).toBe("dev");
        expect(out["ordersSvcId"]).toEqual(expect.any(Number));
        // What README, Look-ups says is secret in this language: the key and the private key; the whole
        // result of getAccessKey's Output form; verifyAccessKey's `valid` for a secret key. Encrypted in
        // the state, which is what `pulumi stack output` shows as "[secret]".
        const stored = stateOutputs(project, "dev");
        for (const secret of [...start.secrets, "ordersSvcKey", "ordersSvcId", "ordersSvcValid"])
          expect(isEncryptedSecret(stored[secret]), secret).toBe(true);
        expect(stored["sharedId"]).toBe(made.sharedId);
        const team = (await allWorkspaces(emulator)).find((w) => w["name"] === "team");
        expect(team?.["parentId"]).toBe(made.sharedId);
      },
    );

    // Registered only where it runs (StartingPoint.destroys says why), not skipped elsewhere.
    if (start.destroys)
      it("destroy empties the stack", { timeout: CLI_RUN_TIMEOUT_MS }, async () => {
        await project.run(["destroy", "--yes", "--skip-preview"], env);
        expect(stateResources(project, "dev")).toEqual([]);
      });
  });
}
