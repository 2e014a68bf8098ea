import { DiffResponse, PropertyDiff } from "@pulumi/pulumi/proto/provider_pb";
import { describe, expect, it } from "vitest";
import { buildDiff, toDiffResponse, topLevelKey } from "../../src/native/diff";

describe("buildDiff", () => {
  it("reports no change when nothing changed, keeping the stable outputs", () => {
    expect(buildDiff({ changes: [], stables: ["accessKey", "accessKeyId"] })).toEqual({
      changes: "DIFF_NONE",
      diffs: [],
      replaces: [],
      stables: ["accessKey", "accessKeyId"],
      detailedDiff: {},
      hasDetailedDiff: true,
      deleteBeforeReplace: false,
    });
  });

  it("derives diffs, replaces and the detailed kinds from the per-path changes", () => {
    const result = buildDiff({
      changes: [
        { path: "permissions.send[1]", kind: "add", replace: false },
        { path: ["permissions", "receive", 0], kind: "delete", replace: false },
        { path: "name", kind: "update", replace: true },
      ],
      stables: ["accessKeyId", "name", "permissions"],
      deleteBeforeReplace: true,
    });
    expect(result).toEqual({
      changes: "DIFF_SOME",
      diffs: ["name", "permissions"],
      replaces: ["name"],
      stables: ["accessKeyId"],
      detailedDiff: {
        name: { kind: "UPDATE_REPLACE", inputDiff: true },
        "permissions.receive[0]": { kind: "DELETE", inputDiff: true },
        "permissions.send[1]": { kind: "ADD", inputDiff: true },
      },
      hasDetailedDiff: true,
      deleteBeforeReplace: true,
    });
  });

  it("asks for delete-before-replace only when something replaces", () => {
    const result = buildDiff({
      changes: [{ path: "adopt", kind: "update", replace: false }],
      deleteBeforeReplace: true,
    });
    expect(result.deleteBeforeReplace).toBe(false);
    expect(result.replaces).toEqual([]);
  });

  it("merges a path listed twice into one entry that replaces if either did", () => {
    const result = buildDiff({
      changes: [
        { path: "baseUrl", kind: "add", replace: false, inputDiff: false },
        { path: "baseUrl", kind: "delete", replace: true },
      ],
    });
    expect(result.detailedDiff).toEqual({ baseUrl: { kind: "UPDATE_REPLACE", inputDiff: true } });
    expect(result.replaces).toEqual(["baseUrl"]);
  });

  it("answers DIFF_UNKNOWN only when undecided and no change is known", () => {
    expect(buildDiff({ changes: [], undecided: true }).changes).toBe("DIFF_UNKNOWN");
    expect(
      buildDiff({ changes: [{ path: "name", kind: "update", replace: true }], undecided: true }).changes,
    ).toBe("DIFF_SOME");
  });

  it("keeps the protocol's invariants for any mix of changes", () => {
    const kinds = ["add", "delete", "update"] as const;
    const paths = ["name", "permissions.send[0]", "permissions.send[3]", 'rotationTriggers["a.b"]', "type"];
    for (let seed = 0; seed < 200; seed++) {
      const changes = paths
        .filter((_, i) => (seed >> i) % 2 === 1)
        .map((path, i) => ({
          path,
          kind: kinds[(seed + i) % 3] ?? "update",
          replace: (seed * (i + 1)) % 5 === 0,
        }));
      const result = buildDiff({ changes, stables: ["name", "accessKey"] });
      for (const key of result.replaces) expect(result.diffs).toContain(key);
      for (const key of result.stables) expect(result.diffs).not.toContain(key);
      expect(result.changes).toBe(changes.length > 0 ? "DIFF_SOME" : "DIFF_NONE");
      const detailed = Object.entries(result.detailedDiff);
      expect([...new Set(detailed.map(([path]) => topLevelKey(path)))].sort()).toEqual(result.diffs);
      const replacing = detailed.filter(([, entry]) => entry.kind.endsWith("_REPLACE"));
      expect([...new Set(replacing.map(([path]) => topLevelKey(path)))].sort()).toEqual(result.replaces);
    }
  });
});

describe("topLevelKey", () => {
  it.each([
    ["permissions.send[1]", "permissions"],
    ["name", "name"],
    ["tags[0]", "tags"],
    ['["a.b"].c', "a.b"],
  ])("of %s is %s", (path, key) => {
    expect(topLevelKey(path)).toBe(key);
  });
});

describe("toDiffResponse", () => {
  it("carries every field into the protocol message", () => {
    const response = toDiffResponse(
      buildDiff({
        changes: [
          { path: "permissions.send[1]", kind: "add", replace: false },
          { path: "type", kind: "update", replace: true },
        ],
        stables: ["accessKeyId"],
        deleteBeforeReplace: true,
      }),
    );
    expect(response.getChanges()).toBe(DiffResponse.DiffChanges.DIFF_SOME);
    expect(response.getDiffsList()).toEqual(["permissions", "type"]);
    expect(response.getReplacesList()).toEqual(["type"]);
    expect(response.getStablesList()).toEqual(["accessKeyId"]);
    expect(response.getDeletebeforereplace()).toBe(true);
    expect(response.getHasdetaileddiff()).toBe(true);
    const detailed: Record<string, [number, boolean]> = {};
    response.getDetaileddiffMap().forEach((diff, path) => {
      detailed[path] = [diff.getKind(), diff.getInputdiff()];
    });
    expect(detailed).toEqual({
      "permissions.send[1]": [PropertyDiff.Kind.ADD, true],
      type: [PropertyDiff.Kind.UPDATE_REPLACE, true],
    });
  });
});
