/**
 * The shape of drift in `pulumi preview --refresh --json`, through the real CLI (issue #47): after an
 * `up`, a key's permissions are widened and another key is removed on the broker behind the stack's
 * back; the review's "changed outside Pulumi" section must say so with the broadening verdict, and
 * the plan must read as putting the program's grants back. One stack, one `up`, one preview.
 * (The access review of planned changes in every language is test/e2e's review suite's.)
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { reviewPreview } from "../../src/review/review";
import {
  emulatorConfig,
  NO_BROKER_ENV,
  PROGRAMS_DIR,
  specConfig,
  testProject,
  type OrdersSpec,
} from "../support/projects";

const spec: OrdersSpec = {
  keys: [
    { name: "billing-svc", type: "SERVICE", permissions: { send: ["billing/invoiced"], receive: [] } },
    { name: "audit-reader", type: "SERVICE", permissions: { receive: ["audit/*"] } },
  ],
};

let emulator: EmulatorHandle;
let project: PulumiProject;

beforeAll(async () => {
  emulator = await startEmulator({ controls: true });
  project = await testProject("review-drift", path.join(PROGRAMS_DIR, "broker"), NO_BROKER_ENV);
  const stack = await project.stack("dev", { ...specConfig(spec), ...emulatorConfig(emulator) });
  // `up` has read the outputs already (the Automation API runs `stack output` after it).
  const ids = (await stack.up()).outputs["keyIds"]?.value as Record<string, number>;
  // Behind the stack's back: billing-svc may now send every payments event; audit-reader is gone.
  await emulator.controls!.setKeyPermissions(ids["billing-svc"]!, {
    send: ["billing/invoiced", "payments/*"],
  });
  await emulator.controls!.removeAccessKey(ids["audit-reader"]!);
});

afterAll(async () => {
  await emulator.close();
  project.remove();
});

describe("review of pulumi preview --refresh --json", () => {
  it("reads the refresh phase as changed outside Pulumi, with the same verdicts", async () => {
    const { stdout } = await project.run(["preview", "--refresh", "--json", "--stack", "dev"]);
    // Kept for a look when the engine's shape changes (never committed: it names temporary paths).
    if (process.env["REVIEW_FIXTURE_OUT"] !== undefined)
      fs.writeFileSync(process.env["REVIEW_FIXTURE_OUT"], stdout);
    const review = reviewPreview(stdout);
    expect(
      review.drift?.keys.map((key) => [key.name, key.kind, key.verdict, key.added, key.removed]),
    ).toEqual([
      [
        "billing-svc",
        "updated",
        "broadens",
        { send: ["payments/*"], receive: [] },
        { send: [], receive: [] },
      ],
      ["audit-reader", "revoked", "narrows", { send: [], receive: [] }, { send: [], receive: ["audit/*"] }],
    ]);
    expect(review.drift?.gains).toEqual([{ path: "payments/*", direction: "send", keys: ["billing-svc"] }]);
    // The plan from the broker's state: billing-svc loses payments/* again, audit-reader is created anew.
    expect(review.planned.keys.map((key) => [key.name, key.kind, key.verdict])).toEqual([
      ["audit-reader", "created", "broadens"],
      ["billing-svc", "updated", "narrows"],
    ]);
    expect(review.broadens).toBe(true);
  });
});
