import { createRequire } from "node:module";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { cliCase, coreCase } from "../../harness/engine-matrix.mts";
import * as broker from "../../harness/broker-native.mts";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import { emulatorConfig, previewWithoutRequests, startProgram, tearDown } from "../support/projects";
import { stateOutputs } from "../support/state";

// Autonaming and key rotation end to end through the real Pulumi CLI (every leg of the engine
// matrix: CLI 3.259 and 3.274 both send the engine's `pulumi:autonaming` proposal to providers that
// accept it). One stack of native and dynamic resources without names; the steps share it and run
// in order. CLI starts are kept few (each costs seconds): the steps read the stack's outputs from its
// checkpoint rather than with `stack output`, set config in one `config set-all`, and run an `up`
// whose summary they do not read with the CLI alone (the Automation API's reads its outputs and
// history after it). What each leg of the engine matrix runs of this file is in docs/offline-engine.md.

const STACK = "dev";

/**
 * Whether the plugin can honour `pulumi:autonaming` in this leg: it speaks through the gRPC stubs of
 * the `@pulumi/pulumi` installed beside it, and those of the oldest supported SDK (3.139) have no
 * autonaming fields, so the plugin then claims no support and the engine sends no proposal.
 */
const stubsCarryAutonaming =
  (
    createRequire(path.join(inject("packageFixture"), "package.json"))(
      "@pulumi/pulumi/proto/provider_pb",
    ) as { CheckRequest: { AutonamingOptions?: unknown } }
  ).CheckRequest.AutonamingOptions !== undefined;
/** Pulumi's default form: the logical name, a dash, 7 lowercase hexadecimal characters. */
const defaultForm = (logical: string): RegExp => new RegExp(`^${logical}-[0-9a-f]{7}$`, "u");

let emulator: EmulatorHandle;
let project: PulumiProject;
let stack: Stack;

interface Names {
  orders: string;
  ordersKey: string;
  dynWorkspace: string;
  dynKey: string;
}

/** The stack's outputs as its checkpoint holds them now (none is secret); `undefined` mid-write. */
function stackOutputsInState(): Record<string, unknown> | undefined {
  try {
    return stateOutputs(project, STACK);
  } catch {
    return undefined; // read between the engine's writes: the next sample reads it whole
  }
}

/** The outputs the steps check, as `stack output` would show them after the last run. */
function outputs(): {
  names: Names;
  ordersKeyId: number;
  dynKeyId: number;
  extraNames: Record<string, string>;
} {
  const out = stackOutputsInState();
  if (out === undefined) throw new Error(`no outputs in the checkpoint of stack ${STACK}`);
  return {
    names: out["names"] as Names,
    ordersKeyId: out["ordersKeyId"] as number,
    dynKeyId: out["dynKeyId"] as number,
    extraNames: out["extraNames"] as Record<string, string>,
  };
}

/** The stack output `currentKeyId` as the stack's checkpoint holds it now; `undefined` mid-write. */
function currentKeyIdInState(): number | undefined {
  const id = stackOutputsInState()?.["currentKeyId"];
  return typeof id === "number" ? id : undefined;
}

/** Whether the key `id` verifies (the API's verify endpoint) and still holds permissions (not revoked). */
async function usable(id: number): Promise<boolean> {
  const key = broker.keyById(await broker.allKeys(emulator), id);
  if (key === undefined) return false;
  const value = encodeURIComponent(String(key["key"]));
  const verified = await broker.brokerApi(emulator, "GET", `/access/verify/${value}`);
  return (
    verified["status"] === true &&
    JSON.stringify(key["permissions"]) !== JSON.stringify(broker.NO_PERMISSIONS)
  );
}

/** Sets plain config values (`--path` keys such as `pulumi:autonaming.mode`) in one CLI start. */
async function setConfig(values: Record<string, string>): Promise<void> {
  const pairs = Object.entries(values).flatMap(([key, value]) => ["--plaintext", `${key}=${value}`]);
  await project.run(["config", "set-all", "--stack", STACK, "--path", ...pairs]);
}

/** `pulumi up` alone, for a run whose summary the step does not read. */
async function upWithCli(): Promise<void> {
  await project.run(["up", "--yes", "--skip-preview", "--stack", STACK]);
}

beforeAll(async () => {
  ({ emulator, project } = await startProgram("broker-names", "names-and-rotation"));
  broker.installBrokerPlugin(project);
  stack = await project.stack(STACK);
});

afterAll(() => tearDown({ emulators: [emulator], project }));

// A step runs several CLI commands on a machine whose cores are shared: the bound is against a hang.
describe("resources without names, through the Pulumi CLI", { timeout: 240_000 }, () => {
  // The main leg's alone: that no request leaves without credentials is the core's, and the engine
  // names nothing in a preview that the steps below read; every leg previews a new stack without
  // credentials in native.test.ts (step a).
  it(
    "previews without credentials: every resource a create, no request sent",
    coreCase(inject("engineLayers")),
    async () => {
      // The stack, 2 workspaces, 4 keys.
      expect(await previewWithoutRequests(stack, emulator)).toEqual({ create: 7 });
    },
  );

  it("up names each object <logical name>-<7 hex> on the broker, in both doors", async () => {
    await stack.setAllConfig(emulatorConfig(emulator));
    await upWithCli();
    const { names, ordersKeyId } = outputs();
    expect(names.orders).toMatch(defaultForm("orders"));
    expect(names.ordersKey).toMatch(defaultForm("orders-svc"));
    expect(names.dynWorkspace).toMatch(defaultForm("dyn-team"));
    expect(names.dynKey).toMatch(defaultForm("dyn-key"));
    const workspaceNames = (await broker.allWorkspaces(emulator)).map((w) => w["name"]);
    expect(workspaceNames).toEqual(expect.arrayContaining([names.orders, names.dynWorkspace]));
    expect(broker.keyById(await broker.allKeys(emulator), ordersKeyId)?.["name"]).toBe(names.ordersKey);
  });

  // The main leg's alone: in every leg the autonaming step below runs the program again under
  // another proposal and finds every existing name kept, which is what an engine could change here.
  it("a second preview changes nothing", coreCase(inject("engineLayers")), async () => {
    const { names } = outputs();
    const again = await stack.preview();
    expect(again.changeSummary).toEqual({ same: 7 });
    expect(outputs().names).toEqual(names);
  });

  // The engine orders a replacement's create and delete: run where the leg brings a CLI; the
  // replacement itself through each SDK runs in lifecycle.test.ts and native.test.ts. One `up` holds
  // both kinds of replacement (a new type, a new rotation trigger): the engine orders them alike.
  it(
    "a replacement (a new type, a new rotation trigger) gets a new name and creates each new key before revoking the old one; a consumer of the current/previous pair always holds a usable key",
    cliCase(inject("engineLayers")),
    async () => {
      const before = outputs();
      await setConfig({ keyType: "ACCOUNT", rotation: "2", keyGeneration: "2" });
      await emulator.controls!.clearRequests();
      // A consumer polling the stack's `currentKeyId` all through the run, and once after it.
      const seen: { id: number; usable: boolean }[] = [];
      const run = { done: false };
      const up = stack.up().finally(() => {
        run.done = true;
      });
      do {
        const id = currentKeyIdInState();
        if (id !== undefined) seen.push({ id, usable: await usable(id) });
        await new Promise((resolve) => setTimeout(resolve, 20));
      } while (!run.done);
      const result = await up;
      const lastId = currentKeyIdInState()!;
      seen.push({ id: lastId, usable: await usable(lastId) });
      // The orders key (its type and its trigger), the dynamic key and the older slot of the pair (pay-b).
      expect(result.summary.resourceChanges).toEqual({ same: 4, replace: 3 });
      expect(seen.filter((s) => !s.usable)).toEqual([]);
      expect(lastId).toBe(result.outputs["currentKeyId"]?.value);

      const routes = (await emulator.controls!.requests()).map((r) => r.route);
      const creates = routes.flatMap((route, index) => (route === "POST /access-key" ? [index] : []));
      const firstRevoke = routes.indexOf("POST /access-key/{accessKey}/permissions");
      expect(creates, `requests: ${routes.join(", ")}`).toHaveLength(3);
      expect(firstRevoke, `requests: ${routes.join(", ")}`).toBeGreaterThan(Math.max(...creates));

      const after = outputs();
      const keys = await broker.allKeys(emulator);
      for (const [oldId, newId] of [
        [before.ordersKeyId, after.ordersKeyId],
        [before.dynKeyId, after.dynKeyId],
      ] as const) {
        expect(newId).not.toBe(oldId);
        expect(broker.keyById(keys, oldId)?.["permissions"], "the old key is revoked").toEqual(
          broker.NO_PERMISSIONS,
        );
        expect(await usable(newId)).toBe(true);
      }
      // Each replaced key has a new name of the default form; the workspaces keep theirs.
      expect(after.names.ordersKey).toMatch(defaultForm("orders-svc"));
      expect(after.names.ordersKey).not.toBe(before.names.ordersKey);
      expect(after.names.dynKey).toMatch(defaultForm("dyn-key"));
      expect({ ...after.names, ordersKey: "", dynKey: "" }).toEqual({
        ...before.names,
        ordersKey: "",
        dynKey: "",
      });
      expect(broker.keyById(keys, after.ordersKeyId)).toMatchObject({
        name: after.names.ordersKey,
        type: "ACCOUNT",
      });
    },
  );

  it("new native resources follow pulumi:autonaming (a pattern, then verbatim) where the plugin supports it; existing ones keep their names", async () => {
    const before = outputs();
    await setConfig({
      "pulumi:autonaming.pattern": "${name}-dev-${alphanum(4)}",
      extraWorkspaces: "patterned",
    });
    await upWithCli();
    const patterned = outputs();
    expect(patterned.extraNames["patterned"]).toMatch(
      stubsCarryAutonaming ? /^patterned-dev-[a-z0-9]{4}$/u : defaultForm("patterned"),
    );
    expect(patterned.names).toEqual(before.names);

    await project.run(["config", "rm", "--stack", STACK, "--path", "pulumi:autonaming.pattern"]);
    await setConfig({ "pulumi:autonaming.mode": "verbatim", extraWorkspaces: "patterned,verbatim" });
    await upWithCli();
    const verbatim = outputs();
    expect(verbatim.extraNames).toEqual({
      patterned: patterned.extraNames["patterned"],
      verbatim: stubsCarryAutonaming
        ? "verbatim"
        : (expect.stringMatching(defaultForm("verbatim")) as string),
    });
    expect(verbatim.names).toEqual(before.names);
    const workspaceNames = (await broker.allWorkspaces(emulator)).map((w) => w["name"]);
    expect(workspaceNames).toEqual(expect.arrayContaining(Object.values(verbatim.extraNames)));
  });
});
