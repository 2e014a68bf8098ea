import { describe, expect, it } from "vitest";
import type { ExportedStack, StateResource } from "../../src/cli/migrate-state";
import {
  matchCandidate,
  ownedIds,
  pendingCreates,
  recoveredResource,
  recoveredState,
  revealed,
  type Candidate,
  type PendingCreate,
  type PendingOperation,
  type Recovered,
} from "../../src/cli/recover-plan";

/**
 * The pure rules of `broker-config recover` (src/cli/recover-plan.ts), on small `pulumi stack
 * export` documents written out here: which pending creates are this package's (both doors), which
 * ids the stack already owns, which object on the broker a pending create made, and how the state is
 * rewritten (the recovered resource with its secrets marked, the resolved pending creates gone, every
 * other pending operation kept). No Pulumi CLI, no broker, no clock.
 */

/** The marker of a secret in an exported deployment, as `pulumi stack export` writes it. */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SIG_VALUE = "1b47061264138c4ac30d75fd1eb44270";

/** A secret as an export made with `--show-secrets` holds it. */
const shownSecret = (value: unknown): Record<string, unknown> => ({
  [SIG_KEY]: SIG_VALUE,
  plaintext: JSON.stringify(value),
});
/** A secret as an export made without `--show-secrets` holds it. */
const encryptedSecret = (ciphertext: string): Record<string, unknown> => ({
  [SIG_KEY]: SIG_VALUE,
  ciphertext,
});

const BASE = "urn:pulumi:dev::shop";
const BASE_URL = "https://broker.example.com/v1";
const OTHER_URL = "https://broker.staging.example.com/v1";
const CODE = "exports.handler = __f0; require('pulumi-broker-config/providers/access-key')";
const STACK_URN = `${BASE}::pulumi:pulumi:Stack::shop-dev`;
const NATIVE_PROVIDER_REF = `${BASE}::pulumi:providers:broker::default_0_1_0::prov-1`;
const DYNAMIC_PROVIDER_REF = `${BASE}::pulumi:providers:pulumi-nodejs::default::prov-2`;

/** The type tokens the engine records for this package's resources, spelled out. */
const NATIVE = {
  Workspace: "broker:index:Workspace",
  AccessKey: "broker:index:AccessKey",
  ServiceKeyPair: "broker:index:ServiceKeyPair",
} as const;
const DYNAMIC = {
  Workspace: "pulumi-nodejs:dynamic/broker:Workspace",
  AccessKey: "pulumi-nodejs:dynamic/broker:AccessKey",
  ServiceKeyPair: "pulumi-nodejs:dynamic/broker:ServiceKeyPair",
} as const;

const urnOf = (type: string, name: string): string => `${BASE}::${type}::${name}`;

/** A custom resource of `type` named `name`, as a state or pending operation records it. */
function resource(type: string, name: string, fields: Partial<StateResource> = {}): StateResource {
  return { urn: urnOf(type, name), type, custom: true, parent: STACK_URN, ...fields };
}

const creating = (res: StateResource): PendingOperation => ({ type: "creating", resource: res });

function exportOf(resources: StateResource[], pending?: PendingOperation[]): ExportedStack {
  return {
    version: 3,
    deployment: {
      manifest: { time: "2026-01-01T00:00:00Z", version: "v3.274.0" },
      secrets_providers: { type: "passphrase" },
      resources,
      ...(pending === undefined ? {} : { pending_operations: pending }),
    },
  };
}

const stackResource: StateResource = { urn: STACK_URN, type: "pulumi:pulumi:Stack", custom: false };

/** The pending create of `pendingCreates` for `res` (the one thing of `ours` it finds). */
function onlyPendingCreate(res: StateResource): PendingCreate {
  const { ours } = pendingCreates(exportOf([stackResource], [creating(res)]));
  expect(ours).toHaveLength(1);
  return ours[0]!;
}

describe("pendingCreates", () => {
  it.each([
    ["Workspace", "native", NATIVE.Workspace],
    ["AccessKey", "native", NATIVE.AccessKey],
    ["ServiceKeyPair", "native", NATIVE.ServiceKeyPair],
    ["Workspace", "dynamic", DYNAMIC.Workspace],
    ["AccessKey", "dynamic", DYNAMIC.AccessKey],
    ["ServiceKeyPair", "dynamic", DYNAMIC.ServiceKeyPair],
  ])("finds a pending create of a %s of the %s door (%s)", (kind, door, type) => {
    const inputs = { name: "orders", baseUrl: BASE_URL };
    const provider = door === "native" ? NATIVE_PROVIDER_REF : DYNAMIC_PROVIDER_REF;
    const pending = resource(type, "orders-res", { inputs, provider });
    const { ours, others } = pendingCreates(exportOf([stackResource], [creating(pending)]));
    expect(others).toEqual([]);
    expect(ours).toEqual([
      {
        urn: urnOf(type, "orders-res"),
        resourceName: "orders-res",
        kind,
        door,
        inputs,
        baseUrl: BASE_URL,
        provider,
        resource: pending,
      },
    ]);
  });

  it("names the resource by the last part of its URN, also under a component parent", () => {
    const nested = {
      ...resource(NATIVE.AccessKey, "ignored"),
      urn: `${BASE}::broker:index:BrokerConfig$broker:index:AccessKey::cfg-orders-svc`,
    };
    expect(onlyPendingCreate(nested).resourceName).toBe("cfg-orders-svc");
  });

  it("gives no endpoint when the create recorded none (or no string), and empty inputs when it had none", () => {
    expect(
      onlyPendingCreate(resource(NATIVE.Workspace, "w", { inputs: { name: "w" } })).baseUrl,
    ).toBeUndefined();
    expect(
      onlyPendingCreate(resource(NATIVE.Workspace, "w", { inputs: { baseUrl: shownSecret(BASE_URL) } }))
        .baseUrl,
    ).toBeUndefined();
    const bare = onlyPendingCreate(resource(DYNAMIC.AccessKey, "k"));
    expect(bare.inputs).toEqual({});
    expect(bare.baseUrl).toBeUndefined();
    expect(bare.provider).toBeUndefined();
  });

  it("keeps the pending operations that are no create of a broker resource as others, in order", () => {
    const operations: PendingOperation[] = [
      creating(resource("random:index/randomPassword:RandomPassword", "pw")),
      { type: "updating", resource: resource(NATIVE.AccessKey, "updated", { id: "4" }) },
      creating(resource(NATIVE.AccessKey, "orders-svc", { inputs: { name: "orders-svc", type: "SERVICE" } })),
      { type: "deleting", resource: resource(DYNAMIC.Workspace, "gone", { id: "9" }) },
      creating(resource("pulumi-nodejs:dynamic:Resource", "some-dynamic")),
      creating(resource("pulumi-nodejs:dynamic/other:Workspace", "other-module")),
      { type: "reading", resource: resource(DYNAMIC.ServiceKeyPair, "read", { id: "5" }) },
      { type: "importing", resource: resource(NATIVE.Workspace, "imported", { id: "6" }) },
      creating(resource(DYNAMIC.Workspace, "platform", { inputs: { name: "platform" } })),
    ];
    const { ours, others } = pendingCreates(exportOf([stackResource], operations));
    expect(ours.map((create) => [create.kind, create.door, create.resourceName])).toEqual([
      ["AccessKey", "native", "orders-svc"],
      ["Workspace", "dynamic", "platform"],
    ]);
    expect(others).toEqual([
      operations[0],
      operations[1],
      operations[3],
      operations[4],
      operations[5],
      operations[6],
      operations[7],
    ]);
  });

  it("finds nothing in a deployment without pending operations", () => {
    expect(pendingCreates(exportOf([stackResource]))).toEqual({ ours: [], others: [] });
    expect(pendingCreates(exportOf([stackResource], []))).toEqual({ ours: [], others: [] });
  });
});

describe("ownedIds", () => {
  const resources: StateResource[] = [
    stackResource,
    {
      urn: NATIVE_PROVIDER_REF.slice(0, NATIVE_PROVIDER_REF.lastIndexOf("::")),
      type: "pulumi:providers:broker",
      id: "prov-1",
    },
    resource(NATIVE.AccessKey, "native-key", { id: "3", outputs: { baseUrl: BASE_URL } }),
    resource(DYNAMIC.AccessKey, "dynamic-key", { id: "7", outputs: { __provider: CODE, baseUrl: BASE_URL } }),
    resource(NATIVE.AccessKey, "unrecorded-endpoint-key", { id: "11" }),
    resource(NATIVE.AccessKey, "staging-key", { id: "21", outputs: { baseUrl: OTHER_URL } }),
    resource(NATIVE.AccessKey, "no-id-yet"),
    resource(NATIVE.Workspace, "platform", { id: "1", outputs: { baseUrl: BASE_URL } }),
    resource(DYNAMIC.Workspace, "orders", { id: "2", outputs: { baseUrl: BASE_URL } }),
    resource(NATIVE.ServiceKeyPair, "pair", { id: "3", outputs: { baseUrl: BASE_URL } }),
    resource("random:index/randomInteger:RandomInteger", "n", { id: "8" }),
  ];
  const exported = exportOf(resources);

  it("gives the ids of the resources of the kind from both doors, as numbers", () => {
    expect([...ownedIds(exported, "AccessKey", BASE_URL)].sort((a, b) => a - b)).toEqual([3, 7, 11]);
    expect([...ownedIds(exported, "Workspace", BASE_URL)].sort((a, b) => a - b)).toEqual([1, 2]);
    expect([...ownedIds(exported, "ServiceKeyPair", BASE_URL)]).toEqual([3]);
  });

  it("leaves out the resources recorded at another endpoint, and counts them all when the endpoint is not known", () => {
    expect(ownedIds(exported, "AccessKey", BASE_URL).has(21)).toBe(false);
    expect([...ownedIds(exported, "AccessKey", OTHER_URL)].sort((a, b) => a - b)).toEqual([11, 21]);
    expect([...ownedIds(exported, "AccessKey", undefined)].sort((a, b) => a - b)).toEqual([3, 7, 11, 21]);
  });

  it("is empty for a deployment without resources", () => {
    expect(ownedIds({ version: 3, deployment: {} }, "AccessKey", BASE_URL).size).toBe(0);
  });
});

describe("matchCandidate", () => {
  const none = new Set<number>();

  describe("of an access key (name and type)", () => {
    const inputs = { name: "orders-svc", type: "SERVICE", __provider: CODE };
    const keys: Candidate[] = [
      { id: 1, name: "billing-svc", type: "SERVICE" },
      { id: 2, name: "orders-svc", type: "ACCOUNT" },
      { id: 5, name: "orders-svc", type: "SERVICE" },
      { id: 6, name: "Orders-svc", type: "SERVICE" },
    ];

    it("finds the one key of the create's name and type", () => {
      expect(matchCandidate("AccessKey", inputs, keys, none)).toEqual({ outcome: "found", id: 5 });
    });

    it("says absent when no key has the name and type (the create never reached the broker)", () => {
      expect(matchCandidate("AccessKey", inputs, [], none)).toEqual({ outcome: "absent" });
      expect(
        matchCandidate(
          "AccessKey",
          inputs,
          keys.filter((key) => key.id !== 5),
          none,
        ),
      ).toEqual({ outcome: "absent" });
    });

    it("with the intent the provider recorded, takes only a key made since it, so an older namesake does not make it ambiguous", () => {
      const twice: Candidate[] = [
        { id: 3, name: "orders-svc", type: "SERVICE", createdAt: "2026-11-27T09:00:00.000Z" },
        { id: 5, name: "orders-svc", type: "SERVICE", createdAt: "2026-11-27T10:00:01.000Z" },
      ];
      const sent = Date.parse("2026-11-27T10:00:00.000Z");
      expect(matchCandidate("AccessKey", inputs, twice, none, sent)).toEqual({ outcome: "found", id: 5 });
      expect(matchCandidate("AccessKey", inputs, twice, none)).toEqual({ outcome: "ambiguous", ids: [3, 5] });
    });

    it("refuses to choose between two matching keys and names both, in id order", () => {
      const twice: Candidate[] = [...keys, { id: 3, name: "orders-svc", type: "SERVICE" }];
      expect(matchCandidate("AccessKey", inputs, twice, none)).toEqual({ outcome: "ambiguous", ids: [3, 5] });
    });

    it("takes the key with the create's permissions, not a revoked or hand-made key of the same name", () => {
      const declared = { ...inputs, permissions: { send: ["orders/*", "audit"], receive: [] } };
      const revoked: Candidate = {
        id: 3,
        name: "orders-svc",
        type: "SERVICE",
        permissions: { send: [], receive: [] },
      };
      const made: Candidate = {
        id: 7,
        name: "orders-svc",
        type: "SERVICE",
        permissions: { send: ["audit", "orders/*"], receive: [] },
      };
      expect(matchCandidate("AccessKey", declared, [revoked, made], none)).toEqual({
        outcome: "found",
        id: 7,
      });
      // Only the revoked key is there: the create never reached the broker.
      expect(matchCandidate("AccessKey", declared, [revoked], none)).toEqual({ outcome: "absent" });
    });

    it("refuses to match when the export does not show the create's name or type", () => {
      expect(matchCandidate("AccessKey", { ...inputs, name: undefined }, keys, none)).toEqual({
        outcome: "unreadable",
        input: "name",
      });
      expect(matchCandidate("AccessKey", { name: "orders-svc" }, keys, none)).toEqual({
        outcome: "unreadable",
        input: "type",
      });
      expect(
        matchCandidate("Workspace", { name: "orders", parentId: { ciphertext: "x" } }, [], none),
      ).toEqual({ outcome: "unreadable", input: "parentId" });
    });

    it("never takes a key a resource owns", () => {
      const twice: Candidate[] = [...keys, { id: 3, name: "orders-svc", type: "SERVICE" }];
      expect(matchCandidate("AccessKey", inputs, twice, new Set([3]))).toEqual({ outcome: "found", id: 5 });
      expect(matchCandidate("AccessKey", inputs, keys, new Set([5]))).toEqual({ outcome: "absent" });
    });
  });

  describe("of a workspace (name and parent)", () => {
    const workspaces: Candidate[] = [
      { id: 10, name: "orders", parentId: 0 },
      { id: 11, name: "orders", parentId: 4 },
      { id: 12, name: "payments", parentId: 4 },
    ];

    it("finds the one workspace of the create's name under its parent", () => {
      expect(matchCandidate("Workspace", { name: "orders", parentId: 4 }, workspaces, none)).toEqual({
        outcome: "found",
        id: 11,
      });
    });

    it("takes a create without parentId for one at the top (parent 0 or none recorded)", () => {
      expect(matchCandidate("Workspace", { name: "orders" }, workspaces, none)).toEqual({
        outcome: "found",
        id: 10,
      });
      expect(matchCandidate("Workspace", { name: "orders" }, [{ id: 13, name: "orders" }], none)).toEqual({
        outcome: "found",
        id: 13,
      });
    });

    it("says absent when no workspace of the name sits under the parent", () => {
      expect(matchCandidate("Workspace", { name: "orders", parentId: 7 }, workspaces, none)).toEqual({
        outcome: "absent",
      });
    });

    it("refuses to choose between two matching workspaces and names both", () => {
      const twice: Candidate[] = [{ id: 14, name: "orders", parentId: 4 }, ...workspaces];
      expect(matchCandidate("Workspace", { name: "orders", parentId: 4 }, twice, none)).toEqual({
        outcome: "ambiguous",
        ids: [11, 14],
      });
    });

    it("never takes a workspace a resource owns", () => {
      const twice: Candidate[] = [{ id: 14, name: "orders", parentId: 4 }, ...workspaces];
      expect(matchCandidate("Workspace", { name: "orders", parentId: 4 }, twice, new Set([11]))).toEqual({
        outcome: "found",
        id: 14,
      });
      expect(matchCandidate("Workspace", { name: "orders" }, workspaces, new Set([10]))).toEqual({
        outcome: "absent",
      });
    });
  });

  it("with ownedIds: a key the stack owns at the endpoint is no candidate, one owned at another endpoint is", () => {
    const exported = exportOf(
      [
        stackResource,
        resource(DYNAMIC.AccessKey, "orders-svc-old", {
          id: "5",
          outputs: { __provider: CODE, baseUrl: BASE_URL },
        }),
        resource(DYNAMIC.AccessKey, "staging", {
          id: "8",
          outputs: { __provider: CODE, baseUrl: OTHER_URL },
        }),
      ],
      [
        creating(
          resource(DYNAMIC.AccessKey, "orders-svc", { inputs: { name: "orders-svc", type: "SERVICE" } }),
        ),
      ],
    );
    const [pending] = pendingCreates(exported).ours;
    const candidates: Candidate[] = [
      { id: 5, name: "orders-svc", type: "SERVICE" },
      { id: 8, name: "orders-svc", type: "SERVICE" },
    ];
    expect(
      matchCandidate("AccessKey", pending!.inputs, candidates, ownedIds(exported, "AccessKey", BASE_URL)),
    ).toEqual({
      outcome: "found",
      id: 8,
    });
  });
});

describe("revealed", () => {
  it("unwraps a secret of an export made with --show-secrets", () => {
    expect(revealed(shownSecret("AK-123"))).toBe("AK-123");
    expect(revealed(shownSecret(42))).toBe(42);
    expect(revealed(shownSecret({ send: ["a/b"] }))).toEqual({ send: ["a/b"] });
  });

  it("gives undefined for a secret still encrypted", () => {
    expect(revealed(encryptedSecret("v1:abc"))).toBeUndefined();
  });

  it("gives any other value as it is", () => {
    const lookalike = { [SIG_KEY]: "not-the-signature", plaintext: '"x"' };
    expect(revealed(lookalike)).toBe(lookalike);
    expect(revealed("plain")).toBe("plain");
    expect(revealed(7)).toBe(7);
    expect(revealed(null)).toBeNull();
    expect(revealed(undefined)).toBeUndefined();
  });
});

/** `pending` recovered as the key `orders-svc` of `type`, found with id `id` and value `accessKey`. */
function recoveredOrdersSvc(pending: PendingCreate, id: number, type: string, accessKey: string): Recovered {
  return {
    pending,
    id,
    inputs: { name: "orders-svc", type },
    outputs: { name: "orders-svc", accessKeyId: id, accessKey },
  };
}

/** The inputs and outputs read back for the key `orders-svc` (id 5) that {@link recoveredKey} recovers. */
const ORDERS_SVC_INPUTS = { name: "orders-svc", type: "SERVICE", baseUrl: BASE_URL, onDelete: "revoke" };
const ORDERS_SVC_OUTPUTS = {
  name: "orders-svc",
  type: "SERVICE",
  baseUrl: BASE_URL,
  accessKeyId: 5,
  accessKey: "AK-SECRET",
  publicKey: "PUB",
  privateKey: "PRIV",
};

/** A pending create of an access key `orders-svc` through `door`, and the state read for id 5. */
function recoveredKey(door: "native" | "dynamic", fields: Partial<StateResource> = {}): Recovered {
  const type = door === "native" ? NATIVE.AccessKey : DYNAMIC.AccessKey;
  const pendingInputs: Record<string, unknown> = { name: "orders-svc", type: "SERVICE", baseUrl: BASE_URL };
  if (door === "dynamic") pendingInputs.__provider = CODE;
  const pending = onlyPendingCreate(
    resource(type, "orders-svc", {
      inputs: pendingInputs,
      provider: door === "native" ? NATIVE_PROVIDER_REF : DYNAMIC_PROVIDER_REF,
      dependencies: [urnOf(type, "platform")],
      ...fields,
    }),
  );
  return { pending, id: 5, inputs: ORDERS_SVC_INPUTS, outputs: ORDERS_SVC_OUTPUTS };
}

describe("recoveredResource", () => {
  it("records the object's id, the inputs read, and the secret outputs as secrets of the export", () => {
    const recovered = recoveredKey("native");
    const recorded = recoveredResource(recovered);
    expect(recorded).toEqual({
      urn: urnOf(NATIVE.AccessKey, "orders-svc"),
      type: NATIVE.AccessKey,
      custom: true,
      parent: STACK_URN,
      provider: NATIVE_PROVIDER_REF,
      dependencies: [urnOf(NATIVE.AccessKey, "platform")],
      id: "5",
      inputs: ORDERS_SVC_INPUTS,
      outputs: {
        ...ORDERS_SVC_OUTPUTS,
        accessKey: shownSecret("AK-SECRET"),
        privateKey: shownSecret("PRIV"),
      },
    });
    expect(revealed(recorded.outputs?.accessKey)).toBe("AK-SECRET");
  });

  it("leaves the recovered record itself as it was", () => {
    const recovered = recoveredKey("native");
    const before = structuredClone(recovered);
    recoveredResource(recovered);
    expect(recovered).toEqual(before);
  });

  it("gives a dynamic resource its provider's code in inputs and outputs, secrets marked the same", () => {
    const recorded = recoveredResource(recoveredKey("dynamic"));
    expect(recorded.type).toBe(DYNAMIC.AccessKey);
    expect(recorded.inputs?.__provider).toBe(CODE);
    expect(recorded.outputs?.__provider).toBe(CODE);
    expect(recorded.outputs?.accessKey).toEqual(shownSecret("AK-SECRET"));
    expect(recorded.outputs?.privateKey).toEqual(shownSecret("PRIV"));
    expect(recorded.outputs?.accessKeyId).toBe(5);
  });

  it("gives a native resource no provider code", () => {
    const recorded = recoveredResource(recoveredKey("native"));
    expect(recorded.inputs).not.toHaveProperty("__provider");
    expect(recorded.outputs).not.toHaveProperty("__provider");
  });

  it("does not wrap an output that is a secret already", () => {
    const recovered = recoveredKey("native");
    const already = shownSecret("AK-SECRET");
    const recorded = recoveredResource({
      ...recovered,
      outputs: { ...recovered.outputs, accessKey: already },
    });
    expect(recorded.outputs?.accessKey).toEqual(already);
  });

  it("keeps the outputs of a workspace in plain text, except those the resource asked to keep secret", () => {
    const outputs = {
      name: "orders",
      parentId: 4,
      workspaceId: 11,
      path: "/platform/orders",
      baseUrl: BASE_URL,
    };
    const plain = onlyPendingCreate(
      resource(NATIVE.Workspace, "orders", { inputs: { name: "orders", parentId: 4 } }),
    );
    expect(
      recoveredResource({ pending: plain, id: 11, inputs: { name: "orders", parentId: 4 }, outputs }).outputs,
    ).toEqual(outputs);
    const asked = onlyPendingCreate(
      resource(DYNAMIC.Workspace, "orders", {
        inputs: { name: "orders", parentId: 4, __provider: CODE },
        additionalSecretOutputs: ["path", 7],
      }),
    );
    expect(
      recoveredResource({ pending: asked, id: 11, inputs: { name: "orders", parentId: 4 }, outputs }).outputs,
    ).toEqual({ ...outputs, path: shownSecret("/platform/orders"), __provider: CODE });
  });
});

describe("recoveredState", () => {
  const platform = resource(NATIVE.Workspace, "platform", { id: "1", outputs: { baseUrl: BASE_URL } });

  /** A stack killed with three pending creates of ours and two other pending operations. */
  function killedStack(): { exported: ExportedStack; operations: PendingOperation[] } {
    const operations: PendingOperation[] = [
      creating(resource("random:index/randomPassword:RandomPassword", "pw")),
      creating(resource(NATIVE.AccessKey, "orders-svc", { inputs: { name: "orders-svc", type: "SERVICE" } })),
      creating(resource(NATIVE.ServiceKeyPair, "orders-pair", { inputs: { accessKey: shownSecret("AK") } })),
      { type: "updating", resource: resource(NATIVE.Workspace, "platform", { id: "1" }) },
      creating(
        resource(NATIVE.AccessKey, "billing-svc", { inputs: { name: "billing-svc", type: "SERVICE" } }),
      ),
    ];
    return { exported: exportOf([stackResource, platform], operations), operations };
  }

  it("records the recovered creates after the resources, drops the resolved pending creates, keeps every other operation", () => {
    const { exported, operations } = killedStack();
    const [ordersKey] = pendingCreates(exported).ours;
    const recovered = recoveredOrdersSvc(ordersKey!, 5, "SERVICE", "AK-SECRET");
    // orders-svc recovered, orders-pair dropped, billing-svc left for the user.
    const resolved = new Set([ordersKey!.urn, urnOf(NATIVE.ServiceKeyPair, "orders-pair")]);
    const written = recoveredState(exported, [recovered], resolved);

    expect(written.deployment.resources).toEqual([stackResource, platform, recoveredResource(recovered)]);
    expect(written.deployment.resources?.[2]?.outputs?.accessKey).toEqual(shownSecret("AK-SECRET"));
    expect(written.deployment.pending_operations).toEqual([operations[0], operations[3], operations[4]]);
  });

  it("finishes a replacement the kill interrupted: the old object is marked for deletion beside the new one", () => {
    const old = resource(NATIVE.AccessKey, "orders-svc", { id: "4", outputs: { baseUrl: BASE_URL } });
    const pendingNew = resource(NATIVE.AccessKey, "orders-svc", {
      inputs: { name: "orders-svc", type: "ACCOUNT" },
    });
    const exported = exportOf([stackResource, old], [creating(pendingNew)]);
    const [replacement] = pendingCreates(exported).ours;
    const recovered = recoveredOrdersSvc(replacement!, 9, "ACCOUNT", "AK-NEW");
    const written = recoveredState(exported, [recovered], new Set([replacement!.urn]));
    expect(written.deployment.resources).toEqual([
      stackResource,
      { ...old, delete: true },
      recoveredResource(recovered),
    ]);
    expect(written.deployment.pending_operations).toEqual([]);
  });

  it("keeps a pending operation other than a create even when its URN is resolved", () => {
    const { exported, operations } = killedStack();
    const written = recoveredState(exported, [], new Set([urnOf(NATIVE.Workspace, "platform")]));
    expect(written.deployment.pending_operations).toEqual(operations);
    expect(written.deployment.resources).toEqual([stackResource, platform]);
  });

  it("keeps the rest of the export and leaves the given export unchanged", () => {
    const { exported } = killedStack();
    const before = structuredClone(exported);
    const [ordersKey] = pendingCreates(exported).ours;
    const written = recoveredState(
      exported,
      [{ pending: ordersKey!, id: 5, inputs: {}, outputs: {} }],
      new Set([ordersKey!.urn]),
    );
    expect(exported).toEqual(before);
    expect(written.version).toBe(3);
    expect(written.deployment.manifest).toEqual(before.deployment.manifest);
    expect(written.deployment.secrets_providers).toEqual(before.deployment.secrets_providers);
  });

  it("writes an export without resources or pending operations as one with empty lists", () => {
    const written = recoveredState({ version: 3, deployment: {} }, [], new Set());
    expect(written).toEqual({ version: 3, deployment: { resources: [], pending_operations: [] } });
  });
});
