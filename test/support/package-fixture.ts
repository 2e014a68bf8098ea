import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** The repository root. */
export const REPO_ROOT = path.resolve(__dirname, "../..");

/**
 * Installs the package the way users get it: `npm pack` of the built package, extracted into
 * `<dir>/node_modules/pulumi-broker-config` (a real directory, not a symlink, so Pulumi's closure
 * serializer sees an installed package and emits a `require()` instead of copying code). Its
 * dependencies are linked from this repository's node_modules, which keeps this offline and fast.
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
  const modules = path.join(dir, "node_modules");
  const target = path.join(modules, "pulumi-broker-config");
  fs.mkdirSync(target, { recursive: true });
  execFileSync("tar", ["xzf", path.join(dir, filename), "-C", target, "--strip-components=1"]);
  fs.rmSync(path.join(dir, filename));
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  const linked = ["@pulumi", "typescript", ...Object.keys(manifest.dependencies ?? {})];
  for (const name of linked) {
    const link = path.join(modules, name);
    fs.mkdirSync(path.dirname(link), { recursive: true });
    if (!fs.existsSync(link)) fs.symlinkSync(path.join(REPO_ROOT, "node_modules", name), link, "dir");
  }
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "pbc-fixture", private: true }));
  return dir;
}
