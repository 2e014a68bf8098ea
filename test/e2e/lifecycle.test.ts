import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { coreCase } from "../../harness/engine-matrix.mts";
import type { EmulatorHandle } from "../../src/emulator";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import { apiOf } from "../support/emulator";
import { stateResources } from "../support/state";
import {
  emulatorConfig,
  type OrdersSpec,
  ordersSpec,
  previewWithoutRequests,
  specConfig,
  startProgram,
  tearDown,
} from "../support/projects";

// End-to-end: the real Pulumi CLI runs a real program against the emulator, step by step as a
// platform team would (issue #4). The steps share one stack and run in order; a step reads the
// outputs of the `up` before it rather than `stack output` again (each CLI start costs seconds).
// Several stacks of one program, and an up through injected faults, are in
// stacks-per-environment.test.ts. What each leg of the engine matrix runs of this file, and why, is
// in docs/offline-engine.md.

/** How either door says a run was cancelled: never in the output of a run that succeeded. */
const RUN_CANCELLED = /run was cancelled/u;

type Spec = OrdersSpec;

const baseSpec: Spec = ordersSpec();

let emulator: EmulatorHandle;
let project: PulumiProject;
let stack: Stack;
/** The outputs of the last `up`: what the stack holds until the next one. */
let last: Awaited<ReturnType<Stack["outputs"]>>;
const secrets = new Set<string>();

function allKeys(target: EmulatorHandle): Promise<Record<string, unknown>[]> {
  return apiOf(target).listAll("/access-key");
}

function permissionsOf(keys: Record<string, unknown>[], name: string): unknown {
  return keys.find((k) => k["name"] === name)?.["permissions"];
}

beforeAll(async () => {
  ({ emulator, project } = await startProgram("broker-e2e", "broker"));
  secrets.add(emulator.adminKey);
  stack = await project.stack("dev", specConfig(baseSpec));
});

afterAll(() => tearDown({ emulators: [emulator], project }));

// A step runs several CLI commands on a machine whose cores are shared: the bound is against a hang.
describe("a stack's life through the Pulumi CLI", { timeout: 240_000 }, () => {
  // The main leg's alone: that no request leaves without credentials is the core's; the dynamic
  // host's preview (Check of every resource) runs in every leg in steps 4 and 7.
  it(
    "1. previews a new stack with no credentials, listing the creates, without a request",
    coreCase(inject("engineLayers")),
    async () => {
      expect(await previewWithoutRequests(stack, emulator)).toMatchObject({ create: 6 });
    },
  );

  it("2. creates nested workspaces, keys and a key pair; secrets stay secret everywhere", async () => {
    await stack.setAllConfig(emulatorConfig(emulator));
    const up = await stack.up();
    expect(up.summary.resourceChanges).toMatchObject({ create: 6 });
    // The engine's Cancel as it shuts the provider host down after the run cuts nothing short.
    expect(up.stdout + up.stderr).not.toMatch(RUN_CANCELLED);
    const out = up.outputs;
    expect(out["workspacePaths"]?.value).toEqual({ platform: "/platform", orders: "/platform/orders" });
    expect(out["keyValues"]?.secret).toBe(true);
    expect(out["privateKeys"]?.secret).toBe(true);
    const keyValues = out["keyValues"]?.value as Record<string, string>;
    const privateKeys = out["privateKeys"]?.value as Record<string, string>;
    expect(keyValues["orders-svc"]).toMatch(/^bks_/u);
    for (const value of [...Object.values(keyValues), ...Object.values(privateKeys)]) secrets.add(value);
    const text = project.producedText() + up.stdout + up.stderr;
    for (const secret of secrets) expect(text).not.toContain(secret);
    last = out;
  });

  // The main leg's alone: in every leg, step 4's preview shows the resources nobody changed as
  // unchanged through the same dynamic-provider host's diff.
  it("3. a second preview shows no changes", coreCase(inject("engineLayers")), async () => {
    const preview = await stack.preview();
    expect(preview.changeSummary).toEqual({ same: 6 });
  });

  it("4. permissions changes update those keys only, and the server holds the new lists", async () => {
    // Two keys at once: ops-admin has no pair, orders-svc has one. During preview a SERVICE key's
    // outputs are unknown (a dynamic provider cannot compute them), so its pair is shown as a
    // possible update, never as a replacement; the update itself changes the keys only.
    const spec = structuredClone(baseSpec);
    spec.keys![1]!.permissions = { send: ["audit/replay"], receive: ["audit/*"] };
    spec.keys![0]!.permissions = { send: ["orders/created", "orders/cancelled"], receive: ["payments/*"] };
    await stack.setAllConfig(specConfig(spec));
    expect((await stack.preview()).changeSummary).toEqual({ same: 3, update: 3 });
    const up = await stack.up();
    expect(up.summary.resourceChanges).toEqual({ same: 4, update: 2 });
    const keys = await allKeys(emulator);
    expect(permissionsOf(keys, "ops-admin")).toEqual({
      send: ["audit/replay"],
      receive: ["audit/*"],
      resources: {},
    });
    expect(permissionsOf(keys, "orders-svc")).toEqual({
      send: ["orders/cancelled", "orders/created"],
      receive: ["payments/*"],
      resources: {},
    });
    last = up.outputs;
    Object.assign(baseSpec, spec);
  });

  it("5. refresh finds a change made outside Pulumi; the next up restores the declared state", async () => {
    const ids = last["keyIds"]?.value as Record<string, number>;
    await emulator.controls!.setKeyPermissions(ids["ops-admin"]!, { send: ["everything/*"], receive: [] });
    const refresh = await stack.refresh();
    expect(refresh.summary.resourceChanges).toEqual({ same: 5, update: 1 });
    expect(refresh.stdout + refresh.stderr).not.toMatch(RUN_CANCELLED);
    // The up after the refresh updates that key alone (what a preview would list: the same diff).
    const up = await stack.up();
    expect(up.summary.resourceChanges).toEqual({ same: 5, update: 1 });
    last = up.outputs;
    expect(permissionsOf(await allKeys(emulator), "ops-admin")).toEqual({
      send: ["audit/replay"],
      receive: ["audit/*"],
      resources: {},
    });
  });

  it("6. renaming a key replaces it and revokes the old one", async () => {
    const spec = structuredClone(baseSpec);
    spec.keys![0] = { ...spec.keys![0]!, name: "orders-service", resource: "orders-svc" };
    await stack.setAllConfig(specConfig(spec));
    const up = await stack.up();
    expect(up.summary.resourceChanges).toMatchObject({ replace: 2 });
    const keys = await allKeys(emulator);
    expect(permissionsOf(keys, "orders-svc")).toEqual({ send: [], receive: [], resources: {} });
    expect(permissionsOf(keys, "orders-service")).toMatchObject({ receive: ["payments/*"] });
    const renamed = up.outputs;
    secrets.add((renamed["keyValues"]?.value as Record<string, string>)["orders-svc"]!);
    secrets.add((renamed["privateKeys"]?.value as Record<string, string>)["orders-svc"]!);
    last = renamed;
    Object.assign(baseSpec, spec);
  });

  // The main leg's alone: a new trigger making the pair's update generate a new key pair is the
  // core's decision; the engine's part (an update through the dynamic host, with secret outputs) is
  // step 4's in every leg.
  it("6b. new rotationTriggers rotate the pair", coreCase(inject("engineLayers")), async () => {
    const oldPrivate = (last["privateKeys"]?.value as Record<string, string>)["orders-svc"];
    const spec = structuredClone(baseSpec);
    spec.pairs![0]!.rotationTriggers = { quarter: "2027-Q1" };
    await stack.setAllConfig(specConfig(spec));
    const rotation = await stack.up();
    expect(rotation.summary.resourceChanges).toMatchObject({ update: 1 });
    const after = rotation.outputs;
    const newPrivate = (after["privateKeys"]?.value as Record<string, string>)["orders-svc"]!;
    secrets.add(newPrivate);
    expect(newPrivate).not.toBe(oldPrivate);
    const keyId = (after["keyIds"]?.value as Record<string, number>)["orders-svc"]!;
    expect(await emulator.controls!.publicKeyOf(keyId)).toBe(
      (after["publicKeys"]?.value as Record<string, string>)["orders-svc"],
    );
    last = after;
    Object.assign(baseSpec, spec);
  });

  it("7. an invalid event path fails the preview with its property path, before any request", async () => {
    const spec = structuredClone(baseSpec);
    spec.keys![1]!.permissions = { send: ["audit/*", "bad path"], receive: ["audit/*"] };
    await stack.setAllConfig(specConfig(spec));
    await emulator.controls!.clearRequests();
    const error = await stack.preview().catch((e: unknown) => e);
    expect(String(error)).toContain("permissions.send[1]");
    expect(String(error)).toContain("whitespace");
    expect(await emulator.controls!.requests()).toEqual([]);
    // The invalid spec stays: destroy (the last step) does not run the program.
  });

  it("8. destroy revokes the keys, warns about what the API cannot delete, and empties the stack", async () => {
    const destroy = await stack.destroy();
    expect(destroy.stdout).toMatch(/revoked/u);
    expect(destroy.stdout + destroy.stderr).not.toMatch(RUN_CANCELLED);
    expect(destroy.stdout).toMatch(/no delete endpoint/u);
    const keys = await allKeys(emulator);
    for (const name of ["orders-service", "ops-admin"]) {
      expect(permissionsOf(keys, name)).toEqual({ send: [], receive: [], resources: {} });
    }
    // The checkpoint itself (what `stack export` prints), read without a CLI start.
    expect(stateResources(project, "dev")).toHaveLength(0);
    const text = project.producedText() + destroy.stdout + destroy.stderr;
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});
