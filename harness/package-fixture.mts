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
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { cacheRoot } from "../scripts/release/plugin.mts";
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
  // Cached by its inputs (the tarball's bytes, each version, Node's and npm's): each leg of the
  // engine matrix packs a fixture before its first test, and the install took 30 s a leg on a
  // loaded machine where the copy of a cached one takes seconds. `npm pack` gives the same bytes for
  // the same build (npm fixes every entry's time), so a new build of unchanged sources hits the cache.
  npmInstallCached(
    dir,
    [
      path.join(dir, packed.filename),
      `@pulumi/pulumi@${sdkVersion}`,
      // What a project that runs the broker policy pack adds (docs/policy-pack.md): the pack and
      // the `pulumi-broker-config/policy` types need it. Its own @pulumi/pulumi range admits the
      // matrix's older SDKs, so npm installs a copy of its own under it for those.
      `@pulumi/policy@${POLICY_SDK_VERSION}`,
    ],
    ["--ignore-scripts", "--no-package-lock"],
  );
  // The tarball stays beside node_modules: a test that installs the package as a user does (the
  // README's `npm install <tarball>`) takes it from here instead of packing again ({@link fixtureTarball}).
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

/** The packed package (`npm pack` of the build) that {@link createPackageFixture} installed into `fixture`. */
export function fixtureTarball(fixture: string): string {
  const [tarball, ...more] = fs.readdirSync(fixture).filter((f) => f.endsWith(".tgz"));
  if (tarball === undefined || more.length > 0)
    throw new Error(`${fixture} holds ${more.length + (tarball === undefined ? 0 : 1)} tarballs, not one`);
  return path.join(fixture, tarball);
}

/**
 * `npm install --prefer-offline <specs>` in the Node.js project `dir`, as a user runs it there, with
 * its result (node_modules, package.json, package-lock.json) cached outside the repository by its
 * inputs: `dir`'s package.json, each spec (a tarball by its content), the `flags` given to npm
 * (added after the specs' `npm install`), and the Node.js and npm versions. A later call with the
 * same inputs copies that result into `dir` instead of installing (seconds instead of a minute on a
 * loaded machine); each project still gets a copy of its own.
 * `--prefer-offline` already resolves ranges from npm's cached metadata, however old, so the cache
 * adds no staleness of its own.
 */
export function npmInstallCached(dir: string, specs: readonly string[], flags: readonly string[] = []): void {
  const packageJson = path.join(dir, "package.json");
  const npmVersion = execFileSync("npm", ["--version"], { encoding: "utf8" }).trim();
  const hash = createHash("sha256")
    .update(`${process.version}\0${npmVersion}\0`)
    // Only when given, so that the entries of calls without flags keep their keys.
    .update(flags.map((flag) => `${flag}\0`).join(""))
    .update(fs.readFileSync(packageJson))
    .update("\0");
  // The same inputs but a tarball's name for its bytes: the entries of earlier builds of a package.
  const lineage = hash.copy();
  for (const spec of specs) {
    hash.update(spec.endsWith(".tgz") ? fs.readFileSync(spec) : spec).update("\0");
    lineage.update(spec.endsWith(".tgz") ? path.basename(spec) : spec).update("\0");
  }
  const root = path.join(cacheRoot(), "npm-installs");
  const cached = path.join(root, hash.digest("hex").slice(0, 16));
  const lineageName = lineage.digest("hex").slice(0, 16);
  const results = ["node_modules", "package.json", "package-lock.json"];
  if (!fs.existsSync(cached)) {
    execFileSync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", ...flags, ...specs], {
      cwd: dir,
      stdio: ["ignore", "ignore", "inherit"],
    });
    // By rename, so a concurrent run never sees half a directory; whichever run renames first wins.
    const ready = `${cached}.${process.pid}.tmp`;
    fs.mkdirSync(ready, { recursive: true });
    for (const name of results) {
      // `--no-package-lock` writes no lock file.
      if (!fs.existsSync(path.join(dir, name))) continue;
      fs.cpSync(path.join(dir, name), path.join(ready, name), { recursive: true, verbatimSymlinks: true });
    }
    fs.writeFileSync(path.join(ready, LINEAGE_FILE), lineageName);
    try {
      fs.renameSync(ready, cached);
    } catch (error) {
      fs.rmSync(ready, { recursive: true, force: true });
      if (!fs.existsSync(cached)) throw error;
    }
    pruneLineage(root, lineageName, cached);
    return;
  }
  // Marks the entry as used: pruning spares what a run took lately.
  const now = new Date();
  fs.utimesSync(cached, now, now);
  for (const name of results) {
    if (!fs.existsSync(path.join(cached, name))) continue;
    fs.cpSync(path.join(cached, name), path.join(dir, name), { recursive: true, verbatimSymlinks: true });
  }
}

/** The file in a cache entry of {@link npmInstallCached} naming its lineage (its inputs, tarballs by name). */
const LINEAGE_FILE = "lineage";

/**
 * An entry of an earlier build stays this long after a run last took it: a run that started before
 * a new build may still be copying from it.
 */
const SUPERSEDED_ENTRY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Removes the entries of `lineage` other than `current` that no run took for a day: a package
 * tarball's bytes change with each build, so without this every build of the package would leave
 * a copy of its whole install (over 100 MB) behind.
 */
function pruneLineage(root: string, lineage: string, current: string): void {
  for (const name of fs.readdirSync(root)) {
    const entry = path.join(root, name);
    if (entry === current || name.endsWith(".tmp")) continue;
    try {
      if (fs.readFileSync(path.join(entry, LINEAGE_FILE), "utf8") !== lineage) continue;
      if (Date.now() - fs.statSync(entry).mtimeMs < SUPERSEDED_ENTRY_TTL_MS) continue;
      fs.rmSync(entry, { recursive: true, force: true });
    } catch {
      // An entry of another lineage, or of a version that wrote none, or gone meanwhile: kept as is.
    }
  }
}
