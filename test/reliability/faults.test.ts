import { execFileSync } from "node:child_process";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, describe, expect, inject, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { ProviderHost } from "../../harness/provider-host.mts";
import { PulumiProject } from "../../harness/pulumi-project.mts";
import { type StackView, expectDeclaredState, expectRevoked, viewOf } from "./support/declared-state";
import { latestDeployment } from "../support/state";
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

/** One leg of the cycle: a rate of failing requests, with an emulator, a project and a stack of its own. */
interface Leg {
  percent: number;
  seed: number;
  emulator: EmulatorHandle;
  project: PulumiProject;
  stack: Stack;
  /** What the stack's outputs say after the last `up` (a refresh leaves a stack's outputs as they are). */
  view: StackView;
  sent: number;
  struck: number;
  createsStruck: number;
}

/**
 * The two legs, 10% and 30% of requests failing, run side by side in each step: most of a step's
 * time is spent waiting out Retry-After and retry delays, which the legs can do at once.
 */
const legs: Leg[] = [
  { percent: 10, seed: 1 },
  { percent: 30, seed: 2 },
].map((leg) => ({ ...leg }) as Leg);

/** Runs `step` for every leg at once; fails after all have ended, with each failure named. */
async function eachLeg(step: (leg: Leg) => Promise<void>): Promise<void> {
  const results = await Promise.allSettled(legs.map(step));
  const failures = results.flatMap((result, i) =>
    result.status === "rejected" ? [`${legs[i]!.percent}%: ${errorText(result.reason)}`] : [],
  );
  if (failures.length > 0) throw new Error(failures.join("\n"));
}

/** Runs `step` of `leg` under its fault mix, then clears the faults (the assertions read the API without them). */
async function underFaults<T>(leg: Leg, step: number, run: () => Promise<T>): Promise<T> {
  const controls = leg.emulator.controls!;
  await controls.clearRequests();
  // Besides the mix: the first create of each kind loses its response after the broker made the
  // object, so every cycle exercises the recovery that must not create it twice.
  await controls.injectFault({ kind: "503", phase: "after", count: 1, routes: ["POST /access-key"] });
  await controls.injectFault({ kind: "reset", phase: "after", count: 1, routes: ["POST /workspace"] });
  await injectFaultMix(controls, leg.percent / 100, leg.seed * 10 + step);
  try {
    return await run();
  } catch (error) {
    scan.text(`${leg.percent}%: failed step ${step}`, errorText(error), "error");
    throw error;
  } finally {
    const log = await controls.requests();
    await controls.clearFaults();
    leg.sent += log.length;
    leg.struck += log.filter((request) => request.fault !== undefined).length;
    leg.createsStruck += log.filter(
      (r) => ["POST /access-key", "POST /workspace"].includes(r.route) && r.fault !== undefined,
    ).length;
  }
}

async function expectState(leg: Leg, spec: Spec): Promise<void> {
  scan.secrets(...Object.values(leg.view.keyValues), ...Object.values(leg.view.privateKeys));
  await expectDeclaredState(leg.emulator, spec, leg.view, (id) => leg.emulator.controls!.publicKeyOf(id));
}

/** `pulumi <command>` of the leg's stack as one CLI run (the Automation API adds a `stack history`). */
async function cli(leg: Leg, command: "refresh" | "destroy"): Promise<string> {
  const run = await leg.project.run([command, "--yes", "--skip-preview", "--stack", "dev"]);
  return run.stdout + run.stderr;
}

describe("with 10% and with 30% of requests failing", () => {
  it("up creates exactly the declared objects, without duplicates", async () => {
    await eachLeg(async (leg) => {
      leg.emulator = await startEmulator({ controls: true });
      scan.secrets(leg.emulator.adminKey);
      leg.project = await PulumiProject.create({
        name: `faults-${leg.percent}`,
        programDir,
        fixture: inject("packageFixture"),
        pulumiBin: inject("pulumiBin"),
        env: { BROKER_BASE_URL: "", BROKER_API_KEY: "" },
      });
      const { emulator, project } = leg;
      cleanups.push(
        () => emulator.close(),
        () => {
          scan.project(`${leg.percent}%`, project);
          project.remove();
        },
      );
      Object.assign(leg, { sent: 0, struck: 0, createsStruck: 0 });
      leg.stack = await project.stack("dev", { ...specConfig(initial), ...brokerConfig(emulator, 8) });
      const up = await underFaults(leg, 1, () => leg.stack.up());
      scan.text(`${leg.percent}%: up`, up.stdout + up.stderr, "cli output");
      expect(up.summary.resourceChanges, `${leg.percent}%`).toMatchObject({
        create: resourceCount(initial) + 1,
      });
      expect(
        leg.createsStruck,
        `${leg.percent}%: creates of both kinds failed, one of each after being processed`,
      ).toBeGreaterThanOrEqual(2);
      leg.view = viewOf(up.outputs);
      await expectState(leg, initial);
    });
  }, 300_000);

  it("refresh finds nothing changed, and the next preview shows no changes", async () => {
    await eachLeg(async (leg) => {
      // The CLI exits 0 only when the refresh succeeded.
      const refresh = await underFaults(leg, 2, () => cli(leg, "refresh"));
      scan.text(`${leg.percent}%: refresh`, refresh, "cli output");
      const preview = await leg.stack.preview();
      expect(preview.changeSummary, `${leg.percent}%`).toEqual({ same: resourceCount(initial) + 1 });
      await expectState(leg, initial);
    });
  }, 300_000);

  it("a change (permissions, a rotation, a new key) applies exactly", async () => {
    const next = changed(initial);
    await eachLeg(async (leg) => {
      await leg.stack.setAllConfig(specConfig(next));
      const up = await underFaults(leg, 3, () => leg.stack.up());
      scan.text(`${leg.percent}%: change`, up.stdout + up.stderr, "cli output");
      expect(up.summary.resourceChanges, `${leg.percent}%`).toMatchObject({ create: 1, update: 2 });
      leg.view = viewOf(up.outputs);
      await expectState(leg, next);
    });
  }, 300_000);

  it("destroy revokes every key and empties the stack", async () => {
    await eachLeg(async (leg) => {
      const destroy = await underFaults(leg, 4, () => cli(leg, "destroy"));
      scan.text(`${leg.percent}%: destroy`, destroy, "cli output");
      await expectRevoked(
        leg.emulator,
        changed(initial).keys.map((k) => k.name),
      );
      expect(latestDeployment(leg.project, "dev").resources ?? [], `${leg.percent}%`).toHaveLength(0);
      // The faults really struck, about the leg's rate of the requests its cycle sent (a few dozen: loose bounds).
      const rate = leg.percent / 100;
      expect(leg.struck, `${leg.percent}%`).toBeGreaterThan(0);
      expect(leg.struck / leg.sent, `${leg.percent}%`).toBeGreaterThan(rate / 4);
      expect(leg.struck / leg.sent, `${leg.percent}%`).toBeLessThan(rate * 3);
    });
  }, 300_000);
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
