/** The domain model's rules, on their own: names, event paths, permissions, key types and defaults. */
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import {
  ACCESS_KEY_TYPES,
  apiNameProblems,
  codePointLength,
  DEFAULT_ADOPT,
  DEFAULT_ON_DELETE,
  describePermissionDifference,
  emptyPermissions,
  eventPathMessage,
  eventPathProblem,
  isAccessKeyType,
  isOnDelete,
  isParentId,
  MAX_NAME_LENGTH,
  nameProblems,
  normalizePermissions,
  ON_DELETE_VALUES,
  samePermissions,
  TOP_LEVEL_PARENT_ID,
  workspacePath,
} from "../../src/model";

describe("event paths", () => {
  it.each([
    ["orders/created", undefined],
    ["orders/*", undefined],
    ["a/b/c/*", undefined],
    ["", /is empty/],
    ["*", /bare '\*'/],
    ["orders/*/x", /before the last segment/],
    ["orders//x", /empty segment/],
    ["/orders", /empty segment/],
    ["orders/", /empty segment/],
    ["or*ders", /'\*' may only stand alone/],
    ["orders/created now", /whitespace/],
    ["orders/\u0001", /control character/],
    ["orders/\u0085x", /whitespace|control character/],
    ["x".repeat(1025), /longer than 1024/],
  ])("%j → %s", (path, problem) => {
    const found = eventPathProblem(path);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(problem);
  });

  it("words the full message once: the path, the problem and what a valid path looks like", () => {
    expect(eventPathMessage("orders/created")).toBeUndefined();
    expect(eventPathMessage("a b")).toBe(
      "event path \"a b\" contains whitespace; use '/'-separated segments such as 'orders/created', with '*' only as the last segment ('orders/*')",
    );
  });
});

describe("names", () => {
  it.each([
    ["orders", "workspace", []],
    ["orders", "accessKey", []],
    ["a/b", "accessKey", []],
    ["", "workspace", ["must not be empty"]],
    [" orders", "accessKey", ['must not start or end with whitespace: " orders"']],
    ["orders\u00a0", "workspace", ['must not start or end with whitespace: "orders\u00a0"']],
    ["or ders", "workspace", []],
    ["orders\u0007", "accessKey", ["must not contain control characters"]],
    ["x".repeat(201), "accessKey", ["is 201 characters long; the maximum is 200"]],
  ] as const)("%j as a %s name: %j", (name, kind, problems) => {
    expect(nameProblems(name, kind)).toEqual(problems);
  });

  it("rejects '/' in a workspace name and says why: the API builds workspace paths from names", () => {
    const [problem, ...rest] = nameProblems("a/b", "workspace");
    expect(rest).toEqual([]);
    expect(problem).toMatch(/^must not contain '\/': the API joins workspace names with '\/'/u);
    expect(apiNameProblems("a/b", "workspace")).toEqual([problem]);
    expect(apiNameProblems("a/b", "accessKey")).toEqual([]);
  });

  it("counts the length in code points, as the API's JSON Schema does", () => {
    const emoji = "😀".repeat(MAX_NAME_LENGTH);
    expect(emoji.length).toBe(2 * MAX_NAME_LENGTH);
    expect(codePointLength(emoji)).toBe(MAX_NAME_LENGTH);
    expect(nameProblems(emoji, "workspace")).toEqual([]);
    expect(nameProblems(`${emoji}x`, "workspace")).toEqual(["is 201 characters long; the maximum is 200"]);
  });

  it("reports every problem of a name at once", () => {
    expect(nameProblems(` a/\u0001${"x".repeat(200)}`, "workspace")).toHaveLength(4);
  });

  it("only adds rules to the API's: what the package accepts, the API accepts", () => {
    for (const name of ["", " a", "a\u0000", "a/b", "x".repeat(201), "ok"]) {
      for (const kind of ["workspace", "accessKey"] as const) {
        for (const problem of apiNameProblems(name, kind))
          expect(nameProblems(name, kind)).toContain(problem);
      }
    }
  });
});

describe("permissions", () => {
  it("normalises lists as sets and fills the missing fields", () => {
    expect(normalizePermissions({ send: ["b", "a", "b"] })).toEqual({
      send: ["a", "b"],
      receive: [],
      resources: {},
    });
    expect(samePermissions({ send: ["a", "b"] }, { send: ["b", "a", "a"], receive: [], resources: {} })).toBe(
      true,
    );
    expect(samePermissions({ send: ["a"] }, { receive: ["a"] })).toBe(false);
    expect(samePermissions({ resources: { x: 1, y: 2 } }, { resources: { y: 2, x: 1 } })).toBe(true);
  });

  it("sorts the keys of resources at every depth, keeping the order of arrays", () => {
    const normalized = normalizePermissions({ resources: { b: { z: 1, a: [{ y: 1, x: 2 }, 0] }, a: null } });
    expect(JSON.stringify(normalized.resources)).toBe('{"a":null,"b":{"a":[{"x":2,"y":1},0],"z":1}}');
  });

  it("describes a difference by path, and an empty set of permissions has none", () => {
    expect(
      describePermissionDifference(
        normalizePermissions({ send: ["a", "b"] }),
        normalizePermissions({ send: ["b", "c"], resources: { x: 1 } }),
      ),
    ).toBe("send is missing a; send also holds c; resources differ");
    expect(describePermissionDifference(emptyPermissions(), normalizePermissions(undefined))).toBe("");
  });
});

describe("key types, onDelete and defaults", () => {
  it("knows the API's two key types, spelled exactly", () => {
    expect(ACCESS_KEY_TYPES).toEqual(["ACCOUNT", "SERVICE"]);
    expect(isAccessKeyType("SERVICE")).toBe(true);
    expect(isAccessKeyType("service")).toBe(false);
    expect(isAccessKeyType(undefined)).toBe(false);
  });

  it("revokes a key that leaves the stack unless told to retain it", () => {
    expect(ON_DELETE_VALUES).toEqual(["revoke", "retain"]);
    expect(DEFAULT_ON_DELETE).toBe("revoke");
    expect(isOnDelete("retain")).toBe(true);
    expect(isOnDelete("delete")).toBe(false);
  });

  it("adopts nothing by default and puts a workspace without a parent at the top", () => {
    expect(DEFAULT_ADOPT).toBe(false);
    expect(TOP_LEVEL_PARENT_ID).toBe(0);
    expect([0, 7].map(isParentId)).toEqual([true, true]);
    expect([-1, 1.5, "1", Number.MAX_SAFE_INTEGER + 1].map(isParentId)).toEqual([false, false, false, false]);
  });

  it("builds workspace paths as the API does", () => {
    expect(workspacePath("/", "team")).toBe("/team");
    expect(workspacePath("/team", "orders")).toBe("/team/orders");
  });
});

describe("module boundaries", () => {
  /** Every module specifier a source file imports or re-exports (static imports, dynamic imports, require). */
  function specifiers(file: string): string[] {
    const text = readFileSync(file, "utf8");
    const found = [...text.matchAll(/(?:from\s+|import\s*\(\s*|require\(\s*|import\s+)"([^"]+)"/gu)];
    return found.map((match) => match[1] ?? "");
  }

  function sourceFiles(dir: string): string[] {
    return readdirSync(dir, { recursive: true, encoding: "utf8" })
      .filter((name) => name.endsWith(".ts"))
      .map((name) => path.join(dir, name));
  }

  it("the model imports only its own modules: no Pulumi, no client, no core, no packages", () => {
    const dir = path.join(__dirname, "../../src/model");
    const files = sourceFiles(dir);
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      for (const specifier of specifiers(file))
        expect(specifier, path.basename(file)).toMatch(/^\.\/[\w-]+$/u);
    }
  });

  it("the emulator imports nothing of the product (it fakes the API independently)", () => {
    const dir = path.join(__dirname, "../../src/emulator");
    // The one exception is the Node version check every bin runs first: it is tooling, not product.
    const allowed = new Set(["../../scripts/check-node.cjs"]);
    for (const file of sourceFiles(dir)) {
      for (const specifier of specifiers(file).filter((s) => !allowed.has(s)))
        expect(specifier, path.relative(dir, file)).not.toMatch(/^\.\.\//u);
    }
  });
});
