import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { BrokerClient } from "../../src/client";
import type { AccessKeyRecord } from "../../src/client/types";
import type { EmulatorHandle } from "../../src/emulator";
import { exportBroker } from "../../harness/broker-native.mts";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import { EXPORT_SOURCE_WORKSPACE_PATHS } from "../support/client";
import { NO_BROKER_ENV, startExportPair, tearDown, testProject } from "../support/projects";

// Acceptance of configuration as data (issue #5): an environment exported with the real
// `broker-config` command of the packed package, deployed with BrokerConfig through the real Pulumi
// CLI to an empty environment, exports back to the same bytes; the same file adopts an existing
// environment without duplicating anything. The steps share stacks and run in order.

const programDir = path.join(__dirname, "programs", "config-as-data");
/**
 * The time one step's CLI runs may take with every core busy. Generous: the steps share stacks, so a
 * step cut short would leave its CLI run holding a stack's lock for the next.
 */
const STEP_TIMEOUT_MS = 300_000;

let source: EmulatorHandle; // "A": populated by hand, exported
let target: EmulatorHandle; // "B": empty, deployed from A's export
let project: PulumiProject;
let dir: string;
let exportedA: string;
let stackB: Stack;
let stackA: Stack;
/**
 * Resources of a stack: the stack itself, the component, 6 workspaces, and the 4 SERVICE keys: the
 * export leaves out the ACCOUNT keys, the admin key it authenticates with among them (issue #49).
 */
const RESOURCES = 1 + 1 + 6 + 4;

/** The keys a copy holds of an export: every key but the ACCOUNT keys. */
function copied(keys: AccessKeyRecord[]): AccessKeyRecord[] {
  return keys.filter((k) => k.type === "SERVICE");
}

/** Runs `broker-config export` of the installed package against `env`, into `file`. */
function exportTo(env: EmulatorHandle, file: string): Promise<string> {
  return exportBroker(inject("packageFixture"), env, file);
}

function brokerConfig(
  env: EmulatorHandle,
  file: string,
): Record<string, { value: string; secret?: boolean }> {
  return {
    file: { value: file },
    "broker:baseUrl": { value: env.url },
    "broker:apiKey": { value: env.adminKey, secret: true },
  };
}

async function keysOf(env: EmulatorHandle): Promise<AccessKeyRecord[]> {
  const client = new BrokerClient({ baseUrl: env.url, apiKey: env.adminKey });
  try {
    const keys: AccessKeyRecord[] = [];
    for await (const key of client.accessKeys()) keys.push(key);
    return keys;
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  ({ source, target } = await startExportPair());

  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-config-as-data-e2e-"));
  project = await testProject("config-as-data-e2e", programDir, NO_BROKER_ENV);
  exportedA = await exportTo(source, path.join(dir, "a.yaml"));
});

afterAll(() => tearDown({ emulators: [source, target], project, scratch: [dir] }));

describe("configuration as data through the Pulumi CLI", () => {
  it(
    "1. the export of A holds the tree, the keys and adopt: true, and no key value",
    async () => {
      expect(exportedA).toContain("adopt: true");
      expect(exportedA).toMatch(
        /- name: platform\n {4}children:\n {6}- name: billing\n {6}- name: orders\n/u,
      );
      for (const key of await keysOf(source)) expect(exportedA).not.toContain(key.key);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    "2. deploying that file to an empty B, then exporting B, gives the same file",
    async () => {
      stackB = await project.stack("b", brokerConfig(target, path.join(dir, "a.yaml")));
      const up = await stackB.up();
      expect(up.summary.resourceChanges).toEqual({ create: RESOURCES });
      const exportedB = await exportTo(target, path.join(dir, "b.yaml"));
      expect(exportedB).toBe(exportedA);
      // B holds its own admin key and the copies; A also holds an ACCOUNT key the export left out.
      expect(await target.controls!.stats()).toMatchObject({
        workspaces: (await source.controls!.stats()).workspaces,
        accessKeys: 1 + 4,
      });

      // `up` has read the outputs already (the Automation API runs `stack output` after it).
      const outputs = up.outputs;
      expect(Object.keys(outputs["workspaces"]!.value as object).sort()).toEqual(
        EXPORT_SOURCE_WORKSPACE_PATHS,
      );
      expect(outputs["accessKeyValues"]!.secret).toBe(true);
      const values = outputs["accessKeyValues"]!.value as Record<string, string>;
      const keys = copied(await keysOf(target));
      expect(values["orders-svc"]).toBe(keys.find((k) => k.name === "orders-svc")!.key);
      expect(outputs["accessKeys"]!.value).toEqual(Object.fromEntries(keys.map((k) => [k.name, k.id])));
      // The SERVICE keys' private keys, and no entry for an ACCOUNT key.
      expect(outputs["privateKeys"]!.secret).toBe(true);
      const privateKeys = outputs["privateKeys"]!.value as Record<string, string>;
      expect(Object.keys(privateKeys).sort()).toEqual(
        keys
          .filter((k) => k.type === "SERVICE")
          .map((k) => k.name)
          .sort(),
      );
      const text = project.producedText() + up.stdout + up.stderr;
      for (const key of await keysOf(target)) expect(text).not.toContain(key.key);
      for (const privateKey of Object.values(privateKeys)) expect(text).not.toContain(privateKey);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    "3. a second preview shows no changes",
    async () => {
      const preview = await stackB.preview();
      expect(preview.changeSummary).toEqual({ same: RESOURCES });
    },
    STEP_TIMEOUT_MS,
  );

  it(
    "4. deploying the same file to A, where everything exists, adopts it all: no duplicates",
    async () => {
      const before = await keysOf(source);
      const statsBefore = await source.controls!.stats();
      stackA = await project.stack("a", brokerConfig(source, path.join(dir, "a.yaml")));
      const up = await stackA.up();
      expect(up.summary.result).toBe("succeeded");
      expect(await source.controls!.stats()).toEqual(statsBefore);
      const after = await keysOf(source);
      expect(after.map((k) => [k.id, k.name, k.permissions])).toEqual(
        before.map((k) => [k.id, k.name, k.permissions]),
      );
      const outputs = up.outputs;
      expect(outputs["accessKeys"]!.value).toEqual(
        Object.fromEntries(copied(before).map((k) => [k.name, k.id])),
      );
      expect(await exportTo(source, path.join(dir, "a-again.yaml"))).toBe(exportedA);
      expect((await stackA.preview()).changeSummary).toEqual({ same: RESOURCES });
    },
    STEP_TIMEOUT_MS,
  );

  it(
    "5. a mistake in the file fails the preview, naming file:line:column and path, before any request",
    async () => {
      const bad = path.join(dir, "bad.yaml");
      fs.writeFileSync(bad, exportedA.replace("type: SERVICE", "type: ADMIN"));
      const line = exportedA.split("\n").findIndex((l) => l.includes("type: SERVICE")) + 1;
      await stackB.setConfig("file", { value: bad });
      await target.controls!.clearRequests();
      const error = String(await stackB.preview().catch((e: unknown) => e));
      expect(error).toContain(`${bad}:${line}:11 accessKeys[0].type: must be one of "ACCOUNT", "SERVICE"`);
      expect(await target.controls!.requests()).toEqual([]);
      await stackB.setConfig("file", { value: path.join(dir, "a.yaml") });
    },
    STEP_TIMEOUT_MS,
  );

  it(
    "6. destroy empties both stacks; it revokes the keys B's stack created and leaves those A's adopted as found",
    async () => {
      const adoptedBefore = (await keysOf(source)).find((k) => k.name === "orders-svc")!.permissions;
      for (const stack of [stackB, stackA]) {
        const destroy = await stack.destroy();
        expect(destroy.summary.result).toBe("succeeded");
        const state = (await stack.exportStack()).deployment as { resources?: unknown[] };
        expect(state.resources ?? []).toHaveLength(0);
      }
      // B's stack created its keys: revoked. A's stack adopted what it found: left as it was (the
      // default without onDelete, docs/workflows.md "What a destroy does to adopted objects").
      const ordersSvc = async (env: EmulatorHandle): Promise<unknown> =>
        (await keysOf(env)).find((k) => k.name === "orders-svc")!.permissions;
      expect(await ordersSvc(target)).toEqual({ send: [], receive: [], resources: {} });
      expect(await ordersSvc(source)).toEqual(adoptedBefore);
      expect(adoptedBefore).toMatchObject({ send: ["orders/created", "orders/cancelled"] });
      // The API cannot delete: every object is still there, nothing was created twice.
      for (const env of [target, source]) expect((await env.controls!.stats()).workspaces).toBe(6);
    },
    STEP_TIMEOUT_MS,
  );
});
