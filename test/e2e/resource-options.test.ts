import * as path from "node:path";
import type { EngineEvent, Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import { NO_BROKER_ENV, PROGRAMS_DIR, tearDown, testProject } from "../support/projects";
import { listKeys, type KeyRecord } from "../reliability/support/broker-api";
import { brokerConfig, specConfig, type KeySpec, type Spec } from "../reliability/support/spec";

// The resource options users reach for, on AccessKey through the real CLI. One stack holds a key
// per option, so two `up`s and the destroys exercise them all: protect, retainOnDelete,
// ignoreChanges, deleteBeforeReplace (against a plain replacement) and replaceOnChanges.

const programDir = path.join(PROGRAMS_DIR, "broker");
const send = (...paths: string[]): KeySpec["permissions"] => ({ send: paths, receive: [] });

const keys = {
  protected: { name: "opt-protected", type: "ACCOUNT", permissions: send("a/b"), options: { protect: true } },
  retained: {
    name: "opt-retained",
    type: "ACCOUNT",
    permissions: send("a/b"),
    options: { retainOnDelete: true },
  },
  ignored: {
    name: "opt-ignored",
    type: "ACCOUNT",
    permissions: send("a/b"),
    options: { ignoreChanges: ["permissions"] },
  },
  dbr: {
    name: "opt-dbr",
    resource: "dbr",
    type: "ACCOUNT",
    permissions: send("a/b"),
    options: { deleteBeforeReplace: true },
  },
  plain: { name: "opt-plain", resource: "plain", type: "ACCOUNT", permissions: send("a/b") },
  roc: {
    name: "opt-roc",
    type: "ACCOUNT",
    permissions: send("a/b"),
    options: { replaceOnChanges: ["permissions"] },
  },
} satisfies Record<string, KeySpec>;

let emulator: EmulatorHandle;
let project: PulumiProject;
let stack: Stack;
/** The broker's key records after the first up, by name. */
let created: Map<string, KeyRecord>;

async function keysByName(): Promise<Map<string, KeyRecord[]>> {
  const byName = new Map<string, KeyRecord[]>();
  for (const key of await listKeys(emulator)) byName.set(key.name, [...(byName.get(key.name) ?? []), key]);
  return byName;
}

/** The single key named `name` on the broker. */
async function keyNamed(name: string): Promise<KeyRecord> {
  const found = (await keysByName()).get(name) ?? [];
  expect(found, `one key named ${name}`).toHaveLength(1);
  return found[0]!;
}

/** The completed steps of an update, in order, per resource name. */
function stepsOf(events: readonly EngineEvent[]): Map<string, string[]> {
  const steps = new Map<string, string[]>();
  for (const event of events) {
    const metadata = event.resOutputsEvent?.metadata;
    if (metadata === undefined) continue;
    const name = metadata.urn.split("::").at(-1)!;
    steps.set(name, [...(steps.get(name) ?? []), metadata.op]);
  }
  return steps;
}

beforeAll(async () => {
  emulator = await startEmulator({ controls: true });
  project = await testProject("options-e2e", programDir, NO_BROKER_ENV);
  const spec: Spec = { workspaces: [], keys: Object.values(keys), pairs: [] };
  stack = await project.stack("dev", { ...specConfig(spec), ...brokerConfig(emulator) });
  const up = await stack.up();
  expect(up.summary.resourceChanges).toMatchObject({ create: Object.keys(keys).length + 1 }); // and the stack
  created = new Map([...(await keysByName())].map(([name, records]) => [name, records[0]!]));
}, 120_000);

afterAll(() => tearDown({ emulators: [emulator], project }));

describe("resource options on AccessKey", () => {
  let steps: Map<string, string[]>;
  let output: string;

  it("one up changes every key: removes, ignores, replaces and updates as each option says", async () => {
    const next: Spec = {
      workspaces: [],
      keys: [
        keys.protected,
        // `retained` is gone from the program.
        { ...keys.ignored, permissions: send("c/d") },
        { ...keys.dbr, name: "opt-dbr-2" },
        { ...keys.plain, name: "opt-plain-2" },
        { ...keys.roc, permissions: send("c/d") },
      ],
      pairs: [],
    };
    await stack.setAllConfig(specConfig(next));
    const events: EngineEvent[] = [];
    const up = await stack.up({ onEvent: (event) => events.push(event) });
    output = up.stdout;
    steps = stepsOf(events);
  }, 120_000);

  it("retainOnDelete: a key removed from the program leaves the stack but keeps its permissions", async () => {
    expect(steps.get("opt-retained")).toEqual(["delete"]);
    expect((await keyNamed("opt-retained")).permissions).toMatchObject(send("a/b"));
    expect(output).not.toMatch(/opt-retained.*revoked/u);
  });

  it('ignoreChanges: ["permissions"]: a permissions change is neither previewed nor applied', async () => {
    expect(steps.get("opt-ignored")).toEqual(["same"]);
    expect((await keyNamed("opt-ignored")).permissions).toMatchObject(send("a/b"));
  });

  it("deleteBeforeReplace: the old key is revoked before the new one is created (a plain replacement creates first)", async () => {
    expect(steps.get("dbr")).toEqual(["delete-replaced", "replace", "create-replacement"]);
    expect(steps.get("plain")).toEqual(["create-replacement", "replace", "delete-replaced"]);
    for (const [old, renamed] of [
      ["opt-dbr", "opt-dbr-2"],
      ["opt-plain", "opt-plain-2"],
    ]) {
      expect((await keyNamed(old!)).permissions, `${old} revoked`).toMatchObject(send());
      expect((await keyNamed(renamed!)).permissions).toMatchObject(send("a/b"));
    }
  });

  it('replaceOnChanges: ["permissions"] is ignored by dynamic resources: the key is updated in place', async () => {
    // The dynamic provider host reports no changed keys, so the engine cannot match the option.
    expect(steps.get("opt-roc")).toEqual(["update"]);
    const key = await keyNamed("opt-roc");
    expect(key.id).toBe(created.get("opt-roc")!.id);
    expect(key.permissions).toMatchObject(send("c/d"));
  });

  it("protect: destroy fails on the protected key and leaves it as it is; after `pulumi state unprotect` it revokes", async () => {
    const failure = await stack.destroy().catch((error: unknown) => error);
    expect(String(failure)).toMatch(/opt-protected.*protected/su);
    expect((await keyNamed("opt-protected")).permissions).toMatchObject(send("a/b"));
    const deployment = (await stack.exportStack()).deployment as { resources: { urn: string }[] };
    const urn = deployment.resources.find((r) => r.urn.endsWith("::opt-protected"))?.urn;
    expect(urn, "the protected key is still in the stack").toBeDefined();
    await project.cli(["state", "unprotect", urn!, "--yes", "--stack", "dev"]);
    await stack.destroy();
    expect((await keyNamed("opt-protected")).permissions).toMatchObject(send());
  }, 120_000);
});
