import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import { apiOf } from "../support/emulator";
import {
  emulatorConfig,
  type OrdersSpec,
  ordersSpec,
  specConfig,
  startProgram,
  tearDown,
} from "../support/projects";

// End-to-end: the real Pulumi CLI runs a real program against the emulator, step by step as a
// platform team would (issue #4). The steps share one stack and run in order. Several stacks of
// one program, and an up through injected faults, are in stacks-per-environment.test.ts.

/** How either door says a run was cancelled: never in the output of a run that succeeded. */
const RUN_CANCELLED = /run was cancelled/u;

type Spec = OrdersSpec;

const baseSpec: Spec = ordersSpec();

let emulator: EmulatorHandle;
let project: PulumiProject;
let stack: Stack;
const secrets = new Set<string>();

function allKeys(target: EmulatorHandle): Promise<Record<string, unknown>[]> {
  return apiOf(target).listAll("/access-key");
}

function permissionsOf(keys: Record<string, unknown>[], name: string): unknown {
  return keys.find((k) => k["name"] === name)?.["permissions"];
}

async function outputs(): Promise<Record<string, { value: unknown; secret: boolean }>> {
  return await stack.outputs();
}

beforeAll(async () => {
  ({ emulator, project } = await startProgram("broker-e2e", "broker"));
  secrets.add(emulator.adminKey);
  stack = await project.stack("dev", specConfig(baseSpec));
});

afterAll(() => tearDown({ emulators: [emulator], project }));

describe("a stack's life through the Pulumi CLI", () => {
  it("1. previews a new stack with no credentials, listing the creates, without a request", async () => {
    await emulator.controls!.clearRequests();
    const preview = await stack.preview();
    expect(preview.changeSummary).toMatchObject({ create: 6 });
    expect(await emulator.controls!.requests()).toEqual([]);
  });

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
  });

  it("3. a second preview shows no changes", async () => {
    const preview = await stack.preview();
    expect(preview.changeSummary).toEqual({ same: 6 });
  });

  it("4. a permissions change updates that key only, and the server holds the new lists", async () => {
    const spec = structuredClone(baseSpec);
    spec.keys![1]!.permissions = { send: ["audit/replay"], receive: ["audit/*"] };
    await stack.setAllConfig(specConfig(spec));
    // No preview first: for a key without a pair it shows what the up's summary shows (the same
    // diff call); the preview that differs from its up is the next one.
    expect((await stack.up()).summary.resourceChanges).toEqual({ same: 5, update: 1 });
    expect(permissionsOf(await allKeys(emulator), "ops-admin")).toEqual({
      send: ["audit/replay"],
      receive: ["audit/*"],
      resources: {},
    });

    // A SERVICE key with a key pair: during preview the key's outputs are unknown (a dynamic provider
    // cannot compute them), so the pair is shown as a possible update, never as a replacement; the
    // update itself changes the key only.
    spec.keys![0]!.permissions = { send: ["orders/created", "orders/cancelled"], receive: ["payments/*"] };
    await stack.setAllConfig(specConfig(spec));
    expect((await stack.preview()).changeSummary).toEqual({ same: 4, update: 2 });
    expect((await stack.up()).summary.resourceChanges).toEqual({ same: 5, update: 1 });
    expect(permissionsOf(await allKeys(emulator), "orders-svc")).toEqual({
      send: ["orders/cancelled", "orders/created"],
      receive: ["payments/*"],
      resources: {},
    });
    Object.assign(baseSpec, spec);
  });

  it("5. refresh finds a change made outside Pulumi; the next up restores the declared state", async () => {
    const ids = (await outputs())["keyIds"]?.value as Record<string, number>;
    await emulator.controls!.setKeyPermissions(ids["ops-admin"]!, { send: ["everything/*"], receive: [] });
    const refresh = await stack.refresh();
    expect(refresh.summary.resourceChanges).toEqual({ same: 5, update: 1 });
    expect(refresh.stdout + refresh.stderr).not.toMatch(RUN_CANCELLED);
    // The up after the refresh updates that key alone (what a preview would list: the same diff).
    expect((await stack.up()).summary.resourceChanges).toEqual({ same: 5, update: 1 });
    expect(permissionsOf(await allKeys(emulator), "ops-admin")).toEqual({
      send: ["audit/replay"],
      receive: ["audit/*"],
      resources: {},
    });
  });

  it("6. renaming a key replaces it and revokes the old one; new rotationTriggers rotate the pair", async () => {
    const before = await outputs();
    const oldPrivate = (before["privateKeys"]?.value as Record<string, string>)["orders-svc"];
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
    await stack.setAllConfig(specConfig(baseSpec));
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
    const state = (await stack.exportStack()).deployment as { resources?: unknown[] };
    expect(state.resources ?? []).toHaveLength(0);
    const text = project.producedText() + destroy.stdout + destroy.stderr;
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});
