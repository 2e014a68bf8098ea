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
  emulatorConfig,
  ensureYamlHost,
  goSdkProject,
  NO_BROKER_ENV,
  numberOutput,
  pythonSdkProject,
  tearDown,
  testProject,
} from "../support/projects";

// Issue #34: the example projects of the native provider, one per language (examples/native-<language>),
// each through the real Pulumi CLI, offline, against the emulator, as a user runs it: preview with no
// credentials, up, destroy. Each declares the same workspace tree, SERVICE key and key pair; the
// `broker` plugin is the one `broker-config plugin install` puts into the project's Pulumi home.
// Three CLI runs per language, no more.

const examplesDir = path.join(REPO_ROOT, "examples");

interface Language {
  readonly language: string;
  /** The project, ready to run: its language's SDK installed as users install it. */
  readonly project: (dir: string, scratch: string) => Promise<PulumiProject>;
}

const LANGUAGES: readonly Language[] = [
  {
    language: "typescript",
    // The packed package (with its native SDK) is in the project's node_modules.
    project: (dir) => testProject("broker-native-typescript", dir, NO_BROKER_ENV),
  },
  {
    language: "python",
    project: (dir, scratch) => pythonSdkProject("broker-native-python", dir, scratch),
  },
  {
    language: "go",
    project: (dir) => goSdkProject("broker-native-go", dir),
  },
  {
    language: "yaml",
    project: (dir) => {
      ensureYamlHost();
      return testProject("broker-native-yaml", dir, NO_BROKER_ENV);
    },
  },
];

it("has one native example per language, and no other", () => {
  const native = fs.readdirSync(examplesDir).filter((name) => name.startsWith("native-"));
  expect(native.sort()).toEqual(LANGUAGES.map((l) => `native-${l.language}`).sort());
});

describe.each(LANGUAGES)(
  "examples/native-$language through the Pulumi CLI",
  ({ language, project: make }) => {
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
      const up = await stack.up();
      expect(up.summary.resourceChanges).toEqual({ create: 5 });
      const out = up.outputs; // `up` read them
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

    it("destroy revokes the key and forgets the rest", async () => {
      const destroy = await stack.destroy();
      expect(destroy.summary.resourceChanges).toEqual({ delete: 5 });
      const key = (await allKeys(emulator)).find((k) => k["name"] === "orders-service");
      expect(key?.["permissions"]).toMatchObject({ send: [], receive: [] });
    });
  },
);
