import * as fs from "node:fs";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { cliCase, coreCase } from "../../harness/engine-matrix.mts";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import * as broker from "../../harness/broker-native.mts";
import { CliError, type PulumiProject, type StackConfig } from "../../harness/pulumi-project.mts";
import { waitFor } from "../reliability/support/processes";
import { emulatorConfig, ordersSpec, specConfig, tearDown, testProject } from "../support/projects";
import { expectSecretHolding, exportedKeyOutputs } from "../support/state";

// End-to-end through the real Pulumi CLI: a JavaScript program using the native SDK
// (`pulumi-broker-config/native`), run by the `broker` plugin that `broker-config plugin install`
// put into the project's Pulumi home. Offline, against emulators. The steps of each describe share
// one stack and run in order; CLI runs are kept few (each costs seconds): a step reads the outputs
// of the run before it rather than `stack output` again. The engine matrix runs this file in every
// leg; what each leg runs of it, and why, is in docs/offline-engine.md ("What each leg runs of a file").

interface EntryOptions {
  provider?: string;
  replaceOnChanges?: string[];
  ignoreChanges?: string[];
}
interface KeySpec extends EntryOptions {
  name: string;
  resource?: string;
  type: "SERVICE" | "ACCOUNT";
  permissions?: { send?: string[]; receive?: string[] };
  onDelete?: "revoke" | "retain";
}
interface WorkspaceSpec extends EntryOptions {
  name: string;
  resource?: string;
  parent?: string;
  parentId?: number;
}
interface Spec {
  workspaces?: WorkspaceSpec[];
  keys?: KeySpec[];
  pairs?: { key: string; rotationTriggers?: Record<string, string> }[];
}

/** The README's quickstart tree: the orders tree and a second account key. */
const orders = ordersSpec();
const quickstart: Spec = {
  ...orders,
  keys: [
    ...(orders.keys ?? []),
    { name: "audit-reader", type: "ACCOUNT", permissions: { receive: ["audit/*"] } },
  ],
};

const programDir = path.join(__dirname, "..", "programs", "native");
let emulator: EmulatorHandle;
let project: PulumiProject;
const secrets = new Set<string>();

/** A step of `pulumi preview --json`. */
interface PreviewStep {
  op: string;
  urn: string;
  diffReasons?: string[];
  detailedDiff?: Record<string, { kind: string }>;
}

function stepOf(steps: PreviewStep[], type: string, name: string): PreviewStep | undefined {
  return steps.find((s) => s.urn.endsWith(`::${type}::${name}`));
}

/**
 * The plugin's word that a run was cancelled. The engine also sends `Cancel` to every plugin it shuts
 * down after a run that succeeded; only a cancellation that cuts something short may say this.
 */
const CANCELLED = /the run was cancelled; requests not yet sent are dropped/gu;

/** How many times `output` says the run was cancelled. */
function cancellationNotices(output: string): number {
  return output.match(CANCELLED)?.length ?? 0;
}

/**
 * How many times a run's output says it was cancelled: in the progress lines, and in the
 * `Diagnostics:` section the CLI prints after them, which repeats each message once.
 */
function cancellationNoticesByPart(output: string): { progress: number; diagnostics: number } {
  const at = output.indexOf("\nDiagnostics:\n");
  if (at < 0) return { progress: cancellationNotices(output), diagnostics: 0 };
  return {
    progress: cancellationNotices(output.slice(0, at)),
    diagnostics: cancellationNotices(output.slice(at)),
  };
}

/** Checks that nothing the project produced (state, history, CLI output) holds a secret in plain text. */
function expectNoSecretsIn(...more: string[]): void {
  const text = [project.producedText(), ...more].join("\n");
  for (const secret of secrets) expect(text).not.toContain(secret);
}

beforeAll(async () => {
  emulator = await startEmulator({ controls: true });
  secrets.add(emulator.adminKey);
  project = await testProject("broker-native", programDir);
  // The plugin goes into the project's own Pulumi home, with the command users run.
  broker.installBrokerPlugin(project);
});

afterAll(() => tearDown({ emulators: [emulator], project }));

// A step runs several CLI commands on a machine whose cores are shared: the bound is against a hang.
describe("a stack of native resources through the Pulumi CLI", { timeout: 240_000 }, () => {
  let stack: Stack;
  /** The outputs of the last `up`: what the stack holds until the next one. */
  let last: Awaited<ReturnType<Stack["outputs"]>>;

  it("a. previews a new stack with no credentials, listing the creates, without a request; the plugin answers Handshake whenever the @pulumi/pulumi installed beside it ships its stubs", async () => {
    stack = await project.stack("dev", specConfig(quickstart));
    await emulator.controls!.clearRequests();
    // The engine logs the handshake's outcome at verbosity 7 (no credentials in this stack yet: the
    // debug log may show what the program registers, and nothing here is secret).
    const { stdout, stderr } = await project.cli(["preview", "--stack", "dev", "--logtostderr", "-v=7"]);
    expect(stdout).toMatch(/\+ 7 to create/u); // the stack, 2 workspaces, 3 keys and a pair
    expect(stdout).not.toMatch(/to (update|replace|delete)/u); // creates alone
    expect(await emulator.controls!.requests()).toEqual([]);
    const stubs = fs.readFileSync(
      path.join(
        inject("packageFixture"),
        "node_modules",
        "@pulumi",
        "pulumi",
        "proto",
        "provider_grpc_pb.js",
      ),
      "utf8",
    );
    // @pulumi/pulumi 3.259 and 3.270 carry the RPC; 3.139 does not, and the engine then uses Configure.
    if (stubs.includes("/pulumirpc.ResourceProvider/Handshake")) {
      expect(stderr).toMatch(/Handshake: success \[[^\]]*pulumi-resource-broker\]/u);
    } else {
      expect(stderr).toMatch(/Handshake: not supported by '[^']*pulumi-resource-broker'/u);
    }
  });

  it("b. up creates the quickstart tree; key values and private keys are secret outputs and nowhere in plain text", async () => {
    await stack.setAllConfig(emulatorConfig(emulator));
    const up = await stack.up();
    expect(up.summary.resourceChanges).toMatchObject({ create: 7 });
    expect(cancellationNotices(up.stdout + up.stderr), "a successful up says nothing of cancelling").toBe(0);
    const out = up.outputs;
    expect(out["workspacePaths"]?.value).toEqual({ platform: "/platform", orders: "/platform/orders" });
    const ids = out["keyIds"]?.value as Record<string, number>;
    const keys = await broker.allKeys(emulator);
    expect(broker.keyById(keys, ids["orders-svc"]!)).toMatchObject({
      name: "orders-svc",
      type: "SERVICE",
      permissions: { send: ["orders/created"], receive: ["payments/*"], resources: {} },
    });
    expect(broker.keyById(keys, ids["ops-admin"]!)).toMatchObject({ name: "ops-admin", type: "ACCOUNT" });
    const orders = (await broker.allWorkspaces(emulator)).find((w) => w["name"] === "orders");
    expect(orders?.["id"]).toBe((out["workspaceIds"]?.value as Record<string, number>)["orders"]);

    expect(out["keyValues"]?.secret).toBe(true);
    expect(out["privateKeys"]?.secret).toBe(true);
    const keyValues = out["keyValues"]?.value as Record<string, string>;
    const privateKeys = out["privateKeys"]?.value as Record<string, string>;
    expect(keyValues["orders-svc"]).toBe(broker.keyById(keys, ids["orders-svc"]!)?.["key"]);
    expect(privateKeys["orders-svc"]).toMatch(/\S{20}/u);
    for (const value of [...Object.values(keyValues), ...Object.values(privateKeys)]) secrets.add(value);
    expectNoSecretsIn(up.stdout, up.stderr);
    last = out;
  });

  it("c. a permissions change previews as an update of that key only, naming the changed path; the pair shows no change", async () => {
    const spec = structuredClone(quickstart);
    spec.keys![0]!.permissions = { send: ["orders/created", "orders/cancelled"], receive: ["payments/*"] };
    await stack.setAllConfig(specConfig(spec));
    const preview = await project.run(["preview", "--json", "--stack", "dev"]);
    const { steps, changeSummary } = JSON.parse(preview.stdout) as {
      steps: PreviewStep[];
      changeSummary: Record<string, number>;
    };
    expect(changeSummary).toEqual({ same: 6, update: 1 });
    const updated = steps.filter((s) => s.op !== "same");
    expect(updated.map((s) => s.urn.split("::").pop())).toEqual(["orders-svc"]);
    const key = stepOf(steps, "broker:index:AccessKey", "orders-svc")!;
    expect(key.op).toBe("update");
    expect(key.diffReasons).toEqual(["permissions"]);
    expect(Object.keys(key.detailedDiff ?? {})).toEqual([expect.stringMatching(/^permissions\.send/u)]);
    // The pair built from the key's value: the key's outputs stay known in preview, so no change.
    expect(stepOf(steps, "broker:index:ServiceKeyPair", "orders-svc-pair")?.op ?? "same").toBe("same");

    const up = await stack.up();
    expect(up.summary.resourceChanges).toEqual({ same: 6, update: 1 });
    const ids = up.outputs["keyIds"]?.value as Record<string, number>;
    expect(broker.keyById(await broker.allKeys(emulator), ids["orders-svc"]!)?.["permissions"]).toEqual({
      send: ["orders/cancelled", "orders/created"],
      receive: ["payments/*"],
      resources: {},
    });
    last = up.outputs;
    Object.assign(quickstart, spec);
  });

  it("f. replaceOnChanges: [permissions] replaces the key on a permissions change (the old one revoked)", async () => {
    const spec = structuredClone(quickstart);
    spec.keys![1] = {
      ...spec.keys![1]!,
      permissions: { send: ["audit/replay"], receive: ["audit/*"] },
      replaceOnChanges: ["permissions"],
    };
    await stack.setAllConfig(specConfig(spec));
    const before = last["keyIds"]?.value as Record<string, number>;
    const up = await stack.up();
    expect(up.summary.resourceChanges).toEqual({ same: 6, replace: 1 });
    const out = up.outputs;
    const after = out["keyIds"]?.value as Record<string, number>;
    expect(after["ops-admin"]).not.toBe(before["ops-admin"]);
    const keys = await broker.allKeys(emulator);
    expect(broker.keyById(keys, before["ops-admin"]!)?.["permissions"]).toEqual(broker.NO_PERMISSIONS);
    expect(broker.keyById(keys, after["ops-admin"]!)?.["permissions"]).toEqual({
      send: ["audit/replay"],
      receive: ["audit/*"],
      resources: {},
    });
    secrets.add((out["keyValues"]?.value as Record<string, string>)["ops-admin"]!);
    last = out;
    Object.assign(quickstart, spec);
  });

  it("f/g. refresh finds drift; up restores it, except where ignoreChanges: [permissions] keeps it", async () => {
    const spec = structuredClone(quickstart);
    spec.keys![2] = { ...spec.keys![2]!, ignoreChanges: ["permissions"] };
    await stack.setAllConfig(specConfig(spec));
    const ids = last["keyIds"]?.value as Record<string, number>;
    const drift = { send: ["everything/*"], receive: [] };
    // orders-svc, not ops-admin: ops-admin now has replaceOnChanges, so restoring it would replace it.
    await emulator.controls!.setKeyPermissions(ids["orders-svc"]!, drift);
    await emulator.controls!.setKeyPermissions(ids["audit-reader"]!, drift);

    const refresh = await stack.refresh();
    expect(refresh.summary.resourceChanges).toEqual({ same: 5, update: 2 });
    expect(
      cancellationNotices(refresh.stdout + refresh.stderr),
      "a successful refresh says nothing of cancelling",
    ).toBe(0);
    const up = await stack.up();
    expect(up.summary.resourceChanges).toEqual({ same: 6, update: 1 });
    const keys = await broker.allKeys(emulator);
    expect(broker.keyById(keys, ids["orders-svc"]!)?.["permissions"]).toEqual({
      send: ["orders/cancelled", "orders/created"],
      receive: ["payments/*"],
      resources: {},
    });
    expect(broker.keyById(keys, ids["audit-reader"]!)?.["permissions"]).toEqual({ ...drift, resources: {} });
    last = up.outputs;
    Object.assign(quickstart, spec);
  });

  // The endpoint guard is the core's; the same refusal through each leg's engine is the explicit
  // providers' case below, which every leg runs.
  it(
    "e. pointing the default provider's broker:baseUrl at another server fails the preview with the endpoint message",
    coreCase(inject("engineLayers")),
    async () => {
      const elsewhere = await startEmulator();
      try {
        await stack.setAllConfig(emulatorConfig(elsewhere));
        const error = await stack.preview().catch((e: unknown) => e);
        expect(String(error)).toMatch(/lives at .*now points to/su);
        expect(String(error)).toContain(emulator.url);
        expect(String(error)).not.toContain(elsewhere.adminKey);
      } finally {
        await stack.setAllConfig(emulatorConfig(emulator));
        await elsewhere.close();
      }
    },
  );

  it("d. imports a workspace and an access key into the stack; the program declaring them too previews with no changes", async () => {
    await broker.brokerApi(emulator, "POST", "/workspace", { name: "legacy" });
    const workspace = (await broker.allWorkspaces(emulator)).find((w) => w["name"] === "legacy")!;
    const key = await broker.createKeyThroughApi(emulator, {
      name: "legacy-reader",
      type: "ACCOUNT",
      permissions: { send: [], receive: ["legacy/*"] },
    });
    secrets.add(String(key["key"]));

    for (const [type, name, id] of [
      ["broker:index:Workspace", "legacy", String(workspace["id"])],
      ["broker:index:AccessKey", "legacy-reader", String(key["id"])],
    ] as const) {
      await project.run([
        "import",
        type,
        name,
        id,
        "--generate-code=false",
        "--protect=false",
        "--yes",
        "--stack",
        "dev",
      ]);
    }
    await stack.setAllConfig(
      specConfig({
        ...quickstart,
        workspaces: [...(quickstart.workspaces ?? []), { name: "legacy" }],
        keys: [
          ...(quickstart.keys ?? []),
          { name: "legacy-reader", type: "ACCOUNT", permissions: { receive: ["legacy/*"] } },
        ],
      }),
    );
    await project.run(["preview", "--expect-no-changes", "--stack", "dev"]);

    // The imported key's value is in the state as a secret; the backend's files hold only its ciphertext.
    expectSecretHolding((await exportedKeyOutputs(stack, key["id"]))?.["accessKey"], key["key"]);
    expectNoSecretsIn();
  });

  it("g. destroy revokes the keys, warns about what the API cannot delete, and leaves no secret behind", async () => {
    const ids = last["keyIds"]?.value as Record<string, number>;
    const destroy = await stack.destroy();
    expect(destroy.stdout).toMatch(/was revoked/u);
    expect(
      cancellationNotices(destroy.stdout + destroy.stderr),
      "a successful destroy says nothing of cancelling",
    ).toBe(0);
    expect(destroy.stdout).toMatch(/no delete endpoint/u);
    const keys = await broker.allKeys(emulator);
    for (const id of Object.values(ids))
      expect(broker.keyById(keys, id)?.["permissions"]).toEqual(broker.NO_PERMISSIONS);
    expectNoSecretsIn(destroy.stdout, destroy.stderr);
  });
});

describe("Ctrl-C while the run waits on the broker's rate limit", () => {
  // The CLI's Cancel: run where the leg brings a CLI (harness/engine-matrix.mts).
  it(
    "stops the run, and the plugin says once that the run was cancelled",
    { ...cliCase(inject("engineLayers")), timeout: 120_000 },
    async () => {
      // An API of its own, so the refused create and the stack's keys touch no other step's objects.
      const limited = await startEmulator({ controls: true });
      secrets.add(limited.adminKey);
      try {
        const spec: Spec = { keys: [{ name: "held", type: "SERVICE", permissions: { send: ["orders/*"] } }] };
        await project.stack("ctrl-c", { ...specConfig(spec), ...emulatorConfig(limited) });
        // The broker refuses the create for a minute: the plugin waits out the Retry-After.
        await limited.controls!.injectFault({
          kind: "429",
          retryAfter: 60,
          routes: ["POST /access-key"],
          count: 1,
        });
        let started: (pid: number) => void = () => undefined;
        const pid = new Promise<number>((resolve) => (started = resolve));
        const up: Promise<{ stdout: string; stderr: string }> = project
          .run(["up", "--yes", "--skip-preview", "--stack", "ctrl-c"], {}, started, { ownProcessGroup: true })
          .catch((error: unknown) => {
            if (error instanceof CliError) return error;
            throw error;
          });
        await waitFor(
          "the broker to answer the create 429",
          async () => ((await limited.controls!.requests()).some((r) => r.status === 429) ? true : undefined),
          90_000,
        );
        process.kill(await pid, "SIGINT");
        const { stdout, stderr } = await up;
        const output = stdout + stderr;
        // One notice, which the CLI shows as it comes and again among the diagnostics.
        expect(cancellationNoticesByPart(output), output).toEqual({ progress: 1, diagnostics: 1 });
        // Nothing was created: the create that waited was dropped, not sent.
        expect((await broker.allKeys(limited)).filter((k) => k["name"] === "held")).toEqual([]);
        expectNoSecretsIn(output);
      } finally {
        await limited.close();
      }
    },
  );
});

// An up and a preview on a machine whose cores are shared: the bound is against a hang.
describe("two environments in one program, through explicit providers", { timeout: 240_000 }, () => {
  let second: EmulatorHandle;
  let third: EmulatorHandle;

  beforeAll(async () => {
    [second, third] = await Promise.all([startEmulator(), startEmulator()]);
    secrets.add(second.adminKey).add(third.adminKey);
  });
  afterAll(async () => {
    await Promise.all([second.close(), third.close()]);
  });

  function providerConfig(dev: EmulatorHandle, prod: EmulatorHandle): StackConfig {
    return {
      providerUrls: { value: JSON.stringify({ dev: dev.url, prod: prod.url }) },
      providerKeys: { value: JSON.stringify({ dev: dev.adminKey, prod: prod.adminKey }), secret: true },
    };
  }

  it("e. each resource lands on its provider's server; pointing a provider elsewhere fails the preview", async () => {
    const spec: Spec = {
      workspaces: [
        { name: "shop", resource: "shop-dev", provider: "dev" },
        { name: "shop", resource: "shop-prod", provider: "prod" },
      ],
      keys: [
        { name: "shop-svc", resource: "shop-svc-dev", type: "SERVICE", provider: "dev" },
        { name: "shop-svc", resource: "shop-svc-prod", type: "SERVICE", provider: "prod" },
      ],
    };
    const stack = await project.stack("two-envs", {
      ...specConfig(spec),
      ...providerConfig(emulator, second),
    });
    const up = await stack.up();
    expect(up.summary.resourceChanges).toMatchObject({ create: 7 }); // stack, 2 providers, 4 resources
    const out = up.outputs;
    const keyIds = out["keyIds"]?.value as Record<string, number>;
    const keyValues = out["keyValues"]?.value as Record<string, string>;
    for (const value of Object.values(keyValues)) secrets.add(value);
    expect(broker.keyById(await broker.allKeys(emulator), keyIds["shop-svc-dev"]!)?.["key"]).toBe(
      keyValues["shop-svc-dev"],
    );
    expect(broker.keyById(await broker.allKeys(second), keyIds["shop-svc-prod"]!)?.["key"]).toBe(
      keyValues["shop-svc-prod"],
    );
    expect((await broker.allWorkspaces(second)).map((w) => w["name"])).toEqual(["shop"]);

    await stack.setAllConfig(providerConfig(emulator, third));
    const error = await stack.preview().catch((e: unknown) => e);
    expect(String(error)).toMatch(/lives at .*now points to/su);
    expect(String(error)).toContain(second.url);
  });
});

describe("the plugin named in Pulumi.yaml `packages:` instead of installed", () => {
  // The CLI reading Pulumi.yaml: run where the leg brings a CLI (harness/engine-matrix.mts).
  it(
    "a project whose packages: points at node_modules/.bin runs the package's plugin with an empty plugin cache",
    { ...cliCase(inject("engineLayers")), timeout: 240_000 },
    async () => {
      const local = await testProject("broker-packages", programDir);
      try {
        fs.writeFileSync(
          path.join(local.dir, "Pulumi.yaml"),
          "name: broker-packages\nruntime: nodejs\nmain: index.js\npackages:\n  broker: ./node_modules/.bin\n",
        );
        const stack = await local.stack("dev", specConfig(quickstart));
        const preview = await stack.preview();
        expect(preview.changeSummary).toEqual({ create: 7 });
        expect(fs.readdirSync(local.homeDir)).not.toContain("plugins");
      } finally {
        local.remove();
      }
    },
  );
});
