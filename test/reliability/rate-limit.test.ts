import * as path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { PulumiProject } from "../../harness/pulumi-project.mts";
import { CLI_TEST_SOURCES, errorText, SecretScan } from "../../harness/secret-scan.mts";
import { expectDeclaredState, stackView, type StackView } from "./support/declared-state";
import { injectFaultMix, SERVER_FAULTS } from "./support/faults";
import { brokerConfig, resourceCount, specConfig, type KeySpec, type Spec } from "./support/spec";

// Issue #11: the API's real limits. The emulator admits a few requests per second (answering the
// rest 429 with Retry-After), and every `up` must still converge the first time: the providers pace
// themselves after a 429 instead of spending their retries, across all resources of a process, and
// across the processes of stacks deployed at the same time.

const programDir = path.join(__dirname, "..", "programs", "broker");
const scan = new SecretScan();
const cleanups: (() => Promise<void> | void)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** `count` keys named `<prefix>-key-<i>`, SERVICE and ACCOUNT alternating, each with its own send path. */
function keys(prefix: string, count: number): KeySpec[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `${prefix}-key-${i}`,
    type: i % 3 === 2 ? "ACCOUNT" : "SERVICE",
    permissions: { send: [`${prefix}/orders-${i}`], receive: ["payments/*"] },
  }));
}

/** A workspace tree two levels deep under `<prefix>-platform`. */
function workspaceTree(prefix: string): Spec["workspaces"] {
  return [
    { name: `${prefix}-platform` },
    { name: `${prefix}-orders`, parent: `${prefix}-platform` },
    { name: `${prefix}-billing`, parent: `${prefix}-platform` },
    { name: `${prefix}-orders-eu`, parent: `${prefix}-orders` },
  ];
}

async function started(label: string, limit: number): Promise<EmulatorHandle> {
  const emulator = await startEmulator({
    controls: true,
    rateLimit: { requestsPerSecond: limit, scope: "overall" },
  });
  scan.secrets(emulator.adminKey);
  cleanups.push(() => emulator.close());
  expect((await emulator.controls!.rateLimit()).limit, label).toEqual({
    requestsPerSecond: limit,
    scope: "overall",
  });
  return emulator;
}

async function project(name: string): Promise<PulumiProject> {
  const created = await PulumiProject.create({
    name,
    programDir,
    fixture: inject("packageFixture"),
    pulumiBin: inject("pulumiBin"),
    env: { BROKER_BASE_URL: "", BROKER_API_KEY: "" },
  });
  cleanups.push(() => {
    scan.project(name, created);
    created.remove();
  });
  return created;
}

function scanView(view: StackView): void {
  scan.secrets(...Object.values(view.keyValues), ...Object.values(view.privateKeys));
}

describe("against a rate-limited API", () => {
  it("one up of 15 keys and a workspace tree at 5 requests/s with 20% faults converges, without duplicates", async () => {
    const emulator = await started("5/s", 5);
    const spec: Spec = {
      workspaces: workspaceTree("team"),
      keys: keys("team", 15),
      pairs: [{ key: "team-key-0", rotationTriggers: { quarter: "2026-Q4" } }],
    };
    const stack = await (
      await project("rate-limit-faults")
    ).stack("dev", {
      ...specConfig(spec),
      ...brokerConfig(emulator),
    });
    // 503s and dropped connections: every 429 is the limit's own, so the limit is what is tested.
    await injectFaultMix(emulator.controls!, 0.2, 11, SERVER_FAULTS);
    const up = await stack.up().catch((error: unknown) => {
      scan.text("rate limit + faults: failed up", errorText(error), "error");
      throw error;
    });
    scan.text("rate limit + faults: up", up.stdout + up.stderr, "cli output");
    const log = await emulator.controls!.requests();
    await emulator.controls!.clearFaults();
    await emulator.controls!.clearRateLimit();

    expect(up.summary.resourceChanges).toMatchObject({ create: resourceCount(spec) + 1 });
    const view = await stackView(stack);
    scanView(view);
    await expectDeclaredState(emulator, spec, view, (id) => emulator.controls!.publicKeyOf(id));
    // Both the limit and the faults really struck.
    expect((await emulator.controls!.rateLimit()).rateLimitedResponses).toBeGreaterThan(0);
    expect(log.some((entry) => entry.fault !== undefined)).toBe(true);
    // And the next preview has nothing left to do.
    const preview = await stack.preview();
    expect(preview.changeSummary).toEqual({ same: resourceCount(spec) + 1 });
  }, 300_000);

  it("two stacks of one program deploying at the same time both converge in one up each", async () => {
    const emulator = await started("5/s", 5);
    const shared = await project("rate-limit-stacks");
    const specs: Record<"dev" | "prod", Spec> = {
      dev: { workspaces: workspaceTree("dev"), keys: keys("dev", 10), pairs: [] },
      prod: { workspaces: workspaceTree("prod"), keys: keys("prod", 10), pairs: [] },
    };
    const dev = await shared.stack("dev", { ...specConfig(specs.dev), ...brokerConfig(emulator) });
    const prod = await shared.stack("prod", { ...specConfig(specs.prod), ...brokerConfig(emulator) });

    const ups = await Promise.allSettled([dev.up(), prod.up()]);
    for (const [name, result] of [
      ["dev", ups[0]],
      ["prod", ups[1]],
    ] as const) {
      if (result.status === "rejected")
        scan.text(`two stacks: ${name} failed up`, errorText(result.reason), "error");
      else scan.text(`two stacks: ${name} up`, result.value.stdout + result.value.stderr, "cli output");
    }
    expect(
      ups.map((result) => result.status),
      "both ups succeed the first time",
    ).toEqual(["fulfilled", "fulfilled"]);
    await emulator.controls!.clearRateLimit();
    expect((await emulator.controls!.rateLimit()).rateLimitedResponses).toBeGreaterThan(0);

    // The broker holds exactly both stacks' objects, each once, each tracked by its own stack.
    const [devView, prodView] = [await stackView(dev), await stackView(prod)];
    scanView(devView);
    scanView(prodView);
    const union: Spec = {
      workspaces: [...specs.dev.workspaces, ...specs.prod.workspaces],
      keys: [...specs.dev.keys, ...specs.prod.keys],
      pairs: [],
    };
    const view: StackView = {
      keyIds: { ...devView.keyIds, ...prodView.keyIds },
      workspaceIds: { ...devView.workspaceIds, ...prodView.workspaceIds },
      publicKeys: {},
      keyValues: {},
      privateKeys: {},
    };
    await expectDeclaredState(emulator, union, view, (id) => emulator.controls!.publicKeyOf(id));
  }, 300_000);
});

describe("the secret scan", () => {
  it("finds no access key, private key or admin key in state, backups, CLI output or errors", async () => {
    // Runs last in this file: it scans what the tests above produced (projects are added as they close).
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    expect(scan.size).toBeGreaterThan(4);
    expect(scan.unread(CLI_TEST_SOURCES), "sources the scan read nothing from").toEqual([]);
    expect(scan.leaks()).toEqual([]);
  });
});
