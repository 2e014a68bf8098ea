import { describe, expect, it } from "vitest";
import * as accessKey from "../../src/dynamic/impl/access-key";
import * as serviceKeyPair from "../../src/dynamic/impl/service-key-pair";
import { UNKNOWN } from "../../src/core/unknown";
import { CheckFailures, checkEventPaths, checkName } from "../../src/core/validation";
import * as workspace from "../../src/dynamic/impl/workspace";

// The pure parts of the providers: validation, normalisation and diffs (no request is involved).

describe("event paths", () => {
  it("names the index of each bad path and says what a valid one looks like", () => {
    const failures = new CheckFailures();
    checkEventPaths(failures, "permissions.send", ["ok/path", "bad path", 7]);
    expect(failures.list.map((f) => f.property)).toEqual(["permissions.send[1]", "permissions.send[2]"]);
    expect(failures.list[0]?.reason).toMatch(/such as 'orders\/created'/);
  });
});

describe("names", () => {
  it.each([
    ["orders", 0],
    ["", 1],
    [" orders", 1],
    ["orders\u0007", 1],
    ["x".repeat(201), 1],
    [UNKNOWN, 0],
  ])("%j gives %i failure(s)", (name, count) => {
    const failures = new CheckFailures();
    checkName(failures, "name", name, "Workspace");
    expect(failures.list).toHaveLength(count);
  });

  it("rejects a '/' in a workspace name, saying why, but allows it in an access key name", () => {
    const failures = new CheckFailures();
    checkName(failures, "name", "a/b", "Workspace");
    expect(failures.list).toEqual([
      {
        property: "name",
        reason: expect.stringMatching(
          /^Workspace name must not contain '\/': the API joins workspace names with '\/'/u,
        ) as string,
      },
    ]);
    const keyFailures = new CheckFailures();
    checkName(keyFailures, "name", "a/b", "Access key");
    expect(keyFailures.list).toEqual([]);
  });
});

describe("diffs", () => {
  const key = {
    name: "k",
    type: "SERVICE",
    permissions: { send: ["a"], receive: [], resources: {} },
    adopt: false,
    onDelete: "revoke",
  };

  it("replaces an access key on a new name or type, updates it for permissions", async () => {
    expect(await accessKey.diff("1", key, { ...key, name: "other" })).toMatchObject({
      changes: true,
      replaces: ["name"],
    });
    expect(await accessKey.diff("1", key, { ...key, type: "ACCOUNT" })).toMatchObject({ replaces: ["type"] });
    expect(await accessKey.diff("1", key, { ...key, permissions: { send: ["b"] } })).toMatchObject({
      changes: true,
      replaces: [],
    });
    expect(await accessKey.diff("1", key, { ...key, onDelete: "retain" })).toMatchObject({
      changes: true,
      replaces: [],
    });
    expect(await accessKey.diff("1", key, { ...key })).toMatchObject({ changes: false });
  });

  it("does not treat a missing endpoint (preview without config) as a move", async () => {
    const recorded = { ...key, baseUrl: "https://a.example/v1" };
    expect(await accessKey.diff("1", recorded, key)).toMatchObject({ changes: false });
    expect(await accessKey.diff("1", recorded, { ...key, baseUrl: "https://b.example/v1" })).toMatchObject({
      replaces: ["baseUrl"],
    });
  });

  it("replaces a workspace on a new parent, treating absent and 0 alike", async () => {
    const ws = { name: "w", parentId: 0, adopt: false };
    expect(await workspace.diff("1", ws, { name: "w" })).toMatchObject({ changes: false });
    expect(await workspace.diff("1", ws, { ...ws, parentId: 4 })).toMatchObject({ replaces: ["parentId"] });
    expect(await workspace.diff("1", ws, { ...ws, parentId: UNKNOWN })).toMatchObject({
      replaces: ["parentId"],
    });
  });

  it("rotates a key pair in place on new triggers; a new key replaces it", async () => {
    const pair = { accessKey: "bks_a", rotationTriggers: { q: "1" } };
    expect(await serviceKeyPair.diff("1", pair, { ...pair, rotationTriggers: { q: "2" } })).toMatchObject({
      changes: true,
      replaces: [],
    });
    expect(await serviceKeyPair.diff("1", pair, { ...pair, accessKey: "bks_b" })).toMatchObject({
      replaces: ["accessKey"],
    });
    expect(await serviceKeyPair.diff("1", pair, { ...pair, accessKey: UNKNOWN })).toMatchObject({
      changes: true,
      replaces: [],
    });
    expect(await serviceKeyPair.diff("1", pair, { ...pair })).toMatchObject({ changes: false });
  });
});
