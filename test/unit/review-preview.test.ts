/**
 * The access review of `pulumi preview --json` output (`reviewPreview`): every op the engine shows,
 * both doors' type tokens, component children, secrets and unknowns, workspace moves, the drift of
 * `preview --refresh`, and each kind of bad input refused in one line. The previews are built in the
 * shape CLI 3.259 prints (`pkg/backend/display/json.go`); test/fixtures/preview/ holds real ones.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { isReviewInputError } from "../../src/review/errors";
import { readDocument } from "../../src/review/documents";
import { reviewDocuments, reviewPreview } from "../../src/review/review";
import type { AccessChange, KeyChange } from "../../src/review/report";
import { expectDriftScenarioReview } from "../support/drift-review";

const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const STACK = "urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev";
const NATIVE_KEY = "broker:index:AccessKey";
const DYNAMIC_KEY = "pulumi-nodejs:dynamic/broker:AccessKey";

const urn = (type: string, name: string): string => `urn:pulumi:dev::proj::${type}::${name}`;

interface KeyInputs {
  name?: unknown;
  type?: unknown;
  permissions?: unknown;
  onDelete?: string;
  rotationTriggers?: Record<string, string>;
}

function state(
  type: string,
  name: string,
  inputs: Record<string, unknown>,
  outputs: Record<string, unknown> = {},
) {
  return { urn: urn(type, name), custom: true, type, inputs, outputs };
}

function keyState(name: string, inputs: KeyInputs, type = NATIVE_KEY, outputs: Record<string, unknown> = {}) {
  return state(type, name, { ...inputs }, outputs);
}

function step(
  op: string,
  old: ReturnType<typeof state> | undefined,
  next: ReturnType<typeof state> | undefined,
  extra: Record<string, unknown> = {},
) {
  const at = (next ?? old)!;
  return {
    op,
    urn: at.urn,
    provider: "urn:pulumi:dev::proj::pulumi:providers:broker::default",
    ...(old === undefined ? {} : { oldState: old }),
    ...(next === undefined ? {} : { newState: next }),
    detailedDiff: null,
    ...extra,
  };
}

const stackStep = {
  op: "same",
  urn: STACK,
  oldState: { urn: STACK, custom: false, type: "pulumi:pulumi:Stack" },
  newState: { urn: STACK, custom: false, type: "pulumi:pulumi:Stack" },
  detailedDiff: null,
};

function preview(...steps: unknown[]): string {
  return JSON.stringify(
    { steps: [stackStep, ...steps], duration: 1000, changeSummary: { same: 1 } },
    null,
    4,
  );
}

const service = (send: string[], receive: string[] = []) => ({
  type: "SERVICE",
  permissions: { send, receive },
});

function onlyKey(change: AccessChange): KeyChange {
  expect(change.keys).toHaveLength(1);
  return change.keys[0]!;
}

describe("reviewPreview: the planned change", () => {
  it("a new key that grants paths is created and broadens; the inverted view names who gains what", () => {
    const review = reviewPreview(
      preview(
        step(
          "create",
          undefined,
          keyState("billing", { name: "billing-svc", ...service(["payments/*"], ["orders/created"]) }),
        ),
      ),
    );
    const key = onlyKey(review.planned);
    expect(key).toMatchObject({
      name: "billing-svc",
      kind: "created",
      verdict: "broadens",
      door: "native",
      unknown: false,
    });
    expect(key.added).toEqual({ send: ["payments/*"], receive: ["orders/created"] });
    expect(review.planned.gains).toEqual([
      { path: "orders/created", direction: "receive", keys: ["billing-svc"] },
      { path: "payments/*", direction: "send", keys: ["billing-svc"] },
    ]);
    expect(review.planned.summary).toMatchObject({ keysCreated: 1, grantsAdded: 2, grantsRemoved: 0 });
    expect(review.broadens).toBe(true);
    expect(review.drift).toBeUndefined();
  });

  it("widening orders/created to orders/* broadens; narrowing back narrows", () => {
    const narrow = keyState("k", { name: "k", ...service(["orders/created"]) });
    const wide = keyState("k", { name: "k", ...service(["orders/*"]) });
    const up = onlyKey(
      reviewPreview(preview(step("update", narrow, wide, { diffReasons: ["permissions"] }))).planned,
    );
    expect(up).toMatchObject({
      kind: "updated",
      verdict: "broadens",
      added: { send: ["orders/*"], receive: [] },
      removed: { send: ["orders/created"], receive: [] },
    });
    const down = reviewPreview(preview(step("update", wide, narrow)));
    expect(onlyKey(down.planned).verdict).toBe("narrows");
    expect(down.broadens).toBe(false);
  });

  it("adding orders/created beside orders/* is listed but unchanged", () => {
    const review = reviewPreview(
      preview(
        step(
          "update",
          keyState("k", { name: "k", ...service(["orders/*"]) }),
          keyState("k", { name: "k", ...service(["orders/*", "orders/created"]) }),
        ),
      ),
    );
    expect(onlyKey(review.planned)).toMatchObject({
      verdict: "unchanged",
      added: { send: ["orders/created"], receive: [] },
    });
    expect(review.planned.gains).toEqual([]);
    expect(review.broadens).toBe(false);
  });

  it("an update that touches no access (adopt, say) is left out", () => {
    const review = reviewPreview(
      preview(
        step(
          "update",
          keyState("k", { name: "k", ...service(["a/b"]) }),
          keyState("k", { name: "k", ...service(["a/b"]), onDelete: "retain" }),
        ),
      ),
    );
    expect(review.planned.keys).toEqual([]);
  });

  it("a deleted key is revoked (narrows) unless onDelete is retain (the broker keeps its access)", () => {
    const revoke = onlyKey(
      reviewPreview(preview(step("delete", keyState("k", { name: "k", ...service(["a/*"]) }), undefined)))
        .planned,
    );
    expect(revoke).toMatchObject({
      kind: "revoked",
      verdict: "narrows",
      removed: { send: ["a/*"], receive: [] },
    });
    expect(revoke.after).toBeUndefined();
    const retain = reviewPreview(
      preview(
        step("delete", keyState("k", { name: "k", ...service(["a/*"]), onDelete: "retain" }), undefined),
      ),
    );
    expect(onlyKey(retain.planned)).toMatchObject({
      kind: "retained",
      verdict: "unchanged",
      removed: { send: [], receive: [] },
    });
    expect(retain.planned.summary).toMatchObject({ keysRetained: 1, keysRevoked: 0 });
  });

  it("a destroy preview lists a key the stack adopted as retained unless its onDelete says revoke (issue #49)", () => {
    const adopted = (inputs: KeyInputs) =>
      reviewPreview(
        preview(
          step(
            "delete",
            keyState("k", { name: "k", ...service(["a/*"]), ...inputs }, NATIVE_KEY, { adopted: true }),
            undefined,
          ),
        ),
      ).planned;
    expect(onlyKey(adopted({}))).toMatchObject({ kind: "retained", verdict: "unchanged" });
    expect(onlyKey(adopted({ onDelete: "revoke" }))).toMatchObject({ kind: "revoked", verdict: "narrows" });
    // The dynamic door records it the same way.
    const dynamic = reviewPreview(
      preview(
        step(
          "delete",
          keyState("k", { name: "k", ...service(["a/*"]) }, DYNAMIC_KEY, { adopted: true }),
          undefined,
        ),
      ),
    ).planned;
    expect(onlyKey(dynamic)).toMatchObject({ kind: "retained" });
  });

  it("a replacement asked by rotationTriggers with the same access is a rotation: listed, unchanged", () => {
    const before = keyState("k", { name: "k-1", ...service(["a/*"]), rotationTriggers: { q: "1" } });
    const after = keyState("k", { name: "k-2", ...service(["a/*"]), rotationTriggers: { q: "2" } });
    const review = reviewPreview(
      preview(step("replace", before, after, { replaceReasons: ["rotationTriggers", "name"] })),
    );
    expect(onlyKey(review.planned)).toMatchObject({ kind: "rotated", verdict: "unchanged", name: "k-2" });
    expect(review.planned.summary.keysRotated).toBe(1);
  });

  it("a replacement from SERVICE to ACCOUNT broadens with the same paths", () => {
    const before = keyState("k", { name: "k", ...service(["a/b"]) });
    const after = keyState("k", { name: "k", type: "ACCOUNT", permissions: { send: ["a/b"], receive: [] } });
    const key = onlyKey(
      reviewPreview(preview(step("replace", before, after, { replaceReasons: ["type"] }))).planned,
    );
    expect(key).toMatchObject({ kind: "replaced", verdict: "broadens" });
    expect(key.after?.type).toBe("ACCOUNT");
  });

  it("replacement steps shown one by one (--show-replacement-steps) make one change", () => {
    const before = keyState("k", { name: "k", ...service(["a/b"]) });
    const after = keyState("k", { name: "k", ...service(["a/*"]) });
    const review = reviewPreview(
      preview(
        step("create-replacement", before, after),
        step("replace", before, after),
        step("delete-replaced", before, after),
      ),
    );
    expect(onlyKey(review.planned)).toMatchObject({ kind: "replaced", verdict: "broadens" });
  });

  it("lists not known until up read 'known after up': never a removal, and broadening", () => {
    const before = keyState("k", { name: "k", ...service(["a/*"], ["b/c"]) });
    const after = keyState("k", {
      name: "k",
      type: "SERVICE",
      permissions: { send: [UNKNOWN], receive: UNKNOWN },
    });
    const key = onlyKey(reviewPreview(preview(step("update", before, after))).planned);
    expect(key).toMatchObject({
      unknown: true,
      verdict: "broadens",
      removed: { send: [], receive: [] },
      added: { send: [], receive: [] },
    });
    expect(key.after).toEqual({ type: "SERVICE", send: { unknown: true }, receive: { unknown: true } });
  });

  it("secrets stay [secret]: a secret name, secret permissions, a signature object", () => {
    const review = reviewPreview(
      preview(
        step("create", undefined, keyState("s1", { name: "[secret]", ...service(["a/b"]) })),
        step("create", undefined, keyState("s2", { name: "n2", type: "SERVICE", permissions: "[secret]" })),
        step(
          "create",
          undefined,
          keyState("s3", {
            name: "n3",
            type: "SERVICE",
            permissions: {
              send: [
                { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", ciphertext: "xyz" },
              ],
            },
          }),
        ),
      ),
    );
    const byName = new Map(review.planned.keys.map((key) => [key.name, key]));
    expect(byName.get("[secret]")?.added.send).toEqual(["a/b"]);
    expect(byName.get("n2")?.after?.send).toEqual({ unknown: true, secret: true });
    expect(byName.get("n3")?.after?.send).toEqual({ unknown: true, secret: true });
    expect(JSON.stringify(review)).not.toContain("xyz");
  });

  it("reads the dynamic door's token and component children; passes over other resources", () => {
    const child = keyState("env:access-key:orders-svc", { name: "orders-svc", ...service(["orders/*"]) });
    const review = reviewPreview(
      preview(
        step("create", undefined, state("broker:index:Environment", "env", { document: "…" })),
        step("create", undefined, { ...child, parent: urn("broker:index:Environment", "env") } as ReturnType<
          typeof state
        >),
        step("create", undefined, keyState("dyn", { name: "dyn", ...service(["x/y"]) }, DYNAMIC_KEY)),
        step(
          "create",
          undefined,
          state("pulumi-nodejs:dynamic:Resource", "other", {
            name: "x",
            type: "SERVICE",
            permissions: { send: ["z/*"] },
          }),
        ),
        step("create", undefined, state("broker:index:ServiceKeyPair", "pair", { accessKeyId: 1 })),
      ),
    );
    expect(review.planned.keys.map((key) => [key.name, key.door])).toEqual([
      ["dyn", "dynamic"],
      ["orders-svc", "native"],
    ]);
  });

  it("a workspace renamed or moved shows its path before and after, resolving parents", () => {
    const WS = "broker:index:Workspace";
    const platform = state(
      WS,
      "platform",
      { name: "platform", parentId: 0 },
      { workspaceId: 1, path: "/platform" },
    );
    const team = state(WS, "team", { name: "team", parentId: 0 }, { workspaceId: 2, path: "/team" });
    const before = state(
      WS,
      "orders",
      { name: "orders", parentId: 1 },
      { workspaceId: 3, path: "/platform/orders" },
    );
    const moved = state(
      WS,
      "orders",
      { name: "orders-v2", parentId: 2 },
      { workspaceId: UNKNOWN, path: UNKNOWN },
    );
    const newParent = state(
      WS,
      "fresh",
      { name: "fresh", parentId: 0 },
      { workspaceId: UNKNOWN, path: UNKNOWN },
    );
    const underNew = {
      ...state(WS, "leaf", { name: "leaf", parentId: UNKNOWN }, {}),
      propertyDependencies: { parentId: [newParent.urn] },
    };
    const review = reviewPreview(
      preview(
        step("same", platform, platform),
        step("same", team, team),
        step("replace", before, moved, { replaceReasons: ["name", "parentId"] }),
        step("create", undefined, newParent),
        step(
          "replace",
          state(WS, "leaf", { name: "leaf", parentId: 1 }, { workspaceId: 9, path: "/platform/leaf" }),
          underNew,
        ),
      ),
    );
    expect(review.planned.workspaces).toEqual([
      { from: "/platform/leaf", to: "/fresh/leaf", unknown: false, source: underNew.urn },
      { from: "/platform/orders", to: "/team/orders-v2", unknown: false, source: moved.urn },
    ]);
  });

  it("a renamed workspace whose parent the preview does not list finds it from its own old path", () => {
    const WS = "broker:index:Workspace";
    const review = reviewPreview(
      preview(
        step(
          "replace",
          state(
            WS,
            "billing",
            { name: "billing", parentId: 7 },
            { workspaceId: 8, path: "/platform/billing" },
          ),
          state(WS, "billing", { name: "invoicing", parentId: 7 }),
          { replaceReasons: ["name"] },
        ),
      ),
    );
    expect(review.planned.workspaces.map((w) => [w.from, w.to, w.unknown])).toEqual([
      ["/platform/billing", "/platform/invoicing", false],
    ]);
  });

  it("a parent that cannot be resolved reads (known after up)", () => {
    const WS = "broker:index:Workspace";
    const review = reviewPreview(
      preview(
        step(
          "replace",
          state(WS, "w", { name: "w", parentId: 0 }, { path: "/w" }),
          state(WS, "w", { name: "w", parentId: UNKNOWN }),
        ),
      ),
    );
    expect(review.planned.workspaces).toEqual([
      { from: "/w", to: "(known after up)/w", unknown: true, source: urn(WS, "w") },
    ]);
  });
});

describe("reviewPreview: drift (preview --refresh)", () => {
  it("reads the refresh phase as 'changed outside Pulumi', by what the broker returned", () => {
    const recorded = keyState("k", { name: "k", ...service(["orders/created"]) }, NATIVE_KEY, {
      permissions: { send: ["orders/created"], receive: [], resources: {} },
    });
    const onBroker = keyState("k", { name: "k", ...service(["orders/*"]) }, NATIVE_KEY, {
      permissions: { send: ["orders/*"], receive: [], resources: {} },
    });
    const gone = keyState("g", { name: "g", ...service([], ["audit/*"]) }, NATIVE_KEY, {
      permissions: { send: [], receive: ["audit/*"], resources: {} },
    });
    const text = JSON.stringify({
      steps: [
        {
          op: "refresh",
          urn: STACK,
          oldState: stackStep.oldState,
          newState: stackStep.newState,
          detailedDiff: null,
        },
        step("update", recorded, onBroker, {
          detailedDiff: { "permissions.send[0]": { kind: "update", inputDiff: false } },
        }),
        step("delete", gone, undefined),
        stackStep,
        // The program's plan puts the program's grants back: a narrowing of what the broker holds now.
        step("update", onBroker, recorded),
        step("create", undefined, gone),
      ],
    });
    const review = reviewPreview(text);
    expect(review.drift?.keys.map((key) => [key.name, key.kind, key.verdict])).toEqual([
      ["k", "updated", "broadens"],
      ["g", "revoked", "narrows"],
    ]);
    expect(review.drift?.verdict).toBe("broadens");
    expect(review.planned.keys.map((key) => [key.name, key.kind, key.verdict])).toEqual([
      ["g", "created", "broadens"],
      ["k", "updated", "narrows"],
    ]);
    expect(review.broadens).toBe(true);
  });

  it("a refresh step left unrewritten but carrying both states is compared too", () => {
    const was = keyState("k", { name: "k", ...service([]) }, NATIVE_KEY, {
      permissions: { send: [], receive: [] },
    });
    const now = keyState("k", { name: "k", ...service([]) }, NATIVE_KEY, {
      permissions: { send: ["x/*"], receive: [] },
    });
    const review = reviewPreview(
      JSON.stringify({
        steps: [{ op: "refresh", urn: STACK, detailedDiff: null }, step("refresh", was, now), stackStep],
      }),
    );
    expect(review.drift?.keys.map((key) => [key.name, key.verdict])).toEqual([["k", "broadens"]]);
  });

  it("reads a real preview --refresh of the dynamic door (CLI 3.259): refresh steps unrewritten", () => {
    // test/e2e/review-drift.test.ts made it: after `up`, billing-svc was given payments/* and
    // audit-reader was removed on the broker. The refresh steps show the old state on both sides;
    // the program's steps start from the refreshed state (billing-svc) or create the key anew.
    const text = fs.readFileSync(
      path.join(__dirname, "..", "fixtures", "preview", "drift-dynamic-refresh.json"),
      "utf8",
    );
    expectDriftScenarioReview(reviewPreview(text));
  });

  it("a refresh that found nothing gives an empty drift section", () => {
    const k = keyState("k", { name: "k", ...service(["a/b"]) });
    const review = reviewPreview(
      JSON.stringify({
        steps: [{ op: "refresh", urn: STACK, detailedDiff: null }, step("refresh", k, k), stackStep],
      }),
    );
    expect(review.drift).toMatchObject({ verdict: "unchanged", keys: [] });
    expect(review.broadens).toBe(false);
  });
});

describe("reviewPreview: bad input is refused in one line", () => {
  const refusal = (text: string): string => {
    try {
      reviewPreview(text);
    } catch (error) {
      expect(isReviewInputError(error)).toBe(true);
      const message = (error as Error).message;
      expect(message).not.toContain("\n");
      return message;
    }
    throw new Error("not refused");
  };

  it.each([
    ["empty input", "", /input is empty; expected the output of `pulumi preview --json`/u],
    [
      "plain text",
      "Previewing update (dev):\n  + broker:index:AccessKey k create\n",
      /not JSON \(did the preview run without --json\?\)/u,
    ],
    [
      "a truncated file",
      preview(step("create", undefined, keyState("k", { name: "k", ...service([]) }))).slice(0, 120),
      /not complete JSON/u,
    ],
    [
      "a stack export",
      JSON.stringify({ version: 3, deployment: { resources: [] } }),
      /`pulumi stack export`/u,
    ],
    [
      "the streaming format",
      `${JSON.stringify({ sequence: 0, timestamp: 1, preludeEvent: { config: {} } })}\n${JSON.stringify({ sequence: 1, timestamp: 1, summaryEvent: {} })}\n`,
      /PULUMI_ENABLE_STREAMING_JSON_PREVIEW/u,
    ],
    [
      "a failed preview",
      JSON.stringify({
        steps: [stackStep],
        diagnostics: [
          { urn: STACK, message: "error: an unhandled error occurred:\n  boom", severity: "error" },
        ],
      }),
      /the preview failed \(error: an unhandled error occurred: boom\)/u,
    ],
    ["a preview without steps", JSON.stringify({ changeSummary: {}, duration: 5 }), /has no steps/u],
    ["another JSON document", JSON.stringify({ hello: "world" }), /JSON without preview steps/u],
    ["an old CLI's steps", JSON.stringify({ steps: [{ Op: "create", URN: "x" }] }), /old Pulumi CLI/u],
    ["a JSON array", "[1,2]", /not an object/u],
  ])("%s", (_what, text, expected) => {
    expect(refusal(text)).toMatch(expected);
  });

  it("a preview with only the stack is a review with no changes, not a refusal", () => {
    const review = reviewPreview(preview());
    expect(review.planned).toMatchObject({ verdict: "unchanged", keys: [], gains: [], workspaces: [] });
  });
});

describe("reviewPreview: real previews of one change through each door (CLI 3.259)", () => {
  // Captured by the review-e2e branch (scripts/gen-preview-fixtures.mts): the same scenario as a
  // YAML program of native resources, a JavaScript program of dynamic resources, and an Environment
  // going from before.yaml to after.yaml.
  const fixture = (name: string): string =>
    fs.readFileSync(path.join(__dirname, "..", "fixtures", "preview", name), "utf8");
  const lines = (review: ReturnType<typeof reviewPreview>) =>
    review.planned.keys.map((key) => [key.name, key.kind, key.verdict, key.added, key.removed]);
  const expected = [
    [
      "orders-svc",
      "updated",
      "broadens",
      { send: ["orders/shipped"], receive: ["payments/*"] },
      { send: [], receive: ["payments/captured"] },
    ],
    ["shipping-svc", "created", "broadens", { send: ["shipping/*"], receive: [] }, { send: [], receive: [] }],
    [
      "billing-svc",
      "updated",
      "narrows",
      { send: [], receive: ["orders/created"] },
      { send: ["billing/invoiced"], receive: ["orders/*"] },
    ],
    ["legacy-svc", "revoked", "narrows", { send: [], receive: [] }, { send: [], receive: ["audit/*"] }],
  ];

  it.each(["native-yaml.json", "dynamic-ts.json"])(
    "%s: each key, the rotation and the workspace moves",
    (name) => {
      const review = reviewPreview(fixture(name));
      expect(lines(review)).toEqual([
        ...expected,
        ["ops-admin", "rotated", "unchanged", { send: [], receive: [] }, { send: [], receive: [] }],
      ]);
      expect(review.planned.workspaces.map((w) => [w.from, w.to])).toEqual([
        ["/platform/billing", "/platform/invoicing"],
        // Its new parent `data` is unchanged, so the preview does not list it (without --show-sames).
        ["/platform/orders", "(known after up)/orders"],
      ]);
      expect(review.broadens).toBe(true);
    },
  );

  it("environment-yaml.json: the Environment's children, as --from before.yaml --to after.yaml reads them", () => {
    expect(lines(reviewPreview(fixture("environment-yaml.json")))).toEqual(expected);
    const from = readDocument("before.yaml", fixture("before.yaml"));
    const to = readDocument("after.yaml", fixture("after.yaml"));
    expect(lines(reviewDocuments(from, to, "documents", { from: "before.yaml", to: "after.yaml" }))).toEqual(
      expected,
    );
  });
});
