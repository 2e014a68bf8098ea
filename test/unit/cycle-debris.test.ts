import { describe, expect, it } from "vitest";
import { debrisOf, type HeldObject } from "../reliability/support/debris";
import type { Spec } from "../reliability/support/spec";

// What the interrupted-run files remove from the broker after a cycle (test/reliability/support/
// cycle-stack.ts, settleCycle), so that one failed cycle does not fail every later one (issue #50).

const key = (name: string): Spec["keys"][number] => ({
  name,
  type: "SERVICE",
  permissions: { send: [`${name}/out`], receive: [] },
});

/** Cycle 1 converged: `platform`, cycle 0's pair key, cycle 1's workspace and keys. */
const declared: Spec = {
  workspaces: [{ name: "platform" }, { name: "c1-orders", parent: "platform" }],
  keys: [key("c0-00"), key("c1-00"), key("c1-01")],
  pairs: [{ key: "c0-00" }, { key: "c1-00" }],
};

const keysHeld: HeldObject[] = [
  { id: 2, name: "c0-00" },
  { id: 5, name: "c1-00" },
  { id: 6, name: "c1-01" },
];
const workspacesHeld: HeldObject[] = [
  { id: 1, name: "platform", parentId: 0 },
  { id: 3, name: "c1-orders", parentId: 1 },
];
const tracked = {
  keys: { "c0-00": 2, "c1-00": 5, "c1-01": 6 },
  workspaces: { platform: 1, "c1-orders": 3 },
};

describe("the debris a cycle leaves on the broker", () => {
  it("is nothing when the broker holds exactly what the stack declares and tracks", () => {
    expect(debrisOf({ keys: keysHeld, workspaces: workspacesHeld }, declared, tracked)).toEqual({
      keys: [],
      workspaces: [],
    });
  });

  it("holds the cycle before's objects a failed cycle never dropped, though the stack still tracks them", () => {
    const held = {
      keys: [...keysHeld, { id: 3, name: "c0-01" }],
      workspaces: [...workspacesHeld, { id: 2, name: "c0-orders", parentId: 1 }],
    };
    const stillTracked = {
      keys: { ...tracked.keys, "c0-01": 3 },
      workspaces: { ...tracked.workspaces, "c0-orders": 2 },
    };
    expect(debrisOf(held, declared, stillTracked)).toEqual({ keys: [3], workspaces: [2] });
  });

  it("holds a declared name's key the stack does not track: a second key of the name, or one nobody recorded", () => {
    const held = { keys: [...keysHeld, { id: 9, name: "c1-01" }], workspaces: workspacesHeld };
    expect(debrisOf(held, declared, tracked).keys).toEqual([9]);
    const { "c1-01": _forgotten, ...recorded } = tracked.keys;
    expect(
      debrisOf({ keys: keysHeld, workspaces: workspacesHeld }, declared, { ...tracked, keys: recorded }).keys,
    ).toEqual([6]);
  });

  it("names a workspace once with its descendants, which its removal takes along", () => {
    const held = {
      keys: keysHeld,
      workspaces: [
        ...workspacesHeld,
        { id: 7, name: "c0-orders", parentId: 1 },
        { id: 8, name: "c0-eu", parentId: 7 },
        { id: 9, name: "c0-eu-west", parentId: 8 },
      ],
    };
    expect(debrisOf(held, declared, tracked).workspaces).toEqual([7]);
  });
});
