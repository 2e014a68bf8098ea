import { execFileSync } from "node:child_process";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, describe, expect, inject, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { ProviderHost } from "../../harness/provider-host.mts";
import { PulumiProject } from "../../harness/pulumi-project.mts";
import { expectDeclaredState, expectRevoked, stackView } from "./support/declared-state";
import { apiOf, type CreatedKeyBody } from "../support/emulator";
import { injectFaultMix } from "./support/faults";
import { CLI_TEST_SOURCES, errorText, SecretScan } from "../../harness/secret-scan.mts";
import { brokerConfig, resourceCount, specConfig, type Spec } from "./support/spec";

// A whole stack life (up, refresh, a change, destroy) through the real CLI while the emulator
// answers a share of all requests with 429 (Retry-After 0 or 1 s), 503 or a dropped connection,
// before or after processing them. Every step must succeed and leave exactly the declared state.

const programDir = path.join(__dirname, "..", "programs", "broker");
const scan = new SecretScan();
const cleanups: (() => Promise<void> | void)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const initial: Spec = {
  workspaces: [
    { name: "platform" },
    { name: "orders", parent: "platform" },
    { name: "billing", parent: "platform" },
  ],
  keys: [
    {
      name: "orders-svc",
      type: "SERVICE",
      permissions: { send: ["orders/created"], receive: ["payments/*"] },
    },
    {
      name: "billing-svc",
      type: "SERVICE",
      permissions: { send: ["billing/invoiced"], receive: ["orders/*"] },
    },
    { name: "ops-admin", type: "ACCOUNT", permissions: { send: [], receive: ["audit/*"] } },
  ],
  pairs: [{ key: "orders-svc", rotationTriggers: { quarter: "2026-Q4" } }],
};

/** The `__provider` texts, serialized in a real node process inside the fixture (as the host tests do). */
function serializedProviders(fixture: string): Record<"Workspace" | "AccessKey" | "ServiceKeyPair", string> {
  const output = execFileSync(
    process.execPath,
    [path.join(__dirname, "../support/serialize-providers.cjs")],
    {
      cwd: fixture,
      encoding: "utf8",
    },
  );
  const parsed = JSON.parse(output) as Record<
    "Workspace" | "AccessKey" | "ServiceKeyPair",
    { provider: string }
  >;
  return {
    Workspace: parsed.Workspace.provider,
    AccessKey: parsed.AccessKey.provider,
    ServiceKeyPair: parsed.ServiceKeyPair.provider,
  };
}

/** The next version: changed permissions, a rotated pair, a new key. */
function changed(spec: Spec): Spec {
  const next = structuredClone(spec);
  next.keys[0]!.permissions.send.push("orders/cancelled");
  next.keys.push({ name: "audit-reader", type: "ACCOUNT", permissions: { send: [], receive: ["audit/*"] } });
  next.pairs[0]!.rotationTriggers = { quarter: "2027-Q1" };
  return next;
}

describe.each([
  { percent: 10, seed: 1 },
  { percent: 30, seed: 2 },
])("with $percent% of requests failing", ({ percent, seed }) => {
  let emulator: EmulatorHandle;
  let project: PulumiProject;
  let stack: Stack;
  let sent = 0;
  let struck = 0;
  let createsStruck = 0;
  const rate = percent / 100;

  /** Runs `step` under the fault mix, then clears the faults (the assertions read the API without them). */
  async function underFaults<T>(step: number, run: () => Promise<T>): Promise<T> {
    const controls = emulator.controls!;
    await controls.clearRequests();
    // Besides the mix: the first create of each kind loses its response after the broker made the
    // object, so every cycle exercises the recovery that must not create it twice.
    await controls.injectFault({ kind: "503", phase: "after", count: 1, routes: ["POST /access-key"] });
    await controls.injectFault({ kind: "reset", phase: "after", count: 1, routes: ["POST /workspace"] });
    await injectFaultMix(controls, rate, seed * 10 + step);
    try {
      return await run();
    } catch (error) {
      scan.text(`${percent}%: failed step ${step}`, errorText(error), "error");
      throw error;
    } finally {
      const log = await controls.requests();
      await controls.clearFaults();
      sent += log.length;
      struck += log.filter((request) => request.fault !== undefined).length;
      createsStruck += log.filter(
        (r) => ["POST /access-key", "POST /workspace"].includes(r.route) && r.fault !== undefined,
      ).length;
    }
  }

  async function expectState(spec: Spec): Promise<void> {
    const view = await stackView(stack);
    scan.secrets(...Object.values(view.keyValues), ...Object.values(view.privateKeys));
    await expectDeclaredState(emulator, spec, view, (id) => emulator.controls!.publicKeyOf(id));
  }

  it("up creates exactly the declared objects, without duplicates", async () => {
    emulator = await startEmulator({ controls: true });
    scan.secrets(emulator.adminKey);
    project = await PulumiProject.create({
      name: `faults-${percent}`,
      programDir,
      fixture: inject("packageFixture"),
      pulumiBin: inject("pulumiBin"),
      env: { BROKER_BASE_URL: "", BROKER_API_KEY: "" },
    });
    cleanups.push(
      () => emulator.close(),
      () => {
        scan.project(`${percent}%`, project);
        project.remove();
      },
    );
    stack = await project.stack("dev", { ...specConfig(initial), ...brokerConfig(emulator, 8) });
    const up = await underFaults(1, () => stack.up());
    scan.text(`${percent}%: up`, up.stdout + up.stderr, "cli output");
    expect(up.summary.resourceChanges).toMatchObject({ create: resourceCount(initial) + 1 });
    expect(
      createsStruck,
      "creates of both kinds failed, one of each after being processed",
    ).toBeGreaterThanOrEqual(2);
    await expectState(initial);
  }, 240_000);

  it("refresh finds nothing changed, and the next preview shows no changes", async () => {
    const refresh = await underFaults(2, () => stack.refresh());
    scan.text(`${percent}%: refresh`, refresh.stdout + refresh.stderr, "cli output");
    expect(refresh.summary.result).toBe("succeeded");
    const preview = await stack.preview();
    expect(preview.changeSummary).toEqual({ same: resourceCount(initial) + 1 });
    await expectState(initial);
  }, 240_000);

  it("a change (permissions, a rotation, a new key) applies exactly", async () => {
    const next = changed(initial);
    await stack.setAllConfig(specConfig(next));
    const up = await underFaults(3, () => stack.up());
    scan.text(`${percent}%: change`, up.stdout + up.stderr, "cli output");
    expect(up.summary.resourceChanges).toMatchObject({ create: 1, update: 2 });
    await expectState(next);
  }, 240_000);

  it("destroy revokes every key and empties the stack", async () => {
    const destroy = await underFaults(4, () => stack.destroy());
    scan.text(`${percent}%: destroy`, destroy.stdout + destroy.stderr, "cli output");
    await expectRevoked(
      emulator,
      changed(initial).keys.map((k) => k.name),
    );
    const state = (await stack.exportStack()).deployment as { resources?: unknown[] };
    expect(state.resources ?? []).toHaveLength(0);
    // The faults really struck, about `rate` of the requests the cycle sent (a few dozen: loose bounds).
    expect(struck).toBeGreaterThan(0);
    expect(struck / sent).toBeGreaterThan(rate / 4);
    expect(struck / sent).toBeLessThan(rate * 3);
  }, 240_000);
});

describe("errors after the retries are used up", () => {
  it("name the operation and the path template, never a key, in the message and the provider host's stderr", async () => {
    const emulator = await startEmulator({ controls: true });
    cleanups.push(() => emulator.close());
    scan.secrets(emulator.adminKey);
    const fixture = inject("packageFixture");
    const provider = serializedProviders(fixture).AccessKey;
    const host = await ProviderHost.start(fixture, { BROKER_BASE_URL: undefined, BROKER_API_KEY: undefined });
    cleanups.push(() => host.stop());
    await host.configure({
      "broker:baseUrl": emulator.url,
      "broker:apiKey": emulator.adminKey,
      "broker:maxRetries": "1",
    });
    const created = await apiOf(emulator).post("/access-key", {
      name: "victim",
      type: "SERVICE",
      permissions: { send: ["a/b"] },
    });
    const { accessKey, accessKeyId } = created.body as CreatedKeyBody;
    scan.secrets(accessKey);
    await emulator.controls!.injectFault({ kind: "503" });
    const urn = "urn:pulumi:dev::faults::pulumi-nodejs:dynamic/broker:AccessKey::victim";
    const error = await host
      .read(urn, accessKeyId, { __provider: provider, accessKey, name: "victim", type: "SERVICE" })
      .catch((e: unknown) => e);
    await emulator.controls!.injectFault({ kind: "reset" });
    const update = await host
      .update(
        urn,
        accessKeyId,
        {
          __provider: provider,
          accessKey,
          name: "victim",
          type: "SERVICE",
          permissions: { send: ["a/b"], receive: [], resources: {} },
          createdAt: "2026-01-01T00:00:00Z",
        },
        {
          __provider: provider,
          name: "victim",
          type: "SERVICE",
          permissions: { send: ["a/c"], receive: [], resources: {} },
        },
      )
      .catch((e: unknown) => e);
    await emulator.controls!.clearFaults();
    for (const [label, failure] of [
      ["read", error],
      ["update", update],
    ] as const) {
      expect(failure, label).toBeInstanceOf(Error);
      expect((failure as Error).message, label).toContain("/access-key/{accessKey}/permissions");
      scan.text(`provider host ${label} error`, errorText(failure), "error");
    }
    scan.text("provider host stderr", host.stderr.join(""), "stderr");
    scan.text("provider host engine log", host.engineLog.map((m) => m.message).join("\n"), "stderr");
  }, 60_000);
});

describe("the secret scan", () => {
  it("finds no access key, private key or admin key in state, backups, CLI output, errors or stderr", async () => {
    // Runs last in this file: it scans what the tests above produced (backends are added as they close).
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    expect(scan.size).toBeGreaterThan(10);
    expect(scan.unread([...CLI_TEST_SOURCES, "error"]), "sources the scan read nothing from").toEqual([]);
    expect(scan.leaks()).toEqual([]);
  });
});
