import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import type { AccessKeyRecord, WorkspaceRecord } from "../../src/client/types";
import { validateBrokerConfig } from "../../src/config-as-data";
import {
  buildWorkspaceTree,
  exportBrokerConfig,
  formatBrokerConfig,
  type ExportProgress,
  type ExportSource,
} from "../../src/export";

// The exporter's pure parts, over a fake client: tree building, order, what is left out, progress.

function workspace(id: number, name: string, parentId: number, path: string): WorkspaceRecord {
  return { id, name, parentId, path, createdAt: "2026-01-01T00:00:00.000Z", children: [] };
}

function key(id: number, name: string, type: "SERVICE" | "ACCOUNT", send: string[] = []): AccessKeyRecord {
  return {
    id,
    name,
    key: `bks_secret_value_${id}`,
    type,
    permissions: { send, receive: [], resources: {} },
    createdAt: "2026-01-01T00:00:00.000Z",
  };
}

async function* iterate<T>(items: readonly T[]): AsyncIterableIterator<T> {
  for (const item of items) yield await Promise.resolve(item);
}

function fakeClient(workspaces: WorkspaceRecord[], keys: AccessKeyRecord[]): ExportSource {
  return {
    workspaces: () => iterate(workspaces),
    accessKeys: () => iterate(keys),
  };
}

const WORKSPACES = [
  workspace(1, "platform", 0, "/platform"),
  workspace(2, "orders", 1, "/platform/orders"),
  workspace(3, "data", 0, "/data"),
  workspace(4, "alpha", 1, "/platform/alpha"),
  workspace(5, "eu", 2, "/platform/orders/eu"),
];

describe("buildWorkspaceTree", () => {
  it("nests children under their parents and sorts siblings by name", () => {
    expect(buildWorkspaceTree(WORKSPACES)).toEqual({
      roots: [
        { name: "data" },
        {
          name: "platform",
          children: [{ name: "alpha" }, { name: "orders", children: [{ name: "eu" }] }],
        },
      ],
      orphans: [],
    });
  });

  it("gives the same tree whatever order the records come in", () => {
    expect(buildWorkspaceTree([...WORKSPACES].reverse())).toEqual(buildWorkspaceTree(WORKSPACES));
  });

  it("leaves out, and reports, a workspace whose parent was not listed", () => {
    const tree = buildWorkspaceTree([...WORKSPACES, workspace(9, "lost", 77, "/gone/lost")]);
    expect(JSON.stringify(tree.roots)).not.toContain("lost");
    expect(tree.orphans).toEqual([
      "workspace /gone/lost (id 9) was left out: its parent 77 was not listed (created or removed during the export?)",
    ]);
  });

  it("counts a record listed twice once", () => {
    expect(buildWorkspaceTree([...WORKSPACES, WORKSPACES[1]!])).toEqual(buildWorkspaceTree(WORKSPACES));
  });
});

describe("exportBrokerConfig", () => {
  it("writes names, types and sorted permissions, never key values, with adopt: true; no ACCOUNT key by default", async () => {
    const keys = [
      key(1, "admin", "ACCOUNT"),
      key(2, "orders-svc", "SERVICE", ["orders/b", "orders/a", "orders/a"]),
      key(3, "billing", "SERVICE"),
      key(4, "deployer", "ACCOUNT"),
    ];
    const { document, warnings, leftOut, importFile, counts } = await exportBrokerConfig(
      fakeClient(WORKSPACES, keys),
    );
    expect(document).toEqual({
      version: 1,
      adopt: true,
      workspaces: buildWorkspaceTree(WORKSPACES).roots,
      accessKeys: [
        { name: "billing", type: "SERVICE" },
        { name: "orders-svc", type: "SERVICE", permissions: { send: ["orders/a", "orders/b"] } },
      ],
    });
    expect(leftOut).toEqual({ accountKeys: ["admin", "deployer"] });
    expect(importFile.resources.map((r) => r.name)).not.toContain("admin");
    expect(counts.accessKeys).toBe(2);
    expect(warnings).toEqual([]);
    for (const format of ["yaml", "json"] as const) {
      const text = formatBrokerConfig(document, format);
      for (const k of keys) expect(text).not.toContain(k.key);
    }
  });

  it("exports ACCOUNT keys with includeAccountKeys, and allowAccountKeys: true so that the document loads", async () => {
    const keys = [key(1, "admin", "ACCOUNT"), key(2, "deployer", "ACCOUNT"), key(3, "svc", "SERVICE")];
    const { document, leftOut, warnings } = await exportBrokerConfig(fakeClient([], keys), {
      includeAccountKeys: true,
    });
    expect(document.allowAccountKeys).toBe(true);
    expect(document.accessKeys?.map((k) => k.name)).toEqual(["admin", "deployer", "svc"]);
    expect(leftOut).toEqual({ accountKeys: [] });
    expect(warnings).toEqual([]);
  });

  it("never exports the key it authenticates with, matched by value, even with includeAccountKeys", async () => {
    // Two keys share the name "admin": only the one whose value is the API key is left out.
    const keys = [key(1, "admin", "ACCOUNT"), key(2, "deployer", "ACCOUNT"), key(3, "svc", "SERVICE")];
    const ownValue = keys[1]?.key as string;
    for (const includeAccountKeys of [false, true]) {
      const { document, leftOut, importFile } = await exportBrokerConfig(fakeClient([], keys), {
        includeAccountKeys,
        authenticatedWith: ownValue,
      });
      expect(leftOut.ownKey).toEqual({ name: "deployer", id: 2 });
      expect(document.accessKeys?.map((k) => k.name)).not.toContain("deployer");
      expect(importFile.resources.map((r) => r.id)).not.toContain("2");
      expect(JSON.stringify({ document, leftOut, importFile })).not.toContain(ownValue);
    }
  });

  it("gives byte-equal output for equal configurations listed in different orders", async () => {
    const keys = [key(1, "b", "SERVICE", ["x/y", "a/b"]), key(2, "a", "ACCOUNT"), key(3, "c", "SERVICE")];
    const one = await exportBrokerConfig(fakeClient(WORKSPACES, keys));
    const two = await exportBrokerConfig(
      fakeClient([...WORKSPACES].reverse(), [
        key(13, "c", "SERVICE"),
        key(11, "b", "SERVICE", ["a/b", "x/y"]),
        key(12, "a", "ACCOUNT"),
      ]),
    );
    for (const format of ["yaml", "json"] as const) {
      expect(formatBrokerConfig(two.document, format)).toBe(formatBrokerConfig(one.document, format));
    }
  });

  it("writes YAML and JSON that read back as the same document, which is valid", async () => {
    const { document } = await exportBrokerConfig(
      fakeClient(WORKSPACES, [key(1, "007", "SERVICE"), key(2, "admin", "ACCOUNT")]),
      { includeAccountKeys: true },
    );
    expect(parse(formatBrokerConfig(document, "yaml"))).toEqual(document);
    expect(JSON.parse(formatBrokerConfig(document, "json"))).toEqual(document);
    expect(validateBrokerConfig(document)).toEqual([]);
    const yaml = formatBrokerConfig(document, "yaml");
    expect(yaml).toMatch(/^# Broker configuration/u);
    // The header names both components, with the languages each serves.
    expect(yaml).toContain("Environment component (native `broker` plugin: YAML, Python, Go, TypeScript)");
    expect(yaml).toContain("BrokerConfig component (dynamic resources: TypeScript/JavaScript)");
  });

  it("warns when the environment holds what a document cannot (duplicate key names)", async () => {
    const { document, warnings } = await exportBrokerConfig(
      fakeClient([], [key(1, "dup", "SERVICE"), key(2, "dup", "SERVICE")]),
    );
    expect(document.accessKeys).toHaveLength(2);
    expect(warnings).toEqual([
      'the document will not load as it is: accessKeys[1].name: duplicate access key name "dup" (first at accessKeys[0]); names must be unique',
    ]);
  });

  it("reports progress every 100 objects and at the end of each list; a failing listener is ignored", async () => {
    const keys = Array.from({ length: 250 }, (_, i) =>
      key(i + 1, `k${String(i).padStart(3, "0")}`, "SERVICE"),
    );
    const seen: ExportProgress[] = [];
    await exportBrokerConfig(fakeClient(WORKSPACES, keys), {
      onProgress: (progress) => {
        seen.push(progress);
        throw new Error("display broke");
      },
    });
    expect(seen).toEqual([
      { kind: "workspaces", count: 5, done: true },
      { kind: "accessKeys", count: 100, done: false },
      { kind: "accessKeys", count: 200, done: false },
      { kind: "accessKeys", count: 250, done: true },
    ]);
  });
});
