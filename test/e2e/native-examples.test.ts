import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { allKeys, allWorkspaces, installBrokerPlugin, keyById } from "../../harness/broker-native.mts";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import { REPO_ROOT } from "../../harness/repo.mts";
import {
  destroyWithCli,
  emulatorConfig,
  ensureYamlHost,
  goSdkProject,
  NO_BROKER_ENV,
  numberOutput,
  pythonSdkProject,
  tearDown,
  testProject,
  upWithCli,
} from "../support/projects";

// Issue #34: the example projects of the native provider, one per language (examples/native-<language>),
// each through the real Pulumi CLI, offline, against the emulator, as a user runs it: preview with no
// credentials, up, destroy. Each declares the same workspace tree, SERVICE key and key pair; the
// `broker` plugin is the one `broker-config plugin install` puts into the project's Pulumi home.
// Three CLI runs per language, no more; two where the destroy would repeat TypeScript's; the CLI's
// `up` and `destroy`, whose printed summaries the Automation API's would read again (issue #50).

const examplesDir = path.join(REPO_ROOT, "examples");

interface Language {
  readonly language: string;
  /** The project, ready to run: its language's SDK installed as users install it. */
  readonly project: (dir: string, scratch: string) => Promise<PulumiProject>;
  /**
   * Whether the stack is destroyed: `pulumi destroy` runs no program, only the providers of the
   * state, and every example's state holds the same five resources of the same plugin, so one
   * language's destroy (TypeScript's) stands for all.
   */
  readonly destroys: boolean;
}

const LANGUAGES: readonly Language[] = [
  {
    language: "typescript",
    // The packed package (with its native SDK) is in the project's node_modules.
    project: (dir) => testProject("broker-native-typescript", dir, NO_BROKER_ENV),
    destroys: true,
  },
  {
    language: "python",
    project: (dir, scratch) => pythonSdkProject("broker-native-python", dir, scratch),
    destroys: false,
  },
  {
    language: "go",
    project: (dir) => goSdkProject("broker-native-go", dir),
    destroys: false,
  },
  {
    language: "yaml",
    project: (dir) => {
      ensureYamlHost();
      return testProject("broker-native-yaml", dir, NO_BROKER_ENV);
    },
    destroys: false,
  },
];

it("has one native example per language, and no other", () => {
  const native = fs.readdirSync(examplesDir).filter((name) => name.startsWith("native-"));
  expect(native.sort()).toEqual(LANGUAGES.map((l) => `native-${l.language}`).sort());
});

describe.each(LANGUAGES)(
  "examples/native-$language through the Pulumi CLI",
  ({ language, project: make, destroys }) => {
    let emulator: EmulatorHandle;
    let project: PulumiProject;
    let stack: Stack;
    let scratch: string;

    beforeAll(async () => {
      emulator = await startEmulator({ controls: true });
      scratch = fs.mkdtempSync(path.join(os.tmpdir(), `pbc-native-${language}-`));
      project = await make(path.join(examplesDir, `native-${language}`), scratch);
      installBrokerPlugin(project);
    }, 600_000);

    afterAll(() => tearDown({ emulators: [emulator], project, scratch: [scratch] }));

    // A Go program's first run on a machine compiles it and the Pulumi Go SDK: minutes, not seconds.
    it("previews with no credentials: the stack, two workspaces, a key and a pair, without a request", async () => {
      stack = await project.stack("dev");
      const preview = await stack.preview();
      expect(preview.changeSummary).toEqual({ create: 5 });
      expect(await emulator.controls!.requests()).toEqual([]);
    }, 600_000);

    it("up creates them on the broker; the key and the private key are secret outputs", async () => {
      await stack.setAllConfig(emulatorConfig(emulator));
      const up = await upWithCli(project, stack, "+ 5 created");
      const out = up.outputs;
      expect(out["ordersPath"]?.value).toBe("/platform/orders");
      expect((await allWorkspaces(emulator)).map((w) => w["name"]).sort()).toEqual(["orders", "platform"]);
      const key = keyById(await allKeys(emulator), numberOutput(out, "ordersServiceId"));
      expect(key).toMatchObject({
        name: "orders-service",
        type: "SERVICE",
        permissions: { send: ["orders/created"], receive: ["payments/*"] },
      });
      expect(out["ordersKey"]).toEqual({ value: key?.["key"], secret: true });
      expect(out["ordersPrivateKey"]?.secret).toBe(true);
      expect(out["ordersPublicKey"]?.secret).toBe(false);
      const text = up.stdout + up.stderr + project.producedText();
      for (const secret of [emulator.adminKey, String(key?.["key"]), String(out["ordersPrivateKey"]?.value)])
        expect(text).not.toContain(secret);
    });

    // Registered only where it runs (Language.destroys says why), not skipped elsewhere.
    if (destroys)
      it("destroy revokes the key and forgets the rest", async () => {
        await destroyWithCli(project, "dev", 5);
        const key = (await allKeys(emulator)).find((k) => k["name"] === "orders-service");
        expect(key?.["permissions"]).toMatchObject({ send: [], receive: [] });
      });
  },
);
