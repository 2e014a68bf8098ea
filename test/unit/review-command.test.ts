/**
 * `broker-config review` as the CLI and the plugin call it (`runReview(argv, io)`): output formats,
 * exit codes (0, 3 with --fail-on broadening, 2 for bad arguments and input), standard input, and
 * two documents (`--from/--to`) giving the same review as the preview of the same change.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REVIEW_SCHEMA_VERSION, type AccessReview } from "../../src/review/report";
import { BILLING_AND_AUDIT_KEYS, runReviewCommand, type ReviewRun } from "../support/review-command";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "review-command-"));
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function file(name: string, text: string): string {
  const at = path.join(dir, name);
  fs.writeFileSync(at, text);
  return at;
}

const run = (argv: string[], stdin = ""): Promise<ReviewRun> => runReviewCommand(argv, stdin);

const STACK = "urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev";
const ENV = "urn:pulumi:dev::proj::broker:index:Environment::env";
const keyUrn = (name: string): string =>
  `urn:pulumi:dev::proj::broker:index:Environment$broker:index:AccessKey::env:access-key:${name}`;

function keyState(name: string, type: string, send: string[], receive: string[]) {
  return {
    urn: keyUrn(name),
    custom: true,
    type: "broker:index:AccessKey",
    parent: ENV,
    inputs: { name, type, permissions: { send, receive } },
  };
}

/** The preview of an Environment going from OLD_DOC to NEW_DOC, as the engine shows it. */
const PREVIEW = JSON.stringify({
  steps: [
    { op: "same", urn: STACK, detailedDiff: null },
    {
      op: "update",
      urn: keyUrn("billing"),
      oldState: keyState("billing", "SERVICE", ["billing/invoiced"], []),
      newState: keyState("billing", "SERVICE", ["billing/*"], []),
      detailedDiff: null,
    },
    {
      op: "create",
      urn: keyUrn("audit"),
      newState: keyState("audit", "SERVICE", [], ["audit/*"]),
      detailedDiff: null,
    },
    {
      op: "delete",
      urn: keyUrn("legacy"),
      oldState: keyState("legacy", "SERVICE", ["orders/*"], []),
      detailedDiff: null,
    },
    {
      op: "replace",
      urn: keyUrn("ops"),
      oldState: keyState("ops", "SERVICE", [], []),
      newState: keyState("ops", "ACCOUNT", [], []),
      replaceReasons: ["type"],
      detailedDiff: null,
    },
  ],
});

const OLD_DOC = `version: 1
accessKeys:
  - name: billing
    type: SERVICE
    permissions: { send: [billing/invoiced] }
  - name: legacy
    type: SERVICE
    permissions: { send: ["orders/*"] }
  - name: ops
    type: SERVICE
`;
const NEW_DOC = `version: 1
allowAccountKeys: true
accessKeys:
${BILLING_AND_AUDIT_KEYS}  - name: ops
    type: ACCOUNT
`;

/** What two reviews agree on when they describe the same change (not where each key is declared). */
function essence(review: AccessReview) {
  return {
    broadens: review.broadens,
    summary: review.planned.summary,
    gains: review.planned.gains,
    keys: review.planned.keys.map(({ name, kind, added, removed, verdict, before, after }) => ({
      name,
      kind,
      added,
      removed,
      verdict,
      before,
      after,
    })),
  };
}

describe("broker-config review", () => {
  it("prints the review as JSON with the schema version, and exits 0 without --fail-on", async () => {
    const result = await run([file("p.json", PREVIEW), "--format", "json"]);
    expect(result.code).toBe(0);
    const review = JSON.parse(result.stdout) as AccessReview;
    expect(review.schemaVersion).toBe(REVIEW_SCHEMA_VERSION);
    expect(review.source).toBe("preview");
    expect(review.planned.summary).toEqual({
      keysCreated: 1,
      keysRevoked: 1,
      keysReplaced: 1,
      keysRotated: 0,
      keysUpdated: 1,
      keysRetained: 0,
      grantsAdded: 2,
      grantsRemoved: 2,
    });
  });

  it("exits 3 with --fail-on broadening when the change broadens, 0 when it does not", async () => {
    expect((await run([file("p.json", PREVIEW), "--fail-on", "broadening"])).code).toBe(3);
    const narrowing = JSON.stringify({
      steps: [
        {
          op: "delete",
          urn: keyUrn("legacy"),
          oldState: keyState("legacy", "SERVICE", ["orders/*"], []),
          detailedDiff: null,
        },
      ],
    });
    const result = await run([file("n.json", narrowing), "--fail-on", "broadening"]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toBe("");
  });

  it("reads standard input when no file (or -) is given, and writes Markdown by default", async () => {
    const result = await run(["-"], PREVIEW);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("billing");
    expect((await run([], PREVIEW)).stdout).toBe(result.stdout);
  });

  it("refuses bad input with one line and exit 2 (never an empty report)", async () => {
    const result = await run([file("t.txt", "Previewing update (dev):\n")]);
    expect(result).toMatchObject({ code: 2, stdout: "" });
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/^broker-config review: the input is not JSON/u);
    const missing = await run([path.join(dir, "nope.json")]);
    expect(missing).toMatchObject({ code: 2, stdout: "" });
    expect(missing.stderr).toContain("no such file");
  });

  it.each([
    [["--format", "html"], /--format must be markdown or json/u],
    [["--fail-on", "narrowing"], /--fail-on takes one value, broadening/u],
    [["--from", "a.yaml"], /--from needs --to FILE/u],
    [["--to", "a.yaml"], /--to needs --from FILE or --from-broker/u],
    [["--from", "a", "--from-broker", "--to", "b"], /either --from FILE or --from-broker/u],
    [["a.json", "b.json"], /at most one file/u],
    [["--base-url", "http://x/v1", "p.json"], /--base-url is for --from-broker only/u],
    [["--api-key", "secret-value"], /--api-key is not accepted/u],
  ])("refuses the arguments %j with exit 2", async (argv, expected) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(expected);
    expect(result.stderr).not.toContain("secret-value");
  });

  it("--from/--to documents give the same review as the preview of the same change", async () => {
    const fromPreview = JSON.parse(
      (await run([file("p.json", PREVIEW), "--format", "json"])).stdout,
    ) as AccessReview;
    const result = await run([
      "--from",
      file("old.yaml", OLD_DOC),
      "--to",
      file("new.yaml", NEW_DOC),
      "--format",
      "json",
      "--fail-on",
      "broadening",
    ]);
    expect(result.code).toBe(3);
    const fromDocuments = JSON.parse(result.stdout) as AccessReview;
    expect(fromDocuments.source).toBe("documents");
    expect(essence(fromDocuments)).toEqual(essence(fromPreview));
    expect(fromDocuments.planned.keys.find((key) => key.name === "audit")?.source).toMatch(
      /new\.yaml accessKeys\[1\]$/u,
    );
  });

  it("refuses an invalid document naming its first problem in one line", async () => {
    const result = await run([
      "--from",
      file("old2.yaml", OLD_DOC),
      "--to",
      file("bad.yaml", "version: 1\naccessKeys:\n  - name: x\n    type: ROOT\n"),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/bad\.yaml is not a valid configuration document .*accessKeys\[0\]\.type/u);
  });

  it("--from-broker without a base URL or key says how to set them (exit 2)", async () => {
    const result = await run(["--from-broker", "--to", file("new2.yaml", NEW_DOC)]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no base URL and no API key: pass --base-url or set BROKER_BASE_URL/u);
  });
});
