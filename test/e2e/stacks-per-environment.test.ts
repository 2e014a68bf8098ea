import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { allKeys, allWorkspaces } from "../../harness/broker-native.mts";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import { injectFaultMix, struckRequests } from "../support/fault-mix";
import {
  emulatorConfig,
  type OrdersSpec,
  ordersSpec,
  specConfig,
  startProgram,
  tearDown,
} from "../support/projects";

// End-to-end, the dynamic resources' `broker` program through the real CLI: one stack per
// environment (issue #4), and an up that meets the broker's faults. Steps 9 and 10 of the stack's
// life in lifecycle.test.ts. What they check (the endpoint guard, retries, no duplicates) is the
// core's, the same whatever the engine, so they run in the main leg only, where lifecycle.test.ts
// runs in every leg of the engine matrix (harness/engine-matrix.mts).

type Spec = OrdersSpec;

const baseSpec: Spec = ordersSpec();

let emulator: EmulatorHandle;
let project: PulumiProject;

beforeAll(async () => {
  ({ emulator, project } = await startProgram("broker-environments", "broker"));
});

afterAll(() => tearDown({ emulators: [emulator], project }));

describe("stacks per environment", () => {
  let prodEmulator: EmulatorHandle;
  const small: Spec = { keys: [{ name: "isolated", type: "SERVICE", permissions: { send: ["a/b"] } }] };

  beforeAll(async () => {
    prodEmulator = await startEmulator({ controls: true });
  });
  afterAll(async () => {
    await prodEmulator.close();
  });

  it("9. two stacks of one program stay isolated; a stack pointed at another endpoint fails its preview", async () => {
    const dev = await project.stack("iso-dev", { ...specConfig(small), ...emulatorConfig(emulator) });
    const prod = await project.stack("iso-prod", { ...specConfig(small), ...emulatorConfig(prodEmulator) });
    // The CLI's `up` alone: the Automation API's would read outputs and history after it (3 more runs).
    await project.run(["up", "--yes", "--skip-preview", "--stack", dev.name]);
    await project.run(["up", "--yes", "--skip-preview", "--stack", prod.name]);
    const devKeys = (await allKeys(emulator)).filter((k) => k["name"] === "isolated");
    const prodKeys = (await allKeys(prodEmulator)).filter((k) => k["name"] === "isolated");
    expect(devKeys).toHaveLength(1);
    expect(prodKeys).toHaveLength(1);
    expect(devKeys[0]?.["key"]).not.toBe(prodKeys[0]?.["key"]);

    await dev.setAllConfig(emulatorConfig(prodEmulator));
    const error = await dev.preview().catch((e: unknown) => e);
    expect(String(error)).toMatch(/lives at .*now points to/su);
    expect(String(error)).toContain(emulator.url);
    // No destroy: it would prove nothing of isolation (lifecycle.test.ts destroys), and no later step reads these stacks.
  }, 300_000);

  it("10. up with faults injected still succeeds, without duplicates on the server", async () => {
    const faulty = await project.stack("faulty", {
      ...specConfig(baseSpec),
      ...emulatorConfig(prodEmulator),
    });
    const mix = [
      ["429", "before"],
      ["503", "before"],
      ["503", "after"],
      ["reset", "after"],
    ] as const;
    await injectFaultMix(prodEmulator.controls!, mix, 11);
    await prodEmulator.controls!.clearRequests();
    // The CLI's `up`, which exits 0 only when the update succeeded.
    await project.run(["up", "--yes", "--skip-preview", "--stack", faulty.name]);
    const { struck, applied } = await struckRequests(prodEmulator.controls!);
    await prodEmulator.controls!.clearFaults();
    // The faults really struck: the up succeeded through them, not past them.
    expect(struck.length).toBeGreaterThan(0);
    expect(struck).toHaveLength(applied);
    expect(new Set(struck.map((r) => r.fault)).size, "more than one kind of fault struck").toBeGreaterThan(1);
    const names = (await allKeys(prodEmulator)).map((k) => k["name"]);
    for (const key of baseSpec.keys!) expect(names.filter((n) => n === key.name)).toHaveLength(1);
    const workspaces = await allWorkspaces(prodEmulator);
    expect(workspaces.map((w) => w["name"]).sort()).toEqual(["orders", "platform"]);
    expect((await faulty.preview()).changeSummary).toEqual({ same: 6 });
  }, 300_000);
});
