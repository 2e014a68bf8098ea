/**
 * The crash model: a provider stopped at every step of a create, for each resource type that makes
 * an object and through both doors' adapters, then the next `up`'s path in a new process; the broker
 * must end with exactly one object per resource and no orphan.
 *
 * In-process and clock-free: "stopping the provider" is a step that never returns (the process's
 * work ends there; its memory, claims included, is never used again), and the next `up` is a new
 * client (a new process) driving the same door. The engine is modelled by what it records: a
 * resource's id once its create returned, nothing else. Its order is the harder one: the new
 * process creates the interrupted resource before it diffs the look-alike key the stack already
 * holds (the engine runs independent steps in any order).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  BrokerClient,
  type CreateAccessKeyInput,
  type CreatedAccessKey,
  type CreateWorkspaceInput,
} from "../../src/client";
import type { AccessKeyRecord } from "../../src/client/types";
import { accessKeyOperations } from "../../src/core/access-key";
import { DYNAMIC_URN_INPUT } from "../../src/core/declarations";
import { IntentStore, type Intent } from "../../src/core/intents";
import { workspaceOperations } from "../../src/core/workspace";
import * as dynamicAccessKey from "../../src/dynamic/impl/access-key";
import * as dynamicWorkspace from "../../src/dynamic/impl/workspace";
import { fromCore, type PropertyMap } from "../../src/native/codec";
import type { ProviderConfiguration } from "../../src/native/config";
import type { OperationContext, ResourceAdapter } from "../../src/native/resource-adapter";
import { coreAdapter } from "../../src/native/resources/core-adapter";
import { STACK_SETTING_NAMES } from "../../src/settings/connection";
import { useCoreEmulator } from "./support";

/** The client of the current process: the dynamic door's configured client is this one. */
let current: BrokerClient | undefined;
vi.mock("../../src/dynamic/impl/configured-client", () => ({
  configure: () => Promise.resolve(),
  brokerClient: () => {
    if (current === undefined) throw new Error("no process is running");
    return current;
  },
  configuredBaseUrl: () => current?.baseUrl,
  // The crash model's provider authenticates with the emulator's admin key, which no create touches.
  authenticatesWith: () => false,
}));

const core = useCoreEmulator();

/** The steps of a create at which the provider stops. */
const STEPS = [
  "before the request",
  "after it is sent",
  "after the answer",
  "after the intent names the id",
  "after the intent is removed",
  "before the engine records the result",
] as const;
type Step = (typeof STEPS)[number];

/** Never returns: the provider process stopped here. */
function stopped(process: Process): Promise<never> {
  process.stop();
  return new Promise<never>(() => undefined);
}

/** One provider process: its client stops at `step` once armed (the create under test). */
interface Process {
  readonly client: BrokerClient;
  readonly step: Step | undefined;
  armed: boolean;
  readonly stop: () => void;
  readonly hasStopped: Promise<void>;
}

function startProcess(step?: Step): Process {
  let stop = (): void => undefined;
  const hasStopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const { emulator } = core();
  const process: Process = {
    step,
    armed: false,
    stop: () => {
      stop();
    },
    hasStopped,
    client: undefined as unknown as BrokerClient,
  };
  const at = (s: Step): boolean => process.armed && process.step === s;
  let answered = false;
  class Stopping extends BrokerClient {
    override async createAccessKey(input: CreateAccessKeyInput): Promise<CreatedAccessKey> {
      if (at("before the request")) return stopped(process);
      const created = await super.createAccessKey(input);
      if (at("after it is sent")) return stopped(process);
      answered = process.armed;
      return created;
    }
    override async createWorkspace(input: CreateWorkspaceInput): Promise<void> {
      if (at("before the request")) return stopped(process);
      await super.createWorkspace(input);
      if (at("after it is sent")) return stopped(process);
      answered = process.armed;
    }
    override async getAccessKeyPermissions(accessKey: string): Promise<AccessKeyRecord> {
      if (answered && at("after the answer")) return stopped(process);
      return super.getAccessKeyPermissions(accessKey);
    }
  }
  (process as { client: BrokerClient }).client = new Stopping(
    { baseUrl: emulator.url, apiKey: emulator.adminKey, maxRetries: 2 },
    { baseDelayMs: 1, maxDelayMs: 5 },
  );
  processes.push(process);
  current = process.client;
  return process;
}

const processes: Process[] = [];
const homes: string[] = [];
/** Puts the intent store's own `write` back, after {@link stopAtRecords}. */
let restoreWrite: (() => void) | undefined;
const savedHome = process.env["PULUMI_HOME"];

beforeEach(() => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "crash-model-"));
  homes.push(home);
  process.env["PULUMI_HOME"] = home;
});

afterEach(async () => {
  restoreWrite?.();
  restoreWrite = undefined;
  current = undefined;
  await Promise.all(processes.splice(0).map((p) => p.client.close().catch(() => undefined)));
  if (savedHome === undefined) delete process.env["PULUMI_HOME"];
  else process.env["PULUMI_HOME"] = savedHome;
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

/**
 * The record steps: the rewrite naming the id ("after the answer" for a workspace, whose answer is
 * the list that finds it) and the removal that settles it. Stops the current process there.
 */
function stopAtRecords(process: Process): void {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its store below
  const write = IntentStore.prototype.write;
  const spy = vi.spyOn(IntentStore.prototype, "write").mockImplementation(async function (
    this: IntentStore,
    intent: Intent,
    durable?: boolean,
  ) {
    const naming = intent.createdId !== undefined;
    if (naming && process.armed && process.step === "after the answer") return stopped(process);
    await write.call(this, intent, durable);
    if (naming && process.armed && process.step === "after the intent names the id") return stopped(process);
  });
  restoreWrite = () => {
    spy.mockRestore();
  };
}

/** A resource of the model stack. */
interface Resource {
  readonly urn: string;
  readonly inputs: Record<string, unknown>;
}

/** What the engine recorded: a resource's id once its create returned. */
type EngineState = Map<string, string>;

/** A door, as the engine drives it: a create (check, then create) and a diff. */
interface Door {
  readonly name: string;
  create(resource: Resource): Promise<string>;
  diff(resource: Resource, id: string): Promise<void>;
}

function nativeDoor(kind: "AccessKey" | "Workspace"): Door {
  const adapter: ResourceAdapter =
    kind === "AccessKey"
      ? coreAdapter("broker:index:AccessKey", accessKeyOperations)
      : coreAdapter("broker:index:Workspace", workspaceOperations);
  const context = (urn: string): OperationContext => ({
    configuration: {
      client: () => current as BrokerClient,
      baseUrl: () => current?.baseUrl,
      settingNames: STACK_SETTING_NAMES,
    } as unknown as ProviderConfiguration,
    log: { warn: () => Promise.resolve() } as unknown as OperationContext["log"],
    urn,
  });
  const checked = async (resource: Resource): Promise<PropertyMap> => {
    const news = fromCore(resource.inputs);
    const result = await adapter.check({ olds: {}, news }, context(resource.urn));
    expect(result.failures).toEqual([]);
    return result.inputs;
  };
  return {
    name: "native",
    async create(resource) {
      const properties = await checked(resource);
      return (await adapter.create({ properties, preview: false }, context(resource.urn))).id;
    },
    async diff(resource, id) {
      const news = await checked(resource);
      await adapter.diff({ id, olds: news, oldInputs: news, news, ignoreChanges: [] }, context(resource.urn));
    },
  };
}

function dynamicDoor(kind: "AccessKey" | "Workspace"): Door {
  const ops = kind === "AccessKey" ? dynamicAccessKey : dynamicWorkspace;
  const checked = async (resource: Resource): Promise<Record<string, unknown>> => {
    const news = { ...resource.inputs, [DYNAMIC_URN_INPUT]: resource.urn };
    const result = await ops.check({}, news);
    expect(result.failures ?? []).toEqual([]);
    return result.inputs as Record<string, unknown>;
  };
  return {
    name: "dynamic",
    async create(resource) {
      return (await ops.create(await checked(resource))).id;
    },
    async diff(resource, id) {
      const news = await checked(resource);
      await ops.diff(id, news, news);
    },
  };
}

/**
 * A run of the engine over `resources`: a create for each it holds no id of, then a diff of each it
 * held when the run began (the engine diffs what its state holds, never what the run created).
 */
async function up(door: Door, resources: readonly Resource[], state: EngineState): Promise<void> {
  const held = new Map(state);
  for (const resource of resources)
    if (!held.has(resource.urn)) state.set(resource.urn, await door.create(resource));
  for (const resource of resources) {
    const id = held.get(resource.urn);
    if (id !== undefined) await door.diff(resource, id);
  }
}

const urnOf = (kind: string, name: string): string => `urn:pulumi:dev::model::broker:index:${kind}::${name}`;

/** The stack of each kind: the resource whose create is stopped, and a look-alike the stack holds. */
function stackOf(kind: "AccessKey" | "Workspace"): { subject: Resource; siblings: Resource[] } {
  if (kind === "Workspace") {
    // Workspaces of one name and parent are refused as existing: no look-alike can be declared.
    return { subject: { urn: urnOf(kind, "orders"), inputs: { name: "orders" } }, siblings: [] };
  }
  const inputs = { name: "twin", type: "SERVICE", permissions: { send: ["orders/*"] } };
  return {
    subject: { urn: urnOf(kind, "twin-b"), inputs },
    siblings: [{ urn: urnOf(kind, "twin-a"), inputs }],
  };
}

/** The ids on the broker of objects named `name` (keys or workspaces). */
async function idsNamed(kind: "AccessKey" | "Workspace", name: string): Promise<number[]> {
  const { emulator } = core();
  const client = new BrokerClient({ baseUrl: emulator.url, apiKey: emulator.adminKey });
  try {
    const ids: number[] = [];
    const list = kind === "AccessKey" ? client.accessKeys() : client.workspaces({ name });
    for await (const record of list) if (record.name === name) ids.push(record.id);
    return ids.sort((a, b) => a - b);
  } finally {
    await client.close();
  }
}

/**
 * One case: the stack's look-alikes created and recorded, the subject's create stopped at `step` in
 * the same process, then the next `up` in a new process; then one object per resource, none orphaned.
 */
async function crashCase(
  kind: "AccessKey" | "Workspace",
  makeDoor: typeof nativeDoor,
  step: Step,
): Promise<void> {
  const door = makeDoor(kind);
  const { subject, siblings } = stackOf(kind);
  const state: EngineState = new Map();
  const first = startProcess(step);
  stopAtRecords(first);
  await up(door, siblings, state);
  first.armed = true;
  if (step === "before the engine records the result") {
    // The create returns; the engine never hears it.
    await door.create(subject);
    first.stop();
  } else if (step === "after the intent is removed") {
    // The engine recorded the result; its next operation settled the intent; then the process stopped.
    state.set(subject.urn, await door.create(subject));
    await door.diff(subject, state.get(subject.urn) as string);
    first.stop();
  } else {
    void door.create(subject).catch(() => undefined);
  }
  await first.hasStopped;
  first.armed = false;
  restoreWrite?.();
  restoreWrite = undefined;

  // The next `pulumi up`: a new process, the engine's state as it recorded it.
  startProcess();
  await up(door, [...siblings, subject], state);

  const name = subject.inputs["name"] as string;
  const owned = [...state.values()].map(Number).sort((a, b) => a - b);
  expect(new Set(owned).size, "no two resources own one object").toBe(owned.length);
  expect(await idsNamed(kind, name), "exactly one object per resource, none orphaned").toEqual(owned);
}

describe("crash model: the provider stopped at every step of a create, then the next up", () => {
  for (const kind of ["AccessKey", "Workspace"] as const) {
    for (const makeDoor of [nativeDoor, dynamicDoor]) {
      describe(`${kind}, ${makeDoor(kind).name} door`, () => {
        for (const step of STEPS) {
          it(`stopped ${step}: one object per resource, no orphan`, async () => {
            await crashCase(kind, makeDoor, step);
          });
        }
      });
    }
  }
});
