/**
 * The package installed as users get it: `npm pack` of the built package, `npm install` of the
 * tarball (with @pulumi/pulumi at our version) into a fresh directory. Pulumi's closure serializer
 * emits a short `require()` for our provider modules only when the package sits in a real
 * `node_modules`; a symlinked package would be copied into the state instead, so sizes and timings
 * measured without this would not be what users see. (test/support/package-fixture.ts does the same
 * for the tests; it cannot be loaded by plain Node.)
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/** Installs the packed package into a new directory under `parent` and returns that directory. */
export function createPackageFixture(repoRoot: string, parent: string): string {
  fs.mkdirSync(parent, { recursive: true });
  const dir = fs.mkdtempSync(path.join(parent, "fixture-"));
  const packOutput = execFileSync("npm", ["pack", "--json", "--pack-destination", dir], {
    cwd: repoRoot,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [packed] = JSON.parse(packOutput) as { filename: string }[];
  if (packed === undefined) throw new Error("npm pack reported no tarball");
  const pulumiPackage = path.join(repoRoot, "node_modules/@pulumi/pulumi/package.json");
  const { version } = JSON.parse(fs.readFileSync(pulumiPackage, "utf8")) as { version: string };
  fs.writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: "pbc-bench-fixture", private: true }),
  );
  execFileSync(
    "npm",
    [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      "--no-package-lock",
      path.join(dir, packed.filename),
      `@pulumi/pulumi@${version}`,
    ],
    { cwd: dir, stdio: ["ignore", "ignore", "inherit"] },
  );
  fs.rmSync(path.join(dir, packed.filename));
  return dir;
}
