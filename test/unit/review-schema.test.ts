/**
 * The access review's published JSON Schema (`src/review/access-review.schema.json`, shipped as
 * `pulumi-broker-config/access-review.schema.json`) and its documentation (issue #47): a full review
 * validates, broken ones do not, the schema describes exactly the fields `report.ts` declares (so
 * neither can gain a field the other lacks), and the example in docs/access-review-format.md is a
 * valid review.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../harness/repo.mts";
import type { AccessReview } from "../../src/review/report";
import { ACCESS_REVIEW_SCHEMA, accessReviewSchemaProblems } from "../../src/review/schema";

/** A review holding every field, optional ones included, and each kind of value. */
const FULL: AccessReview = {
  schemaVersion: 1,
  source: "preview",
  planned: {
    summary: {
      keysCreated: 1,
      keysRevoked: 1,
      keysReplaced: 0,
      keysRotated: 0,
      keysUpdated: 1,
      keysRetained: 0,
      grantsAdded: 2,
      grantsRemoved: 2,
    },
    verdict: "broadens",
    keys: [
      {
        name: "billing-svc",
        source: "urn:pulumi:dev::shop::broker:index:AccessKey::billing",
        door: "native",
        kind: "updated",
        before: { type: "SERVICE", send: [], receive: ["payments/eu/created"] },
        after: { type: "SERVICE", send: [], receive: ["payments/*"] },
        added: { send: [], receive: ["payments/*"] },
        removed: { send: [], receive: ["payments/eu/created"] },
        unknown: false,
        verdict: "broadens",
      },
      {
        name: "[secret]",
        source: "urn:pulumi:dev::shop::pulumi-nodejs:dynamic/broker:AccessKey::reports",
        door: "dynamic",
        kind: "created",
        after: { type: { unknown: true }, send: { unknown: true, secret: true }, receive: ["audit/*"] },
        added: { send: [], receive: ["audit/*"] },
        removed: { send: [], receive: [] },
        unknown: true,
        verdict: "broadens",
      },
      {
        name: "legacy",
        source: "accessKeys[2]",
        door: "document",
        kind: "revoked",
        before: { type: "ACCOUNT", send: ["orders/created"], receive: [] },
        added: { send: [], receive: [] },
        removed: { send: ["orders/created"], receive: [] },
        unknown: false,
        verdict: "narrows",
      },
    ],
    gains: [
      { path: "payments/*", direction: "receive", keys: ["billing-svc"] },
      { path: "audit/*", direction: "receive", keys: ["[secret]"] },
    ],
    workspaces: [
      {
        from: "/platform/orders",
        to: "/platform/(known after up)",
        unknown: true,
        source: "urn:pulumi:dev::shop::broker:index:Workspace::orders",
      },
    ],
  },
  drift: {
    summary: {
      keysCreated: 0,
      keysRevoked: 0,
      keysReplaced: 0,
      keysRotated: 0,
      keysUpdated: 0,
      keysRetained: 0,
      grantsAdded: 0,
      grantsRemoved: 0,
    },
    verdict: "unchanged",
    keys: [],
    gains: [],
    workspaces: [],
  },
  broadens: true,
};

/** `FULL` with `change` applied to a copy (a JSON round trip, as the printed document is). */
function broken(change: (review: AccessReview) => void): unknown {
  const copy = JSON.parse(JSON.stringify(FULL)) as AccessReview;
  change(copy);
  return copy;
}

describe("the access review's JSON Schema", () => {
  it("accepts a review holding every field", () => {
    expect(accessReviewSchemaProblems(JSON.parse(JSON.stringify(FULL)))).toEqual([]);
  });

  it.each<[string, (review: AccessReview) => void, string]>([
    [
      "another schemaVersion",
      (r) => Object.assign(r, { schemaVersion: 2 }),
      "/schemaVersion must be equal to constant",
    ],
    [
      "an unknown kind of change",
      (r) => Object.assign(r.planned.keys[0]!, { kind: "moved" }),
      "/planned/keys/0/kind must be equal to one of the allowed values",
    ],
    [
      "a field it does not describe",
      (r) => Object.assign(r.planned.keys[0]!, { value: "secret-value" }),
      "/planned/keys/0 must NOT have additional properties",
    ],
    [
      "a created key with access before",
      (r) => Object.assign(r.planned.keys[1]!, { before: r.planned.keys[0]!.before }),
      "/planned/keys/1/before boolean schema is false",
    ],
    [
      "a revoked key with access after",
      (r) => Object.assign(r.planned.keys[2]!, { after: r.planned.keys[0]!.after }),
      "/planned/keys/2/after boolean schema is false",
    ],
    [
      "an unknown value that is not `true`",
      (r) => Object.assign(r.planned.keys[1]!.after!, { send: { unknown: false } }),
      "/planned/keys/1/after/send",
    ],
    [
      "a negative count",
      (r) => Object.assign(r.drift!.summary, { grantsAdded: -1 }),
      "/drift/summary/grantsAdded must be >= 0",
    ],
    ["no verdict", (r) => Reflect.deleteProperty(r, "broadens"), "/ must have required property 'broadens'"],
  ])("refuses %s", (_, change, problem) => {
    expect(accessReviewSchemaProblems(broken(change)).join("\n")).toContain(problem);
  });

  it("describes exactly the fields report.ts declares, optional where they are optional", () => {
    const source = ts.createSourceFile(
      "report.ts",
      fs.readFileSync(path.join(REPO_ROOT, "src/review/report.ts"), "utf8"),
      ts.ScriptTarget.Latest,
    );
    const declared = new Map<string, { required: string[]; optional: string[] }>();
    for (const statement of source.statements) {
      if (!ts.isInterfaceDeclaration(statement)) continue;
      const fields = { required: [] as string[], optional: [] as string[] };
      for (const member of statement.members) {
        if (!ts.isPropertySignature(member)) continue;
        (member.questionToken === undefined ? fields.required : fields.optional).push(
          member.name.getText(source),
        );
      }
      declared.set(statement.name.text, fields);
    }
    const defs = ACCESS_REVIEW_SCHEMA["$defs"] as Record<string, Record<string, unknown>>;
    const described: Record<string, Record<string, unknown>> = {
      AccessReview: ACCESS_REVIEW_SCHEMA,
      AccessChange: defs["accessChange"]!,
      KeyChange: defs["keyChange"]!,
      KeyAccess: defs["keyAccess"]!,
      PathGain: defs["pathGain"]!,
      WorkspaceMove: defs["workspaceMove"]!,
      ReviewSummary: defs["summary"]!,
      UnknownValue: defs["unknown"]!,
    };
    expect([...declared.keys()].sort()).toEqual(Object.keys(described).sort());
    for (const [name, schema] of Object.entries(described)) {
      const properties = Object.keys(schema["properties"] as object).sort();
      const required = [...(schema["required"] as string[])].sort();
      const fields = declared.get(name)!;
      expect({ name, properties, required }).toEqual({
        name,
        properties: [...fields.required, ...fields.optional].sort(),
        required: [...fields.required].sort(),
      });
    }
  });
});

describe("docs/access-review-format.md", () => {
  const doc = fs.readFileSync(path.join(REPO_ROOT, "docs/access-review-format.md"), "utf8");

  it("holds an example that is a valid review", () => {
    const example = /```json\n([\s\S]*?)\n```/u.exec(doc)?.[1];
    expect(example).toBeDefined();
    expect(accessReviewSchemaProblems(JSON.parse(example!))).toEqual([]);
  });

  it("names every field of the schema", () => {
    const defs = ACCESS_REVIEW_SCHEMA["$defs"] as Record<string, Record<string, unknown>>;
    const fields = [ACCESS_REVIEW_SCHEMA, ...Object.values(defs)].flatMap((schema) =>
      Object.keys((schema["properties"] as object | undefined) ?? {}),
    );
    for (const field of new Set(fields)) expect(doc, field).toContain(`\`${field}\``);
  });
});
