/** The Store contract, run against both implementations. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryStore } from "../../src/emulator/memory-store";
import { SqliteStore } from "../../src/emulator/sqlite-store";
import type { Store } from "../../src/emulator/store";
import type { StoredAccessKey } from "../../src/emulator/types";

const cleanups: (() => void)[] = [];

function sqlite(): Store {
  const directory = mkdtempSync(path.join(tmpdir(), "emulator-store-"));
  const store = new SqliteStore(path.join(directory, "store.db"));
  cleanups.push(() => {
    store.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return store;
}

function memory(): Store {
  return new MemoryStore();
}

afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const keyFields = (name: string, key: string): Omit<StoredAccessKey, "id"> => ({
  name,
  key,
  type: "SERVICE",
  permissions: { send: ["a"], receive: [], resources: { r: [1] } },
  createdAt: "2025-01-01T00:00:00.000Z",
  keyPair: { publicKey: "pub", privateKey: "priv" },
});

describe.each([
  ["MemoryStore", memory],
  ["SqliteStore", sqlite],
])("%s", (_name, open) => {
  it("assigns increasing ids from 1 and finds keys by id and by value", () => {
    const store = open();
    const first = store.insertAccessKey(keyFields("one", "v1"));
    const second = store.insertAccessKey(keyFields("two", "v2"));
    expect([first.id, second.id]).toEqual([1, 2]);
    expect(store.accessKeyById(2)).toEqual(second);
    expect(store.accessKeyByValue("v1")).toEqual(first);
    expect(store.accessKeyByValue("v3")).toBeUndefined();
    expect(store.accessKeys().map((key) => key.id)).toEqual([1, 2]);
  });

  it("keeps an ACCOUNT key without a key pair", () => {
    const store = open();
    const { keyPair: _pair, ...fields } = keyFields("acc", "v");
    const key = store.insertAccessKey({ ...fields, type: "ACCOUNT" });
    expect(store.accessKeyById(key.id)).not.toHaveProperty("keyPair");
  });

  it("returns copies: mutating a result never changes the store", () => {
    const store = open();
    const key = store.insertAccessKey(keyFields("one", "v1"));
    key.permissions.send.push("mutated");
    const read = store.accessKeyById(key.id);
    read?.permissions.send.push("mutated");
    store.accessKeys()[0]?.permissions.receive.push("mutated");
    expect(store.accessKeyById(key.id)?.permissions).toEqual({
      send: ["a"],
      receive: [],
      resources: { r: [1] },
    });
  });

  it("updates permissions and key pairs, and deletes keys", () => {
    const store = open();
    const key = store.insertAccessKey(keyFields("one", "v1"));
    store.setPermissions(key.id, { send: [], receive: ["x"], resources: {} });
    store.setKeyPair(key.id, { publicKey: "p2", privateKey: "k2" });
    expect(store.accessKeyById(key.id)).toMatchObject({
      permissions: { send: [], receive: ["x"], resources: {} },
      keyPair: { publicKey: "p2", privateKey: "k2" },
    });
    store.deleteAccessKey(key.id);
    expect(store.accessKeyById(key.id)).toBeUndefined();
  });

  it("stores, updates and deletes workspaces with their own id counter", () => {
    const store = open();
    store.insertAccessKey(keyFields("one", "v1"));
    const a = store.insertWorkspace({ name: "a", parentId: 0, createdAt: "t" });
    const b = store.insertWorkspace({ name: "b", parentId: a.id, createdAt: "t" });
    expect([a.id, b.id]).toEqual([1, 2]);
    store.updateWorkspace(b.id, { name: "b2", parentId: 0 });
    expect(store.workspaceById(b.id)).toEqual({ id: 2, name: "b2", parentId: 0, createdAt: "t" });
    store.deleteWorkspaces([a.id, b.id]);
    expect(store.workspaces()).toEqual([]);
  });

  it("never reuses ids after deletes or clearExcept", () => {
    const store = open();
    const keep = store.insertAccessKey(keyFields("keep", "v1"));
    const gone = store.insertAccessKey(keyFields("gone", "v2"));
    store.insertWorkspace({ name: "w", parentId: 0, createdAt: "t" });
    store.clearExcept(keep.id);
    expect(store.counts()).toEqual({ accessKeys: 1, workspaces: 0 });
    expect(store.insertAccessKey(keyFields("next", "v3")).id).toBe(gone.id + 1);
    expect(store.insertWorkspace({ name: "w", parentId: 0, createdAt: "t" }).id).toBe(2);
  });

  it("keeps metadata", () => {
    const store = open();
    expect(store.getMeta("m")).toBeUndefined();
    store.setMeta("m", "1");
    store.setMeta("m", "2");
    expect(store.getMeta("m")).toBe("2");
  });
});

describe("SqliteStore on disk", () => {
  it("reads back everything, counters included, from the same file", () => {
    const directory = mkdtempSync(path.join(tmpdir(), "emulator-store-"));
    const file = path.join(directory, "store.db");
    try {
      const first = new SqliteStore(file);
      first.insertAccessKey(keyFields("one", "v1"));
      first.insertWorkspace({ name: "w", parentId: 0, createdAt: "t" });
      first.setMeta("m", "x");
      first.close();
      const second = new SqliteStore(file);
      expect(second.accessKeys()).toEqual([{ id: 1, ...keyFields("one", "v1") }]);
      expect(second.workspaces()).toEqual([{ id: 1, name: "w", parentId: 0, createdAt: "t" }]);
      expect(second.getMeta("m")).toBe("x");
      expect(second.insertAccessKey(keyFields("two", "v2")).id).toBe(2);
      second.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
