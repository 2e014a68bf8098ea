/**
 * Importing the package to declare resources loads none of the libraries it needs only to make
 * requests, read YAML or check a JSON Schema (src/on-demand.ts): every `pulumi preview` and `up` runs
 * the user's program, which imports the package and nothing more. Checked on the built package in a
 * fresh Node process, as a program loads it, and for the entry points the providers' processes load.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { ON_DEMAND_LIBRARIES } from "../../src/on-demand";

const DIST = path.join(__dirname, "../../dist");

/** The third-party packages a fresh Node process has loaded once it required `entry`. */
function packagesLoadedBy(entry: string, then = ""): string[] {
  const script = `
    require(${JSON.stringify(entry)});
    ${then}
    const names = new Set();
    for (const file of Object.keys(require.cache)) {
      const match = file.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\/(?!.*node_modules\\/)/);
      if (match) names.add(match[1]);
    }
    process.stdout.write(JSON.stringify([...names]));
  `;
  const run = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
  expect(run.stderr, "the script ran without errors").toBe("");
  return JSON.parse(run.stdout) as string[];
}

describe("importing the package", () => {
  it.each([
    ["the package, as a program imports it", "index.js"],
    ["the dynamic providers' implementation, as their host loads it", "dynamic/impl/access-key.js"],
    ["the broker plugin", "native/main.js"],
  ])("%s loads no library it needs only later", (_what, entry) => {
    const loaded = packagesLoadedBy(path.join(DIST, entry));
    expect(loaded.length, "the check sees the packages the entry loads").toBeGreaterThan(0);
    for (const library of ON_DEMAND_LIBRARIES) expect(loaded).not.toContain(library);
  });

  it("loads each library when its first use comes", () => {
    const loaded = packagesLoadedBy(
      path.join(DIST, "index.js"),
      `const pkg = require(${JSON.stringify(path.join(DIST, "index.js"))});
       pkg.validateBrokerConfig({ workspaces: [] });
       pkg.formatBrokerConfig({ workspaces: [] }, "yaml");
       new (require(${JSON.stringify(path.join(DIST, "client/index.js"))}).BrokerClient)({ baseUrl: "http://127.0.0.1:1/v1", apiKey: "k" });`,
    );
    for (const library of ON_DEMAND_LIBRARIES) expect(loaded).toContain(library);
  });
});
