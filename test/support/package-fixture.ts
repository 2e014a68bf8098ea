import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** The repository root. */
export const REPO_ROOT = path.resolve(__dirname, "../..");

/**
 * Installs the package the way users get it: `npm pack` of the built package, then `npm install` of
 * that tarball (with @pulumi/pulumi at the version this repository uses) into a fresh project
 * directory. A real install matters: Pulumi's closure serializer only emits a short `require()` for a
 * provider module when it can resolve the package from its own copy of @pulumi/pulumi, as in a
 * user's project; with symlinked dependencies it copies our code into the state instead.
 * `--prefer-offline` makes it use npm's cache, which `npm ci` has just filled.
 *
 * Returns the fixture directory; a Pulumi project uses it by linking its `node_modules` to
 * `<dir>/node_modules`.
 */
export function createPackageFixture(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-fixture-"));
  const packOutput = execFileSync("npm", ["pack", "--json", "--pack-destination", dir], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [{ filename }] = JSON.parse(packOutput) as [{ filename: string }];
  const pulumiVersion = (
    JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "node_modules/@pulumi/pulumi/package.json"), "utf8")) as {
      version: string;
    }
  ).version;
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "pbc-fixture", private: true }));
  execFileSync(
    "npm",
    [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      "--no-package-lock",
      path.join(dir, filename),
      `@pulumi/pulumi@${pulumiVersion}`,
    ],
    { cwd: dir, stdio: ["ignore", "ignore", "inherit"] },
  );
  fs.rmSync(path.join(dir, filename));
  return dir;
}
