/**
 * `broker-config review --from-broker --to DOC` against an emulator, in process: the live broker is
 * read as `broker-config export` reads it (settings from the command line and `BROKER_*`), and the
 * review says what applying the document would grant; keys the document does not name are left out.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrokerClient } from "../../src/client";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { BILLING_AND_AUDIT_KEYS, runReviewCommand, type ReviewRun } from "../support/review-command";
import type { AccessReview } from "../../src/review/report";

let emulator: EmulatorHandle;
let dir: string;
const secrets: string[] = [];

beforeAll(async () => {
  emulator = await startEmulator({ controls: true });
  secrets.push(emulator.adminKey);
  const client = new BrokerClient({ baseUrl: emulator.url, apiKey: emulator.adminKey });
  try {
    for (const [name, send] of [
      ["billing", ["billing/invoiced"]],
      ["untouched", ["orders/*"]],
    ] as const) {
      const created = await client.createAccessKey({
        name,
        type: "SERVICE",
        permissions: { send: [...send], receive: [], resources: {} },
      });
      secrets.push(created.accessKey);
    }
  } finally {
    await client.close();
  }
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "review-broker-"));
  fs.writeFileSync(
    path.join(dir, "new.yaml"),
    `version: 1
accessKeys:
${BILLING_AND_AUDIT_KEYS}`,
  );
});

afterAll(async () => {
  await emulator.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const review = (argv: string[], env: NodeJS.ProcessEnv): Promise<ReviewRun> =>
  runReviewCommand(argv, "", env);

describe("broker-config review --from-broker", () => {
  it("reviews the live broker against a document: what applying it would grant", async () => {
    const result = await review(
      ["--from-broker", "--to", path.join(dir, "new.yaml"), "--format", "json", "--fail-on", "broadening"],
      { BROKER_BASE_URL: emulator.url, BROKER_API_KEY: emulator.adminKey },
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(3);
    const parsed = JSON.parse(result.stdout) as AccessReview;
    expect(parsed.source).toBe("broker");
    expect(
      parsed.planned.keys.map((key) => [key.name, key.kind, key.verdict, key.added, key.removed]),
    ).toEqual([
      ["audit", "created", "broadens", { send: [], receive: ["audit/*"] }, { send: [], receive: [] }],
      [
        "billing",
        "updated",
        "broadens",
        { send: ["billing/*"], receive: [] },
        { send: ["billing/invoiced"], receive: [] },
      ],
    ]);
    // The emulator's own ACCOUNT key and "untouched" are not in the document: nothing revokes them.
    expect(parsed.planned.summary.keysRevoked).toBe(0);
    for (const secret of secrets) expect(result.stdout).not.toContain(secret);
  });

  it("takes the base URL from --base-url and names the key's variable when it is refused (exit 1)", async () => {
    const result = await review(
      ["--from-broker", "--to", path.join(dir, "new.yaml"), "--base-url", emulator.url],
      {
        BROKER_API_KEY: "not-a-valid-key-0123456789",
      },
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/BROKER_API_KEY/u);
    expect(result.stderr).not.toContain("not-a-valid-key-0123456789");
  });
});
