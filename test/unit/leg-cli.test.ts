import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { awaitLegCli, startLegCli } from "../support/leg-cli.mts";

// Another leg's CLI is prepared while the tests run, and its files wait for the job's status
// (test/support/leg-cli.mts): a job that fails must fail the leg's files with the scripts' own words,
// and a CLI that is not the leg's must not pass for it.

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-leg-cli-test-"));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("the engine matrix's CLI prepared beside the tests", () => {
  it("a failed preparation fails the waiting file with the script's own message", async () => {
    const { statusFile, ended } = startLegCli("3.x", dir);
    await expect(awaitLegCli(statusFile, dir, "3.x")).rejects.toThrow(
      /CLI 3\.x could not be prepared: preparing CLI 3\.x ended with exit code 1:\nensure-pulumi-cli: '3\.x' is not a CLI version/u,
    );
    expect(await ended).toMatch(/^CLI 3\.x failed after \d+ s$/u);
  });

  it("a ready job whose bin directory holds another CLI version fails the waiting file", async () => {
    const statusFile = path.join(dir, "cli.json");
    fs.writeFileSync(statusFile, JSON.stringify({ ok: true, detail: "" }));
    fs.writeFileSync(path.join(dir, "pulumi"), "#!/bin/sh\necho v3.1.0\n", { mode: 0o755 });
    await expect(awaitLegCli(statusFile, dir, "3.274.1")).rejects.toThrow(
      `${dir}/pulumi is v3.1.0, not v3.274.1`,
    );
    fs.writeFileSync(path.join(dir, "pulumi"), "#!/bin/sh\necho v3.274.1\n", { mode: 0o755 });
    await expect(awaitLegCli(statusFile, dir, "3.274.1")).resolves.toBeUndefined();
  });
});
