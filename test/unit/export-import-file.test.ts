import { describe, expect, it } from "vitest";
import type { AccessKeyRecord, WorkspaceRecord } from "../../src/client/types";
import { exportBrokerConfig, pulumiImportFile, resourceNameOf, type ExportSource } from "../../src/export";

// The `pulumi import --file` document `broker-config export --format import` writes.

function workspace(id: number, name: string, parentId: number, path: string): WorkspaceRecord {
  return { id, name, parentId, path, createdAt: "2026-01-01T00:00:00.000Z", children: [] };
}

function key(id: number, name: string): AccessKeyRecord {
  return {
    id,
    name,
    key: `bks_secret_value_${id}`,
    type: "SERVICE",
    permissions: { send: ["a/b"], receive: [], resources: {} },
    createdAt: "2026-01-01T00:00:00.000Z",
  };
}

const WORKSPACES = [
  workspace(1, "platform", 0, "/platform"),
  workspace(2, "orders", 1, "/platform/orders"),
  workspace(3, "orders", 0, "/orders"),
];
const KEYS = [key(7, "orders-svc"), key(8, "ops admin"), key(9, "orders-svc")];

describe("pulumiImportFile", () => {
  it("lists every workspace and key by native type, a name from its path or name, and its id", () => {
    expect(pulumiImportFile(WORKSPACES, [key(8, "ops admin")])).toEqual({
      resources: [
        { type: "broker:index:AccessKey", name: "ops-admin", id: "8" },
        { type: "broker:index:Workspace", name: "orders", id: "3" },
        { type: "broker:index:Workspace", name: "platform", id: "1" },
        { type: "broker:index:Workspace", name: "platform-orders", id: "2" },
      ],
    });
  });

  it("makes every name unique by appending the id to names taken twice", () => {
    const names = pulumiImportFile(WORKSPACES, KEYS).resources.map((r) => r.name);
    expect(names).toEqual([
      "ops-admin",
      "orders-svc-7",
      "orders-svc-9",
      "orders",
      "platform",
      "platform-orders",
    ]);
    expect(new Set(names).size).toBe(names.length);
  });

  it("gives the same document whatever order the records come in, a record listed twice once", () => {
    const again = pulumiImportFile([...WORKSPACES].reverse(), [...KEYS, KEYS[0]!].reverse());
    expect(again).toEqual(pulumiImportFile(WORKSPACES, KEYS));
  });

  it("sanitizes names to letters, digits, _ and -", () => {
    expect(resourceNameOf("/a b/c.d/ü")).toBe("a-b-c-d");
    expect(resourceNameOf("///")).toBe("unnamed");
  });
});

describe("exportBrokerConfig", () => {
  it("returns the import document beside the configuration document, with no key value", async () => {
    async function* iterate<T>(items: readonly T[]): AsyncIterableIterator<T> {
      for (const item of items) yield await Promise.resolve(item);
    }
    const client: ExportSource = { workspaces: () => iterate(WORKSPACES), accessKeys: () => iterate(KEYS) };
    const { importFile } = await exportBrokerConfig(client);
    expect(importFile).toEqual(pulumiImportFile(WORKSPACES, KEYS));
    expect(JSON.stringify(importFile)).not.toContain("bks_secret_value");
  });
});
