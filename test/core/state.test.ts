/**
 * State that stacks hold today must keep decoding: these fixtures are the property bags exactly as
 * the dynamic providers wrote them before the typed core (outputs with the `__provider` the host
 * adds, checked inputs, the created-but-failed shapes, and state from before `allowEndpointChange`
 * was recorded). Decoding and building again gives the same bag, so no stored property is lost.
 */
import { STACK_SETTING_NAMES } from "../../src/settings/connection";
import { describe, expect, it } from "vitest";
import {
  accessKeyOperations,
  decodeAccessKeyOutputs,
  checkAccessKey,
  diffAccessKey,
} from "../../src/core/access-key";
import { serviceKeyPairOperations, decodeServiceKeyPairOutputs } from "../../src/core/service-key-pair";
import { StateDecodeError, toPropertyBag, type PropertyBag } from "../../src/core/state";
import { NOT_KNOWN, UNKNOWN } from "../../src/core/unknown";
import {
  checkWorkspace,
  workspaceOperations,
  decodeWorkspaceOutputs,
  diffWorkspace,
} from "../../src/core/workspace";

const BASE_URL = "https://broker.example.com/v1";
/** The shim text the serializer stores (shortened; its content does not matter to decoding). */
const PROVIDER =
  'exports.handler = __f0;\nfunction __f0() { return require("pulumi-broker-config/providers/x"); }';

function withoutProvider(bag: PropertyBag): PropertyBag {
  const { __provider: _provider, ...rest } = bag;
  return rest;
}

const workspace = {
  inputs: {
    __provider: PROVIDER,
    name: "orders",
    parentId: 3,
    adopt: false,
    allowEndpointChange: false,
    baseUrl: BASE_URL,
  },
  outputs: {
    name: "orders",
    parentId: 3,
    adopt: false,
    workspaceId: 4,
    path: "/team/orders",
    createdAt: "2026-11-20T10:00:00.000Z",
    adopted: false,
    baseUrl: BASE_URL,
    allowEndpointChange: false,
    __provider: PROVIDER,
  },
  /** Created but not read back: kept with an empty path and createdAt. */
  pending: {
    name: "orders",
    parentId: 3,
    adopt: false,
    workspaceId: 4,
    path: "",
    createdAt: "",
    adopted: false,
    baseUrl: BASE_URL,
    allowEndpointChange: false,
    __provider: PROVIDER,
  },
};

const permissions = { send: ["audit/*", "orders/created"], receive: ["payments/*"], resources: {} };

/** An access key created but whose read-back failed: its outputs but permissions and createdAt. */
const pendingKey = {
  name: "svc",
  type: "SERVICE",
  adopt: false,
  onDelete: "revoke",
  rotationTriggers: {},
  accessKey: "bks_0123456789abcdef",
  accessKeyId: 7,
  adopted: false,
  baseUrl: BASE_URL,
  allowEndpointChange: false,
  publicKey: "MCowBQYDK2VwAyEA",
  privateKey: "MC4CAQAwBQYDK2Vw",
  __provider: PROVIDER,
};

const accessKey = {
  inputs: {
    __provider: PROVIDER,
    name: "svc",
    type: "SERVICE",
    permissions,
    adopt: false,
    onDelete: "revoke",
    rotationTriggers: {},
    allowEndpointChange: false,
    baseUrl: BASE_URL,
  },
  outputs: { ...pendingKey, permissions, createdAt: "2026-11-20T10:00:00.000Z" },
  pending: pendingKey,
  /** What refresh recorded as inputs. */
  readInputs: {
    name: "svc",
    type: "SERVICE",
    permissions,
    adopt: false,
    onDelete: "retain",
    rotationTriggers: {},
    baseUrl: BASE_URL,
    allowEndpointChange: false,
    __provider: PROVIDER,
  },
};

const serviceKeyPair = {
  inputs: {
    __provider: PROVIDER,
    accessKey: "bks_0123456789abcdef",
    rotationTriggers: { q: "1" },
    allowEndpointChange: false,
    baseUrl: BASE_URL,
  },
  outputs: {
    accessKey: "bks_0123456789abcdef",
    rotationTriggers: { q: "1" },
    accessKeyId: 7,
    publicKey: "MCowBQYDK2VwAyEA",
    privateKey: "MC4CAQAwBQYDK2Vw",
    rotatedAt: "2026-11-20T10:00:00.000Z",
    baseUrl: BASE_URL,
    allowEndpointChange: false,
    __provider: PROVIDER,
  },
};

describe("today's state decodes, and builds back to the same bag", () => {
  it.each([
    ["workspace outputs", decodeWorkspaceOutputs, workspace.outputs],
    ["workspace created but not read back", decodeWorkspaceOutputs, workspace.pending],
    ["workspace inputs", workspaceOperations.decodeInputs, workspace.inputs],
    ["access key outputs", decodeAccessKeyOutputs, accessKey.outputs],
    ["access key created but not read back", decodeAccessKeyOutputs, accessKey.pending],
    ["access key inputs", accessKeyOperations.decodeInputs, accessKey.inputs],
    ["access key inputs recorded by refresh", accessKeyOperations.decodeInputs, accessKey.readInputs],
    ["service key pair outputs", decodeServiceKeyPairOutputs, serviceKeyPair.outputs],
    ["service key pair inputs", serviceKeyPairOperations.decodeInputs, serviceKeyPair.inputs],
  ] as const)("%s", (_name, decode: (bag: PropertyBag) => object, bag) => {
    expect(toPropertyBag(decode(bag))).toEqual(withoutProvider(bag));
  });

  it("fills what state from before `allowEndpointChange` was recorded leaves out", () => {
    const { allowEndpointChange: _w, ...oldWorkspace } = workspace.outputs;
    expect(decodeWorkspaceOutputs(oldWorkspace).allowEndpointChange).toBe(false);
    const { allowEndpointChange: _k, adopt: _a, onDelete: _o, adopted: _d, ...oldKey } = accessKey.outputs;
    expect(decodeAccessKeyOutputs(oldKey)).toMatchObject({
      allowEndpointChange: false,
      adopt: false,
      rotationTriggers: {},
      adopted: false,
    });
    // No `onDelete` recorded: a destroy does what the model says for a key created (not adopted).
    expect(decodeAccessKeyOutputs(oldKey)).not.toHaveProperty("onDelete");
    const { allowEndpointChange: _p, ...oldPair } = serviceKeyPair.outputs;
    expect(decodeServiceKeyPairOutputs(oldPair).allowEndpointChange).toBe(false);
  });

  it("names the property when state is not what it should be", () => {
    const bad = { ...accessKey.outputs, permissions: { send: ["a/b", 3] } };
    expect(() => decodeAccessKeyOutputs(bad)).toThrow(StateDecodeError);
    expect(() => decodeAccessKeyOutputs(bad)).toThrow(
      /Access key: property `permissions.send\[1\]` must be an event path string, got number 3/u,
    );
    expect(() => decodeWorkspaceOutputs({ ...workspace.outputs, workspaceId: "x" })).toThrow(
      /`workspaceId` must be a non-negative integer/u,
    );
    expect(() => accessKeyOperations.decodeInputs({ ...accessKey.inputs, name: UNKNOWN })).toThrow(
      /`name` is not known yet/u,
    );
  });

  it("a pending access key diffs its missing permissions as added entries", () => {
    const diff = diffAccessKey(
      accessKeyOperations.decodeInputs(accessKey.pending),
      accessKeyOperations.decodeInputs(accessKey.inputs),
    );
    expect(diff.changed).toEqual(["permissions"]);
    expect(diff.permissions).toEqual({
      send: { added: ["audit/*", "orders/created"], removed: [] },
      receive: { added: ["payments/*"], removed: [] },
      resources: false,
    });
  });
});

describe("detailed diffs", () => {
  const old = accessKeyOperations.decodeInputs(accessKey.inputs);

  it("lists replacing properties in a stable order, each with its kind", () => {
    const diff = diffAccessKey(
      old,
      accessKeyOperations.decodeProposedInputs({
        ...accessKey.inputs,
        name: "other",
        type: "ACCOUNT",
        baseUrl: "https://b.example/v1",
      }),
    );
    expect(diff).toMatchObject({
      changes: true,
      replaces: ["name", "type", "baseUrl"],
      changed: ["name", "type", "baseUrl"],
    });
    expect(diff.details.every((d) => d.replace && d.kind === "update")).toBe(true);
    // State recorded without an endpoint (a preview without settings) is not a move.
    const { baseUrl: _recorded, ...withoutEndpoint } = old;
    const recorded = diffAccessKey(
      withoutEndpoint,
      accessKeyOperations.decodeProposedInputs(accessKey.inputs),
    );
    expect(recorded.changes).toBe(false);
  });

  it("names a changed resources object and settings that only the stack holds", () => {
    const diff = diffAccessKey(
      old,
      accessKeyOperations.decodeProposedInputs({
        ...accessKey.inputs,
        permissions: { ...permissions, resources: { queue: "x" } },
        onDelete: "retain",
        rotationTriggers: {},
      }),
    );
    expect(diff.replaces).toEqual([]);
    expect(diff.details).toEqual([
      { path: "permissions.resources", kind: "update", replace: false },
      { path: "onDelete", kind: "update", replace: false },
    ]);
    expect(diff.permissions).toEqual({
      send: { added: [], removed: [] },
      receive: { added: [], removed: [] },
      resources: true,
    });
  });
});

describe("values not known yet (preview)", () => {
  const preview = { configuredBaseUrl: () => undefined, settingNames: STACK_SETTING_NAMES };

  it("check keeps them as NOT_KNOWN, filling defaults around them", () => {
    const result = checkAccessKey(
      preview,
      { name: UNKNOWN, type: "SERVICE", permissions: { send: [UNKNOWN], receive: UNKNOWN } },
      undefined,
    );
    expect(result).toEqual({
      failures: [],
      inputs: {
        name: NOT_KNOWN,
        type: "SERVICE",
        permissions: NOT_KNOWN,
        adopt: false,
        rotationTriggers: {},
        allowEndpointChange: false,
      },
    });
    expect(toPropertyBag(result.inputs ?? {})).toEqual({
      type: "SERVICE",
      adopt: false,
      rotationTriggers: {},
      allowEndpointChange: false,
    });
  });

  it("diff counts an unknown as a change of the whole property, replacing where a known change would", () => {
    const old = workspaceOperations.decodeInputs(workspace.inputs);
    const diff = diffWorkspace(
      old,
      workspaceOperations.decodeProposedInputs({ ...workspace.inputs, parentId: UNKNOWN, baseUrl: UNKNOWN }),
    );
    expect(diff).toMatchObject({ replaces: ["parentId", "baseUrl"], changed: ["parentId", "baseUrl"] });
    const keyDiff = diffAccessKey(
      accessKeyOperations.decodeInputs(accessKey.inputs),
      accessKeyOperations.decodeProposedInputs({ ...accessKey.inputs, permissions: { send: [UNKNOWN] } }),
    );
    expect(keyDiff.details).toEqual([{ path: "permissions", kind: "update", replace: false }]);
    expect(keyDiff.permissions).toBeUndefined();
  });

  it("a check without configured endpoint records none, and diff then sees no move", () => {
    const result = checkWorkspace(preview, { name: "team" }, undefined);
    expect(result.inputs).toEqual({ name: "team", parentId: 0, adopt: false, allowEndpointChange: false });
  });
});
