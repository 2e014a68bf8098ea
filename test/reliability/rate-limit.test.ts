import * as path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { PulumiProject } from "../../harness/pulumi-project.mts";
import { CLI_TEST_SOURCES, errorText, SecretScan } from "../../harness/secret-scan.mts";
import { type StackView, expectDeclaredState, viewOf } from "./support/declared-state";
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
  // One case where there were two (a stack of 15 keys under faults, and two stacks of 10 keys at
  // once): the two stacks deploy at once under the faults, each pacing its own resources and both
  // sharing the limit, with a pair among them, for 30 resources where the two cases made 48.
  it("two stacks of one program (10 keys, a workspace tree, a pair) deploying at once at 5 requests/s with 20% faults both converge in one up each, without duplicates", async () => {
    const emulator = await started("5/s", 5);
    const shared = await project("rate-limit-stacks");
    const specs: Record<"dev" | "prod", Spec> = {
      dev: {
        workspaces: workspaceTree("dev"),
        keys: keys("dev", 10),
        pairs: [{ key: "dev-key-0", rotationTriggers: { quarter: "2026-Q4" } }],
      },
      prod: { workspaces: workspaceTree("prod"), keys: keys("prod", 10), pairs: [] },
    };
    const dev = await shared.stack("dev", { ...specConfig(specs.dev), ...brokerConfig(emulator) });
    const prod = await shared.stack("prod", { ...specConfig(specs.prod), ...brokerConfig(emulator) });

    // 503s and dropped connections: every 429 is the limit's own, so the limit is what is tested.
    await injectFaultMix(emulator.controls!, 0.2, 11, SERVER_FAULTS);
    const ups = await Promise.allSettled([dev.up(), prod.up()]);
    const log = await emulator.controls!.requests();
    await emulator.controls!.clearFaults();
    await emulator.controls!.clearRateLimit();
    const views: StackView[] = [];
    for (const [name, result, spec] of [
      ["dev", ups[0], specs.dev],
      ["prod", ups[1], specs.prod],
    ] as const) {
      if (result.status === "rejected") {
        scan.text(`two stacks: ${name} failed up`, errorText(result.reason), "error");
        continue;
      }
      scan.text(`two stacks: ${name} up`, result.value.stdout + result.value.stderr, "cli output");
      expect(result.value.summary.resourceChanges, name).toMatchObject({ create: resourceCount(spec) + 1 });
      // The outputs the up read: reading them again would cost two more CLI starts.
      views.push(viewOf(result.value.outputs));
    }
    expect(
      ups.map((result) => result.status),
      "both ups succeed the first time",
    ).toEqual(["fulfilled", "fulfilled"]);
    // Both the limit and the faults really struck.
    expect((await emulator.controls!.rateLimit()).rateLimitedResponses).toBeGreaterThan(0);
    expect(log.some((entry) => entry.fault !== undefined)).toBe(true);

    // The broker holds exactly both stacks' objects, each once, each tracked by its own stack.
    const [devView, prodView] = views as [StackView, StackView];
    scanView(devView);
    scanView(prodView);
    const union: Spec = {
      workspaces: [...specs.dev.workspaces, ...specs.prod.workspaces],
      keys: [...specs.dev.keys, ...specs.prod.keys],
      pairs: specs.dev.pairs,
    };
    const view: StackView = {
      keyIds: { ...devView.keyIds, ...prodView.keyIds },
      workspaceIds: { ...devView.workspaceIds, ...prodView.workspaceIds },
      publicKeys: devView.publicKeys,
      keyValues: {},
      privateKeys: {},
    };
    await expectDeclaredState(emulator, union, view, (id) => emulator.controls!.publicKeyOf(id));
    // And the next preview has nothing left to do.
    const preview = await dev.preview();
    expect(preview.changeSummary).toEqual({ same: resourceCount(specs.dev) + 1 });
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
