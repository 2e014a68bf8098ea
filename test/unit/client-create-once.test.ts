import { describe, expect, it } from "vitest";

import {
  createAccessKeyOnce,
  createWorkspaceAndFind,
  type CreateOnceApi,
  type CreateOnceBudget,
  type CreateOnceClaims,
} from "../../src/client/create-once";
import {
  BrokerApiError,
  isBrokerApiError,
  isBrokerResultError,
  type AccessKeyRecord,
  type CreateAccessKeyInput,
  type CreatedAccessKey,
  type ListOptions,
  type WorkspaceRecord,
} from "../../src/client";

/**
 * What the fake server does with the next create:
 * - `ok`: creates and answers;
 * - `lost-after`: creates, then the response is lost (outcome unknown);
 * - `lost-before`: the request is lost before the server sees it, but the client cannot tell (outcome unknown);
 * - `unauthorized`: refuses with 401;
 * - `elsewhere`: creates under another parent than asked.
 */
type Script = "ok" | "lost-after" | "lost-before" | "unauthorized" | "elsewhere";

function apiError(status: number, outcomeUnknown: boolean): BrokerApiError {
  return new BrokerApiError({
    code: status === 401 ? "BROKER_UNAUTHORIZED" : "BROKER_SERVER_ERROR",
    message: `POST failed: ${status}`,
    status,
    method: "POST",
    pathTemplate: "/x",
    attempts: 1,
    outcomeUnknown,
  });
}

const T0 = Date.parse("2025-06-01T12:00:00Z");

/** An in-memory API whose creates follow a script; the clock is fake and advances 1 s per create. */
class FakeApi implements CreateOnceApi {
  clock = T0;
  workspaceList: WorkspaceRecord[] = [];
  keys: AccessKeyRecord[] = [];
  posts = 0;
  reads = 0;
  rotations = 0;
  keysScanned = 0;
  nextId = 100;
  /** Runs during the next workspace create, e.g. to simulate someone else creating one too. */
  duringCreate: (() => void) | undefined;
  failReadBack = false;

  constructor(private readonly script: Script[]) {}

  private next(): Script {
    this.posts++;
    this.clock += 1000;
    return this.script.shift() ?? "ok";
  }

  addWorkspace(name: string, parentId: number, createdAt = this.clock): WorkspaceRecord {
    const w = {
      id: this.nextId++,
      name,
      path: `/${name}`,
      parentId,
      createdAt: new Date(createdAt).toISOString(),
      children: [],
    };
    this.workspaceList.push(w);
    return w;
  }

  addKey(
    name: string,
    type: "ACCOUNT" | "SERVICE",
    createdAt = this.clock,
    send: string[] = [],
  ): AccessKeyRecord {
    const id = this.nextId++;
    const r: AccessKeyRecord = {
      id,
      name,
      key: `${type === "SERVICE" ? "bks" : "bka"}_${id}`,
      type,
      permissions: { send, receive: [], resources: {} },
      createdAt: new Date(createdAt).toISOString(),
    };
    this.keys.push(r);
    return r;
  }

  createWorkspace(input: { name: string; parentId?: number }): Promise<void> {
    const step = this.next();
    this.duringCreate?.();
    this.duringCreate = undefined;
    if (step === "unauthorized") return Promise.reject(apiError(401, false));
    if (step === "lost-before") return Promise.reject(apiError(503, true));
    this.addWorkspace(input.name, (input.parentId ?? 0) + (step === "elsewhere" ? 1 : 0));
    return step === "lost-after" ? Promise.reject(apiError(503, true)) : Promise.resolve();
  }

  async *workspaces(options: ListOptions & { name?: string } = {}): AsyncIterableIterator<WorkspaceRecord> {
    await Promise.resolve();
    // Filters loosely (substring), as a server might: the caller must match the exact name.
    yield* this.workspaceList.filter((w) => options.name === undefined || w.name.includes(options.name));
  }

  createAccessKey(input: CreateAccessKeyInput): Promise<CreatedAccessKey> {
    const step = this.next();
    if (step === "unauthorized") return Promise.reject(apiError(401, false));
    if (step === "lost-before") return Promise.reject(apiError(503, true));
    const r = this.addKey(input.name, input.type, this.clock, input.permissions.send);
    if (step === "lost-after") return Promise.reject(apiError(503, true));
    const created: CreatedAccessKey = { accessKey: r.key, accessKeyId: r.id };
    if (r.type === "SERVICE") created.serviceKeyPair = { publicKey: "pub-0", privateKey: "priv-0" };
    return Promise.resolve(created);
  }

  async *accessKeys(options: ListOptions = {}): AsyncIterableIterator<AccessKeyRecord> {
    await Promise.resolve();
    expect(options).toMatchObject({ order: "DESC", orderBy: "createdAt" });
    const sorted = [...this.keys].sort(
      (a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || b.id - a.id,
    );
    for (const r of sorted) {
      this.keysScanned++;
      yield r;
    }
  }

  getAccessKeyPermissions(accessKey: string): Promise<AccessKeyRecord> {
    this.reads++;
    const found = this.keys.find((k) => k.key === accessKey);
    if (this.failReadBack || found === undefined) return Promise.reject(apiError(500, false));
    return Promise.resolve(found);
  }

  rotateServiceKeyPair(): Promise<{ publicKey: string; privateKey: string }> {
    this.rotations++;
    return Promise.resolve({ publicKey: `pub-${this.rotations}`, privateKey: `priv-${this.rotations}` });
  }
}

function budgetFor(
  api: FakeApi,
  maxRetries = 3,
  claims: CreateOnceClaims = { workspaces: new Set(), accessKeys: new Set() },
): CreateOnceBudget & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    claims,
    maxRetries,
    maxRetryTimeMs: 60_000,
    baseDelayMs: 200,
    maxDelayMs: 5000,
    sleeps,
    timing: {
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
      now: () => api.clock,
      random: () => 0.5,
    },
  };
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
}

describe("createWorkspaceAndFind", () => {
  it("returns the new workspace, not an older one with the same name and parent", async () => {
    const api = new FakeApi(["ok"]);
    const old = api.addWorkspace("orders", 0, T0 - 60_000);
    api.addWorkspace("orders-archive", 0);
    const created = await createWorkspaceAndFind(api, budgetFor(api), { name: "orders" });
    expect(created.id).not.toBe(old.id);
    expect(created).toMatchObject({ name: "orders", parentId: 0 });
    expect(api.posts).toBe(1);
  });

  it("finds the workspace when the create's response was lost after the server created it, without creating again", async () => {
    const api = new FakeApi(["lost-after"]);
    const created = await createWorkspaceAndFind(api, budgetFor(api), { name: "orders", parentId: 4 });
    expect(created).toMatchObject({ name: "orders", parentId: 4 });
    expect(api.posts).toBe(1);
    expect(api.workspaceList).toHaveLength(1);
  });

  it("creates again, after a backoff, when the lost create never reached the server", async () => {
    const api = new FakeApi(["lost-before", "lost-before", "ok"]);
    const budget = budgetFor(api);
    const created = await createWorkspaceAndFind(api, budget, { name: "orders" });
    expect(created.name).toBe("orders");
    expect(api.posts).toBe(3);
    expect(api.workspaceList).toHaveLength(1);
    expect(budget.sleeps).toEqual([100, 200]);
  });

  it("gives up with the create's own error when every attempt is lost before the server", async () => {
    const api = new FakeApi(["lost-before", "lost-before", "lost-before", "lost-before"]);
    const error = await caught(createWorkspaceAndFind(api, budgetFor(api, 2), { name: "orders" }));
    expect(isBrokerApiError(error) && error.outcomeUnknown).toBe(true);
    expect(api.posts).toBe(3);
    expect(api.workspaceList).toHaveLength(0);
  });

  it("does not look or retry after an error that is not outcome-unknown", async () => {
    const api = new FakeApi(["unauthorized"]);
    const error = await caught(createWorkspaceAndFind(api, budgetFor(api), { name: "orders" }));
    expect(error).toMatchObject({ code: "BROKER_UNAUTHORIZED" });
    expect(api.posts).toBe(1);
  });

  it("fails clearly, with the created id but no id property, when the server put it under another parent", async () => {
    const api = new FakeApi(["elsewhere"]);
    const error = await caught(createWorkspaceAndFind(api, budgetFor(api), { name: "orders", parentId: 4 }));
    expect(isBrokerResultError(error)).toBe(true);
    expect(error).toMatchObject({ code: "BROKER_UNEXPECTED_RESULT", createdId: api.workspaceList[0]?.id });
    expect((error as Error).message).toContain(
      `created workspace "orders" (id ${api.workspaceList[0]?.id}) but the server reports parentId 5, not 4`,
    );
    expect("id" in (error as object)).toBe(false);
  });

  it("does not take a sibling call's same-named workspace under another parent for its own after a lost response (regression)", async () => {
    // The engine creates `env` under several parents in parallel; found by the integration fault tests.
    const api = new FakeApi(["lost-before", "ok"]);
    api.duringCreate = () => api.addWorkspace("env", 9);
    const created = await createWorkspaceAndFind(api, budgetFor(api), { name: "env", parentId: 4 });
    expect(created).toMatchObject({ name: "env", parentId: 4 });
    expect(api.posts).toBe(2);
  });

  it("picks the newest new workspace when another one with the same name appeared concurrently", async () => {
    const api = new FakeApi(["ok"]);
    let concurrent: WorkspaceRecord | undefined;
    api.duringCreate = () => (concurrent = api.addWorkspace("orders", 0, api.clock - 500));
    const created = await createWorkspaceAndFind(api, budgetFor(api), { name: "orders" });
    expect(concurrent).toBeDefined();
    expect(created.id).not.toBe(concurrent?.id);
    expect(Date.parse(created.createdAt)).toBeGreaterThan(Date.parse(concurrent?.createdAt ?? ""));
  });
});

describe("concurrent look-alike creates on one client", () => {
  const claims = (): CreateOnceClaims => ({ workspaces: new Set(), accessKeys: new Set() });

  it("return two different workspaces for two workspaces with the same name and parent", async () => {
    const api = new FakeApi(["ok", "ok"]);
    const budget = budgetFor(api, 3, claims());
    const [a, b] = await Promise.all([
      createWorkspaceAndFind(api, budget, { name: "twin" }),
      createWorkspaceAndFind(api, budget, { name: "twin" }),
    ]);
    expect(api.workspaceList).toHaveLength(2);
    expect(a.id).not.toBe(b.id);
  });

  it("return two different keys when both create responses with the same name were lost", async () => {
    const api = new FakeApi(["lost-after", "lost-after"]);
    const budget = budgetFor(api, 3, claims());
    const input: CreateAccessKeyInput = { name: "twin", type: "ACCOUNT", permissions: {} };
    const [a, b] = await Promise.all([
      createAccessKeyOnce(api, budget, input),
      createAccessKeyOnce(api, budget, input),
    ]);
    expect(api.keys).toHaveLength(2);
    expect([a.recovered, b.recovered]).toEqual([true, true]);
    expect(a.record.id).not.toBe(b.record.id);
  });
});

describe("createAccessKeyOnce", () => {
  const input: CreateAccessKeyInput = { name: "svc", type: "SERVICE", permissions: { send: ["a/*"] } };

  it("creates, then reads the record back once", async () => {
    const api = new FakeApi(["ok"]);
    const result = await createAccessKeyOnce(api, budgetFor(api), input);
    expect(result.recovered).toBe(false);
    expect(result.created.serviceKeyPair).toEqual({ publicKey: "pub-0", privateKey: "priv-0" });
    expect(result.record).toMatchObject({ id: result.created.accessKeyId, name: "svc", type: "SERVICE" });
    expect([api.posts, api.reads, api.rotations]).toEqual([1, 1, 0]);
  });

  it("recovers a SERVICE key whose create response was lost, with a fresh key pair, without creating again", async () => {
    const api = new FakeApi(["lost-after"]);
    const result = await createAccessKeyOnce(api, budgetFor(api), input);
    expect(result.recovered).toBe(true);
    expect(api.keys).toHaveLength(1);
    expect(result.created).toEqual({
      accessKey: api.keys[0]?.key,
      accessKeyId: api.keys[0]?.id,
      serviceKeyPair: { publicKey: "pub-1", privateKey: "priv-1" },
    });
    expect(result.record).toEqual(api.keys[0]);
    expect([api.posts, api.rotations]).toEqual([1, 1]);
  });

  it("recovers an ACCOUNT key without rotating anything", async () => {
    const api = new FakeApi(["lost-after"]);
    const result = await createAccessKeyOnce(api, budgetFor(api), { ...input, type: "ACCOUNT" });
    expect(result.recovered).toBe(true);
    expect(result.created.serviceKeyPair).toBeUndefined();
    expect(api.rotations).toBe(0);
  });

  it("creates again when the lost create never reached the server", async () => {
    const api = new FakeApi(["lost-before", "ok"]);
    const result = await createAccessKeyOnce(api, budgetFor(api), input);
    expect(result.recovered).toBe(false);
    expect(api.posts).toBe(2);
    expect(api.keys).toHaveLength(1);
  });

  it("does not take a same-named key created before the call (beyond the clock-skew margin) for its own", async () => {
    const api = new FakeApi(["lost-before", "ok"]);
    const older = api.addKey("svc", "SERVICE", T0 - 6000, ["a/*"]);
    const result = await createAccessKeyOnce(api, budgetFor(api), input);
    expect(result.created.accessKeyId).not.toBe(older.id);
    expect(api.posts).toBe(2);
  });

  it("stops scanning at the first key older than the call's start minus the margin", async () => {
    const api = new FakeApi(["lost-before", "ok"]);
    for (let i = 0; i < 300; i++) api.addKey(`old-${i}`, "ACCOUNT", T0 - 60_000 - i);
    api.addKey("recent-other", "ACCOUNT", T0 - 1000);
    await createAccessKeyOnce(api, budgetFor(api), input);
    // The recent key, then the first old one ends the scan.
    expect(api.keysScanned).toBe(2);
  });

  it("prefers, among same-named recent keys, the one whose permissions match the input", async () => {
    const api = new FakeApi(["lost-after"]);
    const other = api.addKey("svc", "SERVICE", T0 + 5000, ["other"]);
    const result = await createAccessKeyOnce(api, budgetFor(api), input);
    expect(result.record.id).not.toBe(other.id);
    expect(result.record.permissions.send).toEqual(["a/*"]);
  });

  it("reports a key created but not readable back as a result error carrying its id", async () => {
    const api = new FakeApi(["ok"]);
    api.failReadBack = true;
    const error = await caught(createAccessKeyOnce(api, budgetFor(api), input));
    expect(error).toMatchObject({ code: "BROKER_UNEXPECTED_RESULT", createdId: api.keys[0]?.id });
    expect((error as Error).message).toContain(
      `created access key "svc" (id ${api.keys[0]?.id}) but reading it back failed`,
    );
  });
});

describe("the reads that finish a create", () => {
  /** `api` whose finishing lists are its own, counted apart from the lists a caller may cancel. */
  function withFinishing(api: FakeApi): FakeApi & { finishingReads: string[]; ownReads: string[] } {
    const counted = Object.assign(api, { finishingReads: [] as string[], ownReads: [] as string[] });
    const workspaces = api.workspaces.bind(api);
    const accessKeys = api.accessKeys.bind(api);
    counted.workspaces = (options) => {
      counted.ownReads.push("workspaces");
      return workspaces(options);
    };
    counted.accessKeys = (options) => {
      counted.ownReads.push("accessKeys");
      return accessKeys(options);
    };
    Object.assign(counted, {
      finishing: {
        workspaces: (options?: ListOptions & { name?: string }) => {
          counted.finishingReads.push("workspaces");
          return workspaces(options);
        },
        accessKeys: (options?: ListOptions) => {
          counted.finishingReads.push("accessKeys");
          return accessKeys(options);
        },
      },
    });
    return counted;
  }

  it("learn a workspace's id through the finishing lists; the list before the create is the caller's", async () => {
    const api = withFinishing(new FakeApi(["lost-after"]));
    const created = await createWorkspaceAndFind(api, budgetFor(api), { name: "orders" });
    expect(created.name).toBe("orders");
    expect(api.ownReads).toEqual(["workspaces"]);
    expect(api.finishingReads).toEqual(["workspaces"]);
  });

  it("look for a key whose response was lost through the finishing lists", async () => {
    const api = withFinishing(new FakeApi(["lost-after"]));
    const result = await createAccessKeyOnce(api, budgetFor(api), {
      name: "orders",
      type: "ACCOUNT",
      permissions: { send: [], receive: [] },
    });
    expect(result.recovered).toBe(true);
    expect(api.ownReads).toEqual([]);
    expect(api.finishingReads).toEqual(["accessKeys"]);
  });
});
