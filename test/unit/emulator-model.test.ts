/** The emulator's pure building blocks: grammar, permission modes, paging, the workspace tree, faults, routing. */
import { describe, expect, it } from "vitest";
import { FaultRegistry, parseFaultSpec } from "../../src/emulator/faults";
import { applyPermissionsUpdate } from "../../src/emulator/permissions";
import { pageOf } from "../../src/emulator/paging";
import { Router } from "../../src/emulator/router";
import { isEventPath, parseListQuery } from "../../src/emulator/validation";
import { buildWorkspaceRecords, subtreeIds } from "../../src/emulator/workspaces";
// The emulator imports nothing of the product; its tests take the limits from the domain model.
import { MAX_EVENT_PATH_LENGTH } from "../../src/model";

describe("event path grammar", () => {
  it.each([
    "orders",
    "orders/created",
    "orders/*",
    "a/b/c/*",
    "ünïcode/✓",
    "a-b_c.d:e",
    "😀".repeat(MAX_EVENT_PATH_LENGTH),
  ])("accepts %j", (path) => {
    expect(isEventPath(path)).toBe(true);
  });

  it.each([
    "",
    "*",
    "/",
    "/a",
    "a/",
    "a//b",
    "a/*/b",
    "a*",
    "a/b*",
    "a/**",
    "*/a",
    "a b",
    "a\tb",
    "a\u0000b",
    "a/ *",
    "a\u0085b",
    "x".repeat(MAX_EVENT_PATH_LENGTH + 1),
  ])("rejects %j", (path) => {
    expect(isEventPath(path)).toBe(false);
  });
});

describe("permission update modes", () => {
  const current = { send: ["a", "b"], receive: ["r"], resources: { x: 1, y: { deep: true } } };

  it("replace: given fields replace, absent fields stay", () => {
    expect(applyPermissionsUpdate(current, { send: ["c"] }, "replace")).toEqual({ ...current, send: ["c"] });
    expect(applyPermissionsUpdate(current, { resources: {} }, "replace")).toEqual({
      ...current,
      resources: {},
    });
  });

  it("merge: union in stored-then-new order without duplicates, shallow resources, absent fields stay", () => {
    expect(applyPermissionsUpdate(current, { send: ["c", "a", "c"], resources: { y: 2 } }, "merge")).toEqual({
      send: ["a", "b", "c"],
      receive: ["r"],
      resources: { x: 1, y: 2 },
    });
  });
});

describe("pageOf", () => {
  const items = [
    { id: 1, name: "b", createdAt: "2" },
    { id: 2, name: "a", createdAt: "1" },
    { id: 3, name: "a", createdAt: "2" },
    { id: 4, name: "c", createdAt: "1" },
  ];
  const ids = (query: Parameters<typeof pageOf>[1]): number[] => pageOf(items, query).map((item) => item.id);

  it("sorts by the field with id as tie-breaker in the same direction", () => {
    expect(ids({ pageIndex: 0, limit: 10, order: "asc", orderBy: "name" })).toEqual([2, 3, 1, 4]);
    expect(ids({ pageIndex: 0, limit: 10, order: "desc", orderBy: "name" })).toEqual([4, 1, 3, 2]);
    expect(ids({ pageIndex: 0, limit: 10, order: "asc", orderBy: "createdAt" })).toEqual([2, 4, 1, 3]);
    expect(ids({ pageIndex: 0, limit: 10, order: "desc", orderBy: "createdAt" })).toEqual([3, 1, 4, 2]);
  });

  it("slices [pageIndex * limit, + limit) and is empty past the end", () => {
    expect(ids({ pageIndex: 1, limit: 3, order: "asc", orderBy: "name" })).toEqual([4]);
    expect(ids({ pageIndex: 2, limit: 3, order: "asc", orderBy: "name" })).toEqual([]);
    expect(ids({ pageIndex: 1e20, limit: 3, order: "asc", orderBy: "name" })).toEqual([]);
  });
});

describe("parseListQuery", () => {
  it("normalises order and reads integers", () => {
    expect(
      parseListQuery(new URLSearchParams("pageIndex=02&limit=100&order=DESC&orderBy=createdAt")),
    ).toEqual({
      pageIndex: 2,
      limit: 100,
      order: "desc",
      orderBy: "createdAt",
    });
  });

  it.each(["pageIndex=+1", "pageIndex=1e2", "pageIndex=%201", "pageIndex=0x1"])("rejects %s", (pageIndex) => {
    expect(() => parseListQuery(new URLSearchParams(`${pageIndex}&limit=1&order=asc&orderBy=name`))).toThrow(
      /query\.pageIndex/,
    );
  });
});

describe("workspace tree", () => {
  const rows = [
    { id: 1, name: "a", parentId: 0, createdAt: "t" },
    { id: 2, name: "b", parentId: 1, createdAt: "t" },
    { id: 3, name: "c", parentId: 2, createdAt: "t" },
    { id: 4, name: "d", parentId: 1, createdAt: "t" },
  ];

  it("computes paths from current names and nests children in id order", () => {
    const records = buildWorkspaceRecords(rows);
    expect(records.map((record) => record.path)).toEqual(["/a", "/a/b", "/a/b/c", "/a/d"]);
    expect(records[0]?.children.map((child) => child.id)).toEqual([2, 4]);
    expect(records[0]?.children[0]?.children[0]).toMatchObject({ id: 3, path: "/a/b/c", children: [] });
  });

  it("finds a subtree and survives a cycle instead of looping", () => {
    expect(subtreeIds(rows, 1).sort()).toEqual([1, 2, 3, 4]);
    expect(subtreeIds(rows, 2).sort()).toEqual([2, 3]);
    const cyclic = [
      { id: 1, name: "x", parentId: 2, createdAt: "t" },
      { id: 2, name: "y", parentId: 1, createdAt: "t" },
    ];
    expect(buildWorkspaceRecords(cyclic).map((record) => record.path)).toEqual(["/y/x", "/x/y"]);
  });
});

describe("FaultRegistry", () => {
  it("applies a count to exactly that many matching requests, then drops the fault", () => {
    const faults = new FaultRegistry();
    faults.add({ kind: "503", count: 2, routes: ["GET /workspace"] });
    const kinds = ["GET /workspace", "POST /workspace", "GET /workspace", "GET /workspace"].map(
      (route) => faults.plan(route).action?.kind,
    );
    expect(kinds).toEqual(["503", undefined, "503", undefined]);
    expect(faults.list()).toEqual([]);
  });

  it("lets the first answering fault win without consuming later ones, and adds latencies", () => {
    const faults = new FaultRegistry();
    faults.add({ kind: "latency", latencyMs: 10 });
    faults.add({ kind: "429", count: 1, retryAfter: 5 });
    faults.add({ kind: "503", count: 1 });
    faults.add({ kind: "latency", latencyMs: 5, phase: "after" });
    expect(faults.plan("GET /workspace")).toEqual({
      delayBeforeMs: 10,
      delayAfterMs: 5,
      action: { kind: "429", phase: "before", retryAfter: "5" },
      label: "429",
    });
    expect(faults.plan("GET /workspace").action?.kind).toBe("503");
    expect(faults.plan("GET /workspace").action).toBeUndefined();
  });

  it("makes a seeded rate reproducible", () => {
    const sequence = (seed: number): boolean[] => {
      const faults = new FaultRegistry();
      faults.add({ kind: "reset", rate: 0.3, seed });
      return Array.from({ length: 50 }, () => faults.plan("GET /workspace").action !== undefined);
    };
    expect(sequence(1)).toEqual(sequence(1));
    expect(sequence(1)).not.toEqual(sequence(2));
    const hits = sequence(1).filter(Boolean).length;
    expect(hits).toBeGreaterThan(5);
    expect(hits).toBeLessThan(30);
  });

  it("validates specs against the known routes", () => {
    expect(parseFaultSpec({ kind: "503", routes: ["GET /workspace"] }, ["GET /workspace"])).toEqual({
      kind: "503",
      routes: ["GET /workspace"],
    });
    expect(() => parseFaultSpec({ kind: "503", routes: ["GET /nope"] }, ["GET /workspace"])).toThrow(
      /body\.routes\[0\]/,
    );
  });
});

describe("Router", () => {
  const router = new Router([
    { method: "GET", template: "/access-key/{accessKey}/permissions", handler: "get" },
    { method: "POST", template: "/access-key/{accessKey}/permissions", handler: "post" },
  ]);

  it("binds decoded parameters and requires non-empty segments", () => {
    expect(router.match("GET", "/access-key/a%2Fb/permissions")).toMatchObject({
      kind: "found",
      route: "GET /access-key/{accessKey}/permissions",
      params: { accessKey: "a/b" },
      handler: "get",
    });
    expect(router.match("GET", "/access-key//permissions")).toEqual({ kind: "not_found" });
  });

  it("tells a wrong method from an unknown path", () => {
    expect(router.match("DELETE", "/access-key/k/permissions")).toEqual({
      kind: "method_not_allowed",
      template: "/access-key/{accessKey}/permissions",
      allow: ["GET", "POST"],
    });
  });

  it("redacts every segment that is not a literal word of a template", () => {
    expect(router.redact("/access-key/bka_secret/permissions/extra")).toBe(
      "/access-key/{redacted}/permissions/{redacted}",
    );
  });
});
