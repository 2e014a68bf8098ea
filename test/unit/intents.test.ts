import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  INTENT_MAX_AGE_MS,
  IntentStore,
  intentRoot,
  intentNotBefore,
  parseIntent,
  requestedBy,
  settleDeleted,
  stackOfUrn,
  type Intent,
} from "../../src/core/intents";
import { isCreatedBy, type CreatedCandidate } from "../../src/model";
import type { AccessKeyRecord, WorkspaceRecord } from "../../src/client/types";
import { BrokerClient } from "../../src/client";

const URN = "urn:pulumi:dev::orders::pulumi-nodejs:dynamic/broker:AccessKey::publisher";
const SENT_AT = "2026-11-27T10:00:00.000Z";

function keyIntent(urn = URN, sentAt = SENT_AT): Intent {
  return {
    version: 1,
    urn,
    baseUrl: "http://127.0.0.1:1/v1",
    sentAt,
    kind: "AccessKey",
    object: {
      name: "publisher",
      type: "SERVICE",
      permissions: { send: ["orders/*"], receive: [], resources: {} },
    },
  };
}

const roots: string[] = [];
function freshStore(): IntentStore {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "intents-"));
  roots.push(root);
  return new IntentStore(path.join(root, "broker-config", "intents"));
}

afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

describe("create intents: the record store", () => {
  it("reads the stack and project from a URN, parents and colons in types included", () => {
    expect(stackOfUrn(URN)).toEqual({ stack: "dev", project: "orders" });
    expect(stackOfUrn("urn:pulumi:prod::p::my:comp$broker:index:Workspace::w")).toEqual({
      stack: "prod",
      project: "p",
    });
    expect(stackOfUrn("not-a-urn")).toBeUndefined();
  });

  it("keeps one record per resource, 0600 in 0700 directories, and removes it with any half-written copy", async () => {
    const store = freshStore();
    await store.write(keyIntent());
    const dir = store.stackDirectory({ project: "orders", stack: "dev" });
    const files = fs.readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(fs.statSync(path.join(dir, files[0] as string)).mode & 0o777).toBe(0o600);
    for (let d = dir; d.length >= store.root.length; d = path.dirname(d)) {
      expect(fs.statSync(d).mode & 0o777, d).toBe(0o700);
    }
    expect(await store.read(URN)).toEqual(keyIntent());

    // A second create of the same resource replaces the record: never more than one per resource.
    await store.write(keyIntent(URN, "2026-11-27T11:00:00.000Z"));
    expect(fs.readdirSync(dir)).toHaveLength(1);
    expect((await store.read(URN))?.sentAt).toBe("2026-11-27T11:00:00.000Z");

    // A process killed while writing leaves a half-written copy: removed with the record.
    fs.writeFileSync(path.join(dir, `${files[0] as string}.0123456789ab.tmp`), "{");
    await store.remove(URN);
    expect(await store.read(URN)).toBeUndefined();
    expect(fs.readdirSync(dir)).toEqual([]);
    await store.remove(URN); // nothing to remove: no error
  });

  it("writes the records of concurrent creates of one stack while others are removed", async () => {
    const store = freshStore();
    const urns = Array.from({ length: 40 }, (_, i) => `${URN}-${i}`);
    // Each create writes its record and removes it: no write may find its directory gone.
    await Promise.all(
      urns.map(async (urn) => {
        await store.write(keyIntent(urn));
        await store.remove(urn);
      }),
    );
    await Promise.all(urns.map((urn) => store.write(keyIntent(urn))));
    expect(await store.list({ project: "orders", stack: "dev" }, Date.parse(SENT_AT))).toHaveLength(40);
  });

  it("lists a stack's intents oldest first, and removes those older than the limit unread", async () => {
    const store = freshStore();
    const other = URN.replace("::publisher", "::consumer");
    await store.write(keyIntent(other, "2026-11-27T12:00:00.000Z"));
    await store.write(keyIntent());
    const stack = { project: "orders", stack: "dev" };
    const now = Date.parse(SENT_AT) + 1000;
    expect((await store.list(stack, now)).map((i) => i.urn)).toEqual([URN, other]);
    // Another stack's records are not its.
    expect(await store.list({ project: "orders", stack: "prod" }, now)).toEqual([]);

    const later = Date.parse("2026-11-27T12:00:00.000Z") + INTENT_MAX_AGE_MS - 1;
    expect((await store.list(stack, later)).map((i) => i.urn)).toEqual([other]);
    expect(await store.read(URN)).toBeUndefined();
  });

  it("ignores what is no intent of this version, and stack names that are no directory names stay inside the root", () => {
    expect(parseIntent("{")).toBeUndefined();
    expect(parseIntent(JSON.stringify({ ...keyIntent(), version: 2 }))).toBeUndefined();
    expect(parseIntent(JSON.stringify({ ...keyIntent(), sentAt: "yesterday" }))).toBeUndefined();
    expect(parseIntent(JSON.stringify({ ...keyIntent(), kind: "Workspace" }))).toBeUndefined();
    expect(parseIntent(JSON.stringify(keyIntent()))).toEqual(keyIntent());

    const store = freshStore();
    const dir = store.stackDirectory({ project: "..", stack: "a/../../b" });
    expect(path.relative(store.root, dir).split(path.sep)).toHaveLength(2);
    expect(dir.startsWith(store.root)).toBe(true);
  });

  it("settles a delete that carries no URN by the object it names: same endpoint, kind and id, in any stack", async () => {
    const store = freshStore();
    const endpoint = keyIntent().baseUrl;
    const named = (urn: string, over: Partial<Intent>): Intent =>
      ({ ...keyIntent(urn), createdId: 7, ...over }) as Intent;
    const deleted = named(URN, {});
    const otherStack = named(URN.replace(":dev::", ":prod::").replace("publisher", "a"), { createdId: 8 });
    const otherEndpoint = named(`${URN}-b`, { baseUrl: "http://127.0.0.1:2/v1" });
    const workspace = named(`${URN}-c`, { kind: "Workspace", object: { name: "w", parentId: 0 } });
    const unanswered: Intent = keyIntent(`${URN}-d`);
    const sameIdElsewhere = named(URN.replace(":dev::", ":qa::"), {});
    for (const intent of [deleted, otherStack, otherEndpoint, workspace, unanswered])
      await store.write(intent);
    await store.write({ ...sameIdElsewhere, baseUrl: "http://127.0.0.1:3/v1" });
    // Never sends: only its endpoint is read.
    const broker = new BrokerClient({ baseUrl: endpoint, apiKey: "never-sent" });
    const client = (): BrokerClient => broker;

    await settleDeleted(client, "AccessKey", "7", store);

    const left = (await store.everyIntent(Date.parse(SENT_AT))).map((i) => i.urn).sort();
    expect(left).toEqual(
      [otherStack, otherEndpoint, workspace, unanswered, sameIdElsewhere].map((i) => i.urn).sort(),
    );
    // A type whose creates record nothing, or an id that is no number, changes nothing.
    await settleDeleted(client, "ServiceKeyPair", "8", store);
    expect(await store.everyIntent(Date.parse(SENT_AT))).toHaveLength(5);
  });

  it("lives under PULUMI_HOME, else ~/.pulumi", () => {
    expect(intentRoot({ PULUMI_HOME: "/srv/pulumi" })).toBe(
      path.join("/srv/pulumi", "broker-config", "intents"),
    );
    expect(intentRoot({})).toBe(path.join(os.homedir(), ".pulumi", "broker-config", "intents"));
  });
});

describe("create intents: what an intent made (the model's one rule, isCreatedBy)", () => {
  const fits = (intent: Intent, candidate: CreatedCandidate, claimed: number[] = []): boolean =>
    isCreatedBy(requestedBy(intent), candidate, {
      notBefore: intentNotBefore(intent),
      claimed: new Set(claimed),
    });
  const key = (over: Partial<AccessKeyRecord>): AccessKeyRecord => ({
    id: 1,
    name: "publisher",
    type: "SERVICE",
    key: "k",
    createdAt: SENT_AT,
    permissions: { send: ["orders/*"], receive: [], resources: {} },
    ...over,
  });

  it("a key with the intent's name, type and permissions (as sets), made since it was sent, not claimed", () => {
    const intent = keyIntent();
    expect(fits(intent, key({}))).toBe(true);
    expect(
      fits(intent, key({ permissions: { send: ["orders/*", "orders/*"], receive: [], resources: {} } })),
    ).toBe(true);
    expect(fits(intent, key({ name: "other" }))).toBe(false);
    expect(fits(intent, key({ type: "ACCOUNT" }))).toBe(false);
    // A key revoked by a destroy keeps its name, not its permissions: never taken.
    expect(fits(intent, key({ permissions: { send: [], receive: [], resources: {} } }))).toBe(false);
    // Within the clock-skew margin before it was sent: still it; beyond: an older namesake.
    expect(fits(intent, key({ createdAt: "2026-11-27T09:59:56.000Z" }))).toBe(true);
    expect(fits(intent, key({ createdAt: "2026-11-27T09:59:54.000Z" }))).toBe(false);
    expect(fits(intent, key({}), [1])).toBe(false);
  });

  it("a workspace with the intent's name and parent, created at or after it", () => {
    const ws = (id: number, parentId: number, createdAt: string): WorkspaceRecord => ({
      id,
      name: "orders",
      parentId,
      path: "/orders",
      createdAt,
      children: [],
    });
    const intent: Intent = { ...keyIntent(), kind: "Workspace", object: { name: "orders", parentId: 0 } };
    const named = [ws(1, 0, "2026-11-27T09:00:00.000Z"), ws(2, 0, SENT_AT), ws(3, 7, SENT_AT)];
    expect(named.filter((w) => fits(intent, w)).map((w) => w.id)).toEqual([2]);
  });
});
