import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { allKeys, exportBroker, installBrokerPlugin } from "../../harness/broker-native.mts";
import type { PulumiProject, StackConfig } from "../../harness/pulumi-project.mts";
import { SecretScan } from "../../harness/secret-scan.mts";
import {
  copiedKeys,
  ENVIRONMENT_RESOURCES,
  expectPrivateKeys,
  keyValues,
} from "../support/environment-document";
import {
  emulatorConfig,
  goSdkProject,
  NO_BROKER_ENV,
  PROGRAMS_DIR,
  pythonSdkProject,
  startExportSource,
  type StateResource,
  tearDown,
  testProject,
} from "../support/projects";
import { stateResources } from "../support/state";

// Issue #36: the document `broker-config export` wrote from one broker, deployed to a fresh broker
// by a program of one `broker:index:Environment` in TypeScript (the native SDK, through an explicit
// provider), Python and Go, one stack each; the file ends with the plaintext scan of everything
// every run produced. test/e2e/environment.test.ts runs the YAML program's steps (issue #50 split
// the two, each a file of its own, so that neither takes over three minutes).

let source: EmulatorHandle; // exported; each language deploys to a fresh broker of its own
let scratch: string;
let exported: string;
const scan = new SecretScan();

beforeAll(async () => {
  source = await startExportSource();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-environment-languages-e2e-"));
  // The package fixture's `broker-config`: no project of this file is ready yet.
  exported = await exportBroker(inject("packageFixture"), source, path.join(scratch, "broker.yaml"));
  scan.secrets(source.adminKey, ...(await keyValues(source)));
}, 300_000);

afterAll(() => tearDown({ emulators: [source], scratch: [scratch] }));

/** A program of one Environment in another language, deploying the exported document. */
interface Language {
  readonly language: string;
  /** Its directory under test/programs. */
  readonly program: string;
  /** The resources of its stack. */
  readonly resources: number;
  /** Its stack config: the document's file, and where the broker is. */
  readonly config: (target: EmulatorHandle, documentFile: string) => StackConfig;
  /** The project, ready to run: its language's SDK installed as users install it. */
  readonly project: (dir: string, scratch: string) => Promise<PulumiProject>;
  /** What else the language's step checks in the state. */
  readonly checkState?: (resources: StateResource[]) => void;
}

const LANGUAGES: readonly Language[] = [
  {
    language: "typescript",
    program: "environment-ts",
    // An explicit provider besides the stack, the component and its 10 children.
    resources: ENVIRONMENT_RESOURCES + 1,
    // No broker:* settings: only the explicit provider knows the broker, so a child the default
    // provider managed would fail.
    config: (target, documentFile) => ({
      documentFile: { value: documentFile },
      targetUrl: { value: target.url },
      targetKey: { value: target.adminKey, secret: true },
    }),
    project: (dir) => testProject("environment-typescript", dir, NO_BROKER_ENV),
    checkState: (resources) => {
      const children = resources.filter(
        (r) => r.type === "broker:index:AccessKey" || r.type === "broker:index:Workspace",
      );
      expect(children).toHaveLength(10);
      for (const child of children) expect(child.provider).toMatch(/::pulumi:providers:broker::target::/u);
    },
  },
  {
    language: "python",
    program: "environment-python",
    resources: ENVIRONMENT_RESOURCES,
    config: (target, documentFile) => ({ documentFile: { value: documentFile }, ...emulatorConfig(target) }),
    project: (dir, scratch) => pythonSdkProject("environment-python", dir, scratch),
  },
  {
    language: "go",
    program: "environment-go",
    resources: ENVIRONMENT_RESOURCES,
    config: (target, documentFile) => ({ documentFile: { value: documentFile }, ...emulatorConfig(target) }),
    project: (dir) => {
      // The module files of the Go quickstart program, whose dependencies are the same.
      for (const file of ["go.mod", "go.sum"])
        fs.copyFileSync(path.join(PROGRAMS_DIR, "go-native", file), path.join(dir, file));
      return goSdkProject("environment-go", dir);
    },
  },
];

describe.each(LANGUAGES)("a $language program of one Environment, through the Pulumi CLI", (language) => {
  let copyTarget: EmulatorHandle;
  let languageProject: PulumiProject;
  let programDir: string;

  beforeAll(async () => {
    copyTarget = await startEmulator({ controls: true });
    scan.secrets(copyTarget.adminKey);
    // A copy of the program, so that the Go module files copied in stay out of the checkout.
    programDir = path.join(scratch, language.program);
    fs.cpSync(path.join(PROGRAMS_DIR, language.program), programDir, { recursive: true });
    languageProject = await language.project(programDir, scratch);
    installBrokerPlugin(languageProject);
  }, 600_000);

  afterAll(async () => {
    await copyTarget.close();
    languageProject.remove();
  });

  // A Go program's first run on a machine compiles it and the Pulumi Go SDK: minutes, not seconds.
  it("deploys the exported document to a second broker: the same tree, keys and permissions; then no changes", async () => {
    const file = path.join(scratch, `${language.language}.yaml`);
    fs.writeFileSync(file, exported);
    const languageStack = await languageProject.stack("dev", language.config(copyTarget, file));
    const up = await languageStack.up();
    scan.text(`${language.language} up`, up.stdout + up.stderr, "cli output");
    expect(up.summary.resourceChanges).toEqual({ create: language.resources });
    expect(
      await exportBroker(
        languageProject.dir,
        copyTarget,
        path.join(scratch, `${language.language}-copy.yaml`),
      ),
    ).toBe(exported);
    const keys = copiedKeys(await allKeys(copyTarget));
    scan.secrets(...keys.map((k) => String(k["key"])));
    const outputs = up.outputs;
    expect(outputs["accessKeyValues"]).toEqual({
      value: Object.fromEntries(keys.map((k) => [String(k["name"]), String(k["key"])])),
      secret: true,
    });
    expect(Object.keys(outputs["workspaces"]?.value as object)).toHaveLength(6);
    expectPrivateKeys(scan, outputs["privateKeys"], keys);
    if (language.checkState !== undefined) language.checkState(stateResources(languageProject, "dev"));
    expect((await languageStack.preview()).changeSummary).toEqual({ same: language.resources });
    scan.text(`${language.language}: every CLI run`, languageProject.producedText(), "cli output");
    scan.project(`environment-${language.language}`, languageProject);
  }, 600_000);
});

describe("after all of it", () => {
  it("no secret is in plain text in any state, backup, history, Pulumi home or CLI output", () => {
    expect(scan.size).toBeGreaterThan(0);
    expect(scan.leaks()).toEqual([]);
  });
});
