/**
 * An old Node gets one clear sentence: the npm scripts that need a new Node run
 * scripts/check-node.cjs first, and the two bins require it before anything else. The bins and the
 * script are run under a real old Node (`/usr/bin/node` is Node 20 on our machines and in CI, or the
 * node that OLD_NODE names); without one, those tests are skipped with the reason.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

const REPO_ROOT = path.join(__dirname, "../..");
const CHECK_SCRIPT = path.join(REPO_ROOT, "scripts/check-node.cjs");
const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
  engines: { node: string };
  scripts: Record<string, string>;
};
const REQUIRED = manifest.engines.node;

const check = require(CHECK_SCRIPT) as {
  nodeVersionProblem: (found: string, range: string | undefined) => string | undefined;
};

/** An installed Node older than engines.node, with its version, or why there is none. */
function findOldNode(): { node: string; version: string } | { reason: string } {
  const node = process.env["OLD_NODE"] ?? "/usr/bin/node";
  if (!fs.existsSync(node)) return { reason: `no old Node found at ${node} (set OLD_NODE to one)` };
  const version = spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim();
  if (check.nodeVersionProblem(version, REQUIRED) === undefined) {
    return {
      reason: `${node} is Node ${version}, which satisfies ${REQUIRED} (set OLD_NODE to an older one)`,
    };
  }
  return { node, version };
}

const oldNode = findOldNode();

/** The one line an old Node must print. */
function expectedLine(version: string, node: string): string {
  return `pulumi-broker-config needs Node.js ${REQUIRED}, but this is Node.js ${version} (${fs.realpathSync(node)}): put a newer node first on PATH`;
}

describe("the Node version check (scripts/check-node.cjs)", () => {
  it.each([
    ["v22.19.0", undefined],
    ["v22.20.1", undefined],
    ["v23.0.0", undefined],
    ["v24.1.0", undefined],
    ["v22.18.9", "needs"],
    ["v20.19.2", "needs"],
    ["v18.0.0", "needs"],
  ])("on %s with >=22.19.0: %s", (found, problem) => {
    const result = check.nodeVersionProblem(found, ">=22.19.0");
    if (problem === undefined) expect(result).toBeUndefined();
    else expect(result).toMatch(new RegExp(`needs Node\\.js >=22\\.19\\.0, but this is Node\\.js ${found} `));
  });

  it("says so when engines.node is not of the form >=X.Y.Z", () => {
    expect(check.nodeVersionProblem("v24.0.0", "^22")).toMatch(/cannot read the required Node\.js version/);
  });

  it("passes silently on this Node", () => {
    const run = spawnSync(process.execPath, [CHECK_SCRIPT], { encoding: "utf8" });
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
      status: 0,
      stdout: "",
      stderr: "",
    });
  });

  it.each(["demo", "demo:destroy", "test", "test:unit", "bench"])(
    "runs first in the npm script %s",
    (script) => {
      expect(manifest.scripts[script]).toMatch(/^node scripts\/check-node\.cjs && /);
    },
  );

  it("ships in the package, beside the bins that require it", () => {
    expect((manifest as unknown as { files: string[] }).files).toContain("scripts/check-node.cjs");
  });
});

describe("under an old Node", () => {
  const cases: [string, string[]][] = [
    ["scripts/check-node.cjs (the npm scripts' first step)", [CHECK_SCRIPT]],
    ["the broker-config bin", [path.join(REPO_ROOT, "dist/cli/broker-config.js"), "export"]],
    ["the broker-config-emulator bin", [path.join(REPO_ROOT, "dist/emulator/cli.js"), "--port", "0"]],
  ];

  for (const [what, args] of cases) {
    it(`${what} stops with one line naming both versions and exit status 1`, (ctx) => {
      if ("reason" in oldNode) {
        ctx.skip(oldNode.reason);
        return;
      }
      const run = spawnSync(oldNode.node, args, { encoding: "utf8", timeout: 30_000 });
      expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
        status: 1,
        stdout: "",
        stderr: `${expectedLine(oldNode.version, oldNode.node)}\n`,
      });
    });
  }

  it.each([
    ["dist/cli/broker-config.js", "the broker-config bin"],
    ["dist/emulator/cli.js", "the broker-config-emulator bin"],
  ])("%s requires the check before any other module (%s)", (file) => {
    const firstRequire = /require\("([^"]+)"\)/.exec(fs.readFileSync(path.join(REPO_ROOT, file), "utf8"));
    expect(firstRequire?.[1]).toBe("../../scripts/check-node.cjs");
  });
});
