import { describe, expect, it } from "vitest";
import type { AccessKeyRecord, WorkspaceRecord } from "../../src/client/types";
import {
  decodeGetAccessKeyArgs,
  decodeGetAccessKeysArgs,
  decodeGetWorkspaceArgs,
  decodeVerifyAccessKeyArgs,
  isBrokerLookupError,
} from "../../src/core/lookups";
import { accessKeyMatches, exactlyOne, workspacesAtPath } from "../../src/core/lookups/match";
import { workspacePathNames, workspacePathProblem } from "../../src/model";

const BASE_URL = "https://broker.example.com/v1";

function workspace(id: number, path: string): WorkspaceRecord {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return { id, name, path, parentId: 0, createdAt: "2026-01-01T00:00:00Z", children: [] };
}

function key(
  id: number,
  name: string,
  type: "SERVICE" | "ACCOUNT",
  send: string[] = [],
  receive: string[] = [],
): AccessKeyRecord {
  return {
    id,
    name,
    key: `value-${id}`,
    type,
    permissions: { send, receive, resources: {} },
    createdAt: "2026-01-01T00:00:00Z",
  };
}

/** The error `fn` throws (fails the test when it returns). */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error("expected an error");
}

describe("workspace paths (the model)", () => {
  it.each(["/platform", "/platform/orders", "/a b/c"])("accepts %s", (path) => {
    expect(workspacePathProblem(path)).toBeUndefined();
  });

  it.each([
    ["", "must not be empty"],
    ["platform", "must start with '/'"],
    ["/", "names no workspace"],
    ["/platform/", "must not end with '/'"],
    ["/platform//orders", "has an empty name at segment 2"],
    [`/${"x".repeat(201)}`, "has an invalid name at segment 1"],
  ])("rejects %j: %s", (path, problem) => {
    expect(workspacePathProblem(path)).toContain(problem);
    expect(workspacePathProblem(path)).toContain("such as '/platform' or '/platform/orders'");
  });

  it("splits a path into the names from the top of the tree", () => {
    expect(workspacePathNames("/platform/orders")).toEqual(["platform", "orders"]);
    expect(() => workspacePathNames("platform/orders")).toThrow(/must start with '\/'/u);
  });
});

describe("exactly one match", () => {
  const what = { description: 'workspace with path "/p"', plural: 'workspaces with path "/p"' };

  it("returns the one match", () => {
    expect(exactlyOne("broker:index:getWorkspace", [workspace(3, "/p")], what, BASE_URL).id).toBe(3);
  });

  it("fails on none, naming what was looked up and the base URL", () => {
    const error = thrown(() => exactlyOne("broker:index:getWorkspace", [], what, BASE_URL));
    expect(error.message).toBe(
      `broker:index:getWorkspace: no workspace with path "/p" at ${BASE_URL}; check the arguments, and that the provider points at the right environment`,
    );
    expect(isBrokerLookupError(error) && error.code).toBe("BROKER_LOOKUP_NOT_FOUND");
  });

  it("fails on several, listing every id in order and hinting at a look-up by id", () => {
    const matches = [workspace(9, "/p"), workspace(4, "/p")];
    const error = thrown(() => exactlyOne("broker:index:getWorkspace", matches, what, BASE_URL));
    expect(error.message).toContain(`2 workspaces with path "/p" at ${BASE_URL} (ids 4, 9)`);
    expect(error.message).toContain("look the one you mean up by id instead, such as { id: 4 }");
    expect(isBrokerLookupError(error) && error.matchingIds).toEqual([4, 9]);
    expect(isBrokerLookupError(error) && error.code).toBe("BROKER_LOOKUP_AMBIGUOUS");
  });
});

describe("match rules", () => {
  it("keeps only workspaces whose full path matches, not namesakes elsewhere in the tree", () => {
    const records = [
      workspace(1, "/orders"),
      workspace(2, "/platform/orders"),
      workspace(3, "/other/orders"),
      workspace(4, "/team/platform/orders"),
    ];
    expect(workspacesAtPath(records, "/platform/orders").map((w) => w.id)).toEqual([2]);
  });

  it("filters keys by exact name, type and an event-path prefix over send and receive", () => {
    const a = key(1, "orders", "SERVICE", ["orders/created"]);
    const b = key(2, "orders", "ACCOUNT", [], ["orders/*"]);
    const c = key(3, "orders-2", "SERVICE", [], ["audit/*"]);
    const keep = (filter: Parameters<typeof accessKeyMatches>[1]) =>
      [a, b, c].filter((k) => accessKeyMatches(k, filter)).map((k) => k.id);
    expect(keep({})).toEqual([1, 2, 3]);
    expect(keep({ name: "orders" })).toEqual([1, 2]);
    expect(keep({ name: "orders", type: "SERVICE" })).toEqual([1]);
    expect(keep({ eventPathPrefix: "orders/" })).toEqual([1, 2]);
    expect(keep({ eventPathPrefix: "audit" })).toEqual([3]);
  });
});

describe("arguments, checked before any request", () => {
  it.each([
    [{}, "give id or path"],
    [{ id: 1, path: "/a" }, "give either id or path, not both"],
    [{ path: "a/b" }, "must start with '/'"],
    [{ id: 0 }, "id must be a positive whole number"],
    [{ id: "1" }, "id must be a positive whole number"],
    [{ name: "a" }, "unknown argument name"],
  ])("getWorkspace %j: %s", (args, message) => {
    const error = thrown(() => decodeGetWorkspaceArgs(args));
    expect(error.message).toContain(message);
    expect(error.message.startsWith("broker:index:getWorkspace: ")).toBe(true);
    expect(isBrokerLookupError(error) && error.code).toBe("BROKER_LOOKUP_INVALID");
  });

  it("reads null as absent, as the engine sends absent optional arguments", () => {
    expect(decodeGetWorkspaceArgs({ id: null, path: "/a" })).toEqual({ id: undefined, path: "/a" });
  });

  it.each([
    [{ name: "" }, "name must not be empty"],
    [{ name: "x", type: "service" }, 'type must be "ACCOUNT" or "SERVICE"'],
    [{}, "give id or name"],
  ])("getAccessKey %j: %s", (args, message) => {
    expect(thrown(() => decodeGetAccessKeyArgs(args)).message).toContain(message);
  });

  it("getAccessKeys rejects an empty prefix and takes the filters", () => {
    expect(thrown(() => decodeGetAccessKeysArgs({ eventPathPrefix: "" })).message).toContain(
      "eventPathPrefix must not be empty",
    );
    expect(decodeGetAccessKeysArgs({ type: "SERVICE", eventPathPrefix: "orders/" })).toEqual({
      name: undefined,
      type: "SERVICE",
      eventPathPrefix: "orders/",
    });
  });

  it("verifyAccessKey rejects an empty key, and no message echoes a key", () => {
    expect(thrown(() => decodeVerifyAccessKeyArgs({ accessKey: " " })).message).toContain(
      "must not be empty",
    );
    const error = thrown(() => decodeVerifyAccessKeyArgs({ accessKey: "bks_secret", extra: "x" }));
    expect(error.message).toContain("unknown argument extra");
    expect(error.message).not.toContain("bks_secret");
  });
});
