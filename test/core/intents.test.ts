import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BrokerClient, type CreateAccessKeyInput, type CreatedAccessKey } from "../../src/client";
import type { CreateWorkspaceInput } from "../../src/client/types";
import {
  accessKeyOperations,
  checkAccessKey,
  createAccessKey,
  type AccessKeyInputs,
} from "../../src/core/access-key";
import { withInterruptedName } from "../../src/core/autoname";
import { IntentStore, settleIntent, type CreateOrigin } from "../../src/core/intents";
import { toPropertyBag } from "../../src/core/state";
import {
  checkWorkspace,
  createWorkspace,
  workspaceOperations,
  type WorkspaceInputs,
} from "../../src/core/workspace";
import { checkedInputs, rejectionOf, useCoreEmulator, type TestContext } from "./support";

const core = useCoreEmulator();

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

/** The origin a door passes for a resource of stack `dev`, with a store of the test's own. */
function originOf(name: string, type = "broker:index:AccessKey"): CreateOrigin & { intents: IntentStore } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "core-intents-"));
  roots.push(root);
  return { urn: `urn:pulumi:dev::orders::${type}::${name}`, intents: new IntentStore(root) };
}

/** Which intents the broker saw on the wire, when each create was sent. */
const seenAtSend: (string | undefined)[] = [];

/**
 * A provider process that dies while its create is on the wire: the `POST` reaches the broker (the
 * object exists), and the answer never comes back to anyone. What it holds at the moment of sending
 * is noted: the intent must already be on disk then.
 */
function dyingClient(origin: CreateOrigin & { intents: IntentStore }): typeof BrokerClient {
  return class extends BrokerClient {
    override async createAccessKey(input: CreateAccessKeyInput): Promise<CreatedAccessKey> {
      seenAtSend.push((await origin.intents.read(origin.urn))?.sentAt);
      await super.createAccessKey(input);
      return new Promise<never>(() => undefined);
    }
    override async createWorkspace(input: CreateWorkspaceInput): Promise<void> {
      seenAtSend.push((await origin.intents.read(origin.urn))?.sentAt);
      await super.createWorkspace(input);
      return new Promise<never>(() => undefined);
    }
  };
}

function keyInputs(
  ctx: TestContext,
  permissions = { send: ["orders/*"], receive: [] as string[] },
): AccessKeyInputs {
  return checkedInputs(checkAccessKey, accessKeyOperations.decodeInputs, ctx, {
    name: "publisher",
    type: "SERVICE",
    permissions,
  });
}

function workspaceInputs(ctx: TestContext, parentId = 0): WorkspaceInputs {
  return checkedInputs(checkWorkspace, workspaceOperations.decodeInputs, ctx, { name: "orders", parentId });
}

/** The keys named `name` on the broker. */
async function keysNamed(ctx: TestContext, name: string): Promise<{ id: number }[]> {
  const found: { id: number }[] = [];
  for await (const key of ctx.broker.accessKeys()) if (key.name === name) found.push(key);
  return found;
}

/**
 * The intent of a create that finished waits for the engine, naming what it made; the engine's next
 * operation on the resource (a diff naming the id) removes it.
 */
async function expectSettledBy(
  ctx: TestContext,
  origin: CreateOrigin & { intents: IntentStore },
  kind: "AccessKey" | "Workspace",
  id: string,
): Promise<void> {
  expect(await origin.intents.read(origin.urn), "kept until the engine holds the result").toMatchObject({
    createdId: Number(id),
  });
  await settleIntent(origin, () => ctx.client(), kind, id);
  expect(await origin.intents.read(origin.urn), "no intent left behind").toBeUndefined();
}

/** Starts a create in a process that then dies; resolves once the broker holds what it made. */
async function crashMidCreate(start: () => Promise<unknown>, holds: () => Promise<boolean>): Promise<void> {
  void start().catch(() => undefined);
  // The dying create's requests are answered by the broker one after another: wait on the broker's
  // own state, not on a clock.
  while (!(await holds())) await new Promise((resolve) => setImmediate(resolve));
}

describe("create intents (a provider that dies mid-create)", () => {
  it("a key: the next create takes over the one the dead create made, with a new pair and the declared permissions", async () => {
    const c = core();
    const { controls } = c;
    const origin = originOf("publisher");
    const dying = c.context({ clientClass: dyingClient(origin) });
    seenAtSend.length = 0;
    await crashMidCreate(
      () => createAccessKey(dying, keyInputs(dying), origin),
      async () => (await controls.stats()).accessKeys === 2,
    );
    expect(seenAtSend, "the intent is on disk before the create is sent").toEqual([expect.any(String)]);
    const intent = await origin.intents.read(origin.urn);
    expect(intent).toMatchObject({ kind: "AccessKey", object: { name: "publisher", type: "SERVICE" } });
    expect(JSON.stringify(intent)).not.toContain(core().emulator.adminKey);

    // The next `pulumi up` (a new process) creates the same resource, now with one more permission.
    const ctx = c.context();
    const [made] = await keysNamed(ctx, "publisher");
    const result = await createAccessKey(
      ctx,
      keyInputs(ctx, { send: ["orders/*", "audit/*"], receive: [] }),
      origin,
    );
    expect((await controls.stats()).accessKeys, "no second key").toBe(2);
    expect(result.id).toBe(String(made?.id));
    expect(result.outputs.permissions?.send).toEqual(["audit/*", "orders/*"]);
    expect(result.outputs.adopted).toBe(false);
    expect(await controls.publicKeyOf(Number(result.id))).toBe(result.outputs.publicKey);
    await expectSettledBy(ctx, origin, "AccessKey", result.id);
  });

  it("a key without a name: the next check names it as the dead create did, and its create takes over the object", async () => {
    const c = core();
    const { controls } = c;
    const origin = originOf("publisher");
    const news = { type: "SERVICE", permissions: { send: ["orders/*"] } };
    /** What a door's check records for the resource, asking the intents first as both doors do. */
    const checked = async (ctx: TestContext): Promise<AccessKeyInputs> => {
      const naming = await withInterruptedName({ logicalName: "publisher" }, news, origin, "AccessKey");
      const result = checkAccessKey(ctx, news, undefined, naming);
      if (result.inputs === undefined) throw new Error(JSON.stringify(result.failures));
      return accessKeyOperations.decodeInputs(toPropertyBag(result.inputs));
    };
    const dying = c.context({ clientClass: dyingClient(origin) });
    const first = await checked(dying);
    expect(first.name).toMatch(/^publisher-[0-9a-f]{7}$/u);
    await crashMidCreate(
      () => createAccessKey(dying, first, origin),
      async () => (await controls.stats()).accessKeys === 2,
    );

    // The next `pulumi up`: the engine has no state of the resource, so check chooses a name again.
    const ctx = c.context();
    const again = await checked(ctx);
    expect(again.name, "the interrupted create's name, not a new random one").toBe(first.name);
    const [made] = await keysNamed(ctx, first.name);
    const result = await createAccessKey(ctx, again, origin);
    expect((await controls.stats()).accessKeys, "no second key").toBe(2);
    expect(result.id).toBe(String(made?.id));
    await expectSettledBy(ctx, origin, "AccessKey", result.id);
    // Once the create finished and the engine holds it, a new resource of the same URN gets a name of its own again.
    expect((await checked(ctx)).name).not.toBe(first.name);
  });

  it("a key whose create never reached the broker: the next create makes it, once", async () => {
    const c = core();
    const { controls } = c;
    const origin = originOf("publisher");
    // The intent was written, then the process died before sending.
    await origin.intents.write({
      version: 1,
      urn: origin.urn,
      baseUrl: c.context().broker.baseUrl,
      sentAt: new Date().toISOString(),
      kind: "AccessKey",
      object: {
        name: "publisher",
        type: "SERVICE",
        permissions: { send: ["orders/*"], receive: [], resources: {} },
      },
    });
    const ctx = c.context();
    const result = await createAccessKey(ctx, keyInputs(ctx), origin);
    expect((await controls.stats()).accessKeys).toBe(2);
    await expectSettledBy(ctx, origin, "AccessKey", result.id);
  });

  it("two keys fit an interrupted create: refused, naming both, and nothing is created", async () => {
    const c = core();
    const { controls } = c;
    const origin = originOf("publisher");
    const dying = c.context({ clientClass: dyingClient(origin) });
    await crashMidCreate(
      () => createAccessKey(dying, keyInputs(dying), origin),
      async () => (await controls.stats()).accessKeys === 2,
    );
    const ctx = c.context();
    // Someone else made a look-alike since.
    await ctx.broker.createAccessKey({
      name: "publisher",
      type: "SERVICE",
      permissions: { send: ["orders/*"] },
    });
    const ids = (await keysNamed(ctx, "publisher")).map((k) => k.id);
    const error = await rejectionOf(createAccessKey(ctx, keyInputs(ctx), origin));
    expect(error.message).toContain(`ids ${ids.sort((a, b) => a - b).join(", ")}`);
    expect((await controls.stats()).accessKeys).toBe(3);
    expect(await origin.intents.read(origin.urn), "kept for the user's next try").toBeDefined();
  });

  it("a workspace: the next create takes over the one the dead create made instead of refusing it as existing", async () => {
    const c = core();
    const { controls } = c;
    const origin = originOf("orders", "broker:index:Workspace");
    const dying = c.context({ clientClass: dyingClient(origin) });
    seenAtSend.length = 0;
    await crashMidCreate(
      () => createWorkspace(dying, workspaceInputs(dying), origin),
      async () => (await controls.stats()).workspaces === 1,
    );
    expect(seenAtSend).toEqual([expect.any(String)]);
    const ctx = c.context();
    const result = await createWorkspace(ctx, workspaceInputs(ctx), origin);
    expect(result.outputs).toMatchObject({ name: "orders", path: "/orders", adopted: false });
    expect((await controls.stats()).workspaces).toBe(1);
    await expectSettledBy(ctx, origin, "Workspace", result.id);

    // Without an intent, the create-once check still refuses a namesake: no second workspace either way.
    const other = originOf("orders", "broker:index:Workspace");
    const refused = await rejectionOf(createWorkspace(ctx, workspaceInputs(ctx), other));
    expect(refused.message).toMatch(/already exists/u);
    expect((await controls.stats()).workspaces).toBe(1);
  });
});
