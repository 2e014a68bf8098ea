/**
 * The shape of drift in `pulumi preview --refresh --json`, through the real CLI (issue #47): after an
 * `up`, a key's permissions are widened and another key is removed on the broker behind the stack's
 * back; the review's "changed outside Pulumi" section must say so with the broadening verdict, and
 * the plan must read as putting the program's grants back. One stack, one `up`, one preview.
 * (The access review of planned changes in every language is test/e2e's review suite's.)
 */
import * as fs from "node:fs";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import type { EmulatorHandle } from "../../src/emulator";
import { reviewPreview } from "../../src/review/review";
import { expectDriftScenarioReview } from "../support/drift-review";
import { emulatorConfig, type OrdersSpec, specConfig, startProgram, tearDown } from "../support/projects";

const spec: OrdersSpec = {
  keys: [
    { name: "billing-svc", type: "SERVICE", permissions: { send: ["billing/invoiced"], receive: [] } },
    { name: "audit-reader", type: "SERVICE", permissions: { receive: ["audit/*"] } },
  ],
};

let emulator: EmulatorHandle;
let project: PulumiProject;

beforeAll(async () => {
  ({ emulator, project } = await startProgram("review-drift", "broker"));
  const stack = await project.stack("dev", { ...specConfig(spec), ...emulatorConfig(emulator) });
  // `up` has read the outputs already (the Automation API runs `stack output` after it).
  const ids = (await stack.up()).outputs["keyIds"]?.value as Record<string, number>;
  // Behind the stack's back: billing-svc may now send every payments event; audit-reader is gone.
  await emulator.controls!.setKeyPermissions(ids["billing-svc"]!, {
    send: ["billing/invoiced", "payments/*"],
  });
  await emulator.controls!.removeAccessKey(ids["audit-reader"]!);
});

afterAll(() => tearDown({ emulators: [emulator], project }));

describe("review of pulumi preview --refresh --json", () => {
  it("reads the refresh phase as changed outside Pulumi, with the same verdicts", async () => {
    const { stdout } = await project.run(["preview", "--refresh", "--json", "--stack", "dev"]);
    // Kept for a look when the engine's shape changes (never committed: it names temporary paths).
    if (process.env["REVIEW_FIXTURE_OUT"] !== undefined)
      fs.writeFileSync(process.env["REVIEW_FIXTURE_OUT"], stdout);
    expectDriftScenarioReview(reviewPreview(stdout));
  });
});
