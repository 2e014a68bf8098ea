/**
 * The package installed as users get it: `npm pack` of the built package, then `npm install` of
 * that tarball (with @pulumi/pulumi at the version this repository uses, or at another version the
 * test matrix asks for) into a fresh directory.
 *
 * A real install matters: Pulumi's closure serializer emits a short `require()` for a provider
 * module only when it can resolve the package from its own copy of @pulumi/pulumi, as in a user's
 * project; with symlinked dependencies it copies our code into the state instead, so neither the
 * tests nor the bench's sizes and timings would show what users get. `--prefer-offline` makes npm
 * use its cache, which `npm ci` has just filled (another @pulumi/pulumi version is downloaded from
 * the npm registry the first time, then comes from that cache too).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { POLICY_SDK_VERSION, PULUMI_VERSION, REPO_ROOT } from "./repo.mts";

/**
 * Installs the packed package, with `@pulumi/pulumi` at `sdkVersion`, into a new directory under
 * `parent` and returns that directory; a Pulumi project uses it by linking its `node_modules` to
 * `<dir>/node_modules`. Needs a build (`dist/`): `npm pack` packs what is there. Fails when npm
 * installs another `@pulumi/pulumi` version than the one asked for.
 */
export function createPackageFixture(
  parent: string = os.tmpdir(),
  sdkVersion: string = PULUMI_VERSION,
): string {
  fs.mkdirSync(parent, { recursive: true });
  const dir = fs.mkdtempSync(path.join(parent, "pbc-fixture-"));
  const packOutput = execFileSync("npm", ["pack", "--json", "--pack-destination", dir], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [packed] = JSON.parse(packOutput) as { filename: string }[];
  if (packed === undefined) throw new Error("npm pack reported no tarball");
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
      path.join(dir, packed.filename),
      `@pulumi/pulumi@${sdkVersion}`,
      // What a project that runs the broker policy pack adds (docs/policy-pack.md): the pack and
      // the `pulumi-broker-config/policy` types need it. Its own @pulumi/pulumi range admits the
      // matrix's older SDKs, so npm installs a copy of its own under it for those.
      `@pulumi/policy@${POLICY_SDK_VERSION}`,
    ],
    { cwd: dir, stdio: ["ignore", "ignore", "inherit"] },
  );
  fs.rmSync(path.join(dir, packed.filename));
  // The matrix means nothing if the programs, the dynamic-provider host and the plugin's gRPC stubs
  // are not the SDK version the leg names.
  const installed = (
    JSON.parse(
      fs.readFileSync(path.join(dir, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8"),
    ) as { version: string }
  ).version;
  if (installed !== sdkVersion) {
    throw new Error(`the package fixture holds @pulumi/pulumi ${installed}, not ${sdkVersion}`);
  }
  return dir;
}
