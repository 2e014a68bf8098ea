// `npm run release`: writes release/ (git-ignored), everything a user installs the package from:
//
//   pulumi-broker-config-<v>.tgz                      the npm package (`npm pack`)
//   pulumi-resource-broker-v<v>-<os>-<arch>.tar.gz    the plugin, one executable needing no Node.js
//   pulumi_broker-<v>-py3-none-any.whl, .tar.gz       the Python SDK's wheel and sdist
//   goproxy/<module>/@v/{list,v<v>.info,.mod,.zip}    the Go SDK as a GOPROXY directory
//   checksums.txt                                     sha256 of every other file
//
// Options (each also an environment variable):
//   --plugin-download-url <url>  (BROKER_PLUGIN_DOWNLOAD_URL) where the SDKs tell the Pulumi CLI to
//                                download the plugin; default: schema.json's (the project's release
//                                page). `${VERSION}` becomes the plugin's version.
//   --platforms <list>           (BROKER_RELEASE_PLATFORMS) plugin platforms, comma-separated;
//                                default linux-amd64,linux-arm64,windows-amd64
//   --only <list>                npm,plugin,python,go (default all)
//   --out <dir>                  default release/ (emptied first)
//
// Reproducible: the times inside come from SOURCE_DATE_EPOCH, by default the commit's time, so two
// runs on one commit give the same bytes (docs/decisions.md, "Release artifacts").
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { goProxyModule } from "./release/goproxy.mts";
import {
  bundlePlugin,
  PLUGIN_PLATFORMS,
  pluginArchive,
  ReleaseError,
  singleExecutable,
} from "./release/plugin.mts";
import { pythonArtifacts } from "./release/python.mts";
import { checksums, sourceDateEpoch } from "./release/reproducible.mts";
import { generateSdks, goModuleDir } from "./release/sdks.mts";

const repo = path.resolve(import.meta.dirname, "..");
const PARTS = ["npm", "plugin", "python", "go"] as const;

/** Stops the release with one line saying what to change: the person running it made no defect. */
function fail(message: string): never {
  console.error(`release: ${message}`);
  process.exit(1);
}

const { values } = parseArgs({
  options: {
    "plugin-download-url": { type: "string" },
    platforms: { type: "string" },
    only: { type: "string" },
    out: { type: "string" },
  },
});
const list = (text: string | undefined): string[] | undefined =>
  text === undefined || text === "" ? undefined : text.split(",").map((s) => s.trim());

const version = (JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")) as { version: string })
  .version;
const schema = JSON.parse(fs.readFileSync(path.join(repo, "schema.json"), "utf8")) as {
  pluginDownloadURL?: string;
};
const pluginDownloadUrl =
  values["plugin-download-url"] ?? (process.env["BROKER_PLUGIN_DOWNLOAD_URL"] || schema.pluginDownloadURL);
if (pluginDownloadUrl === undefined || pluginDownloadUrl === "")
  fail("no pluginDownloadURL: pass --plugin-download-url or set schema.json's");
const platformNames =
  list(values.platforms) ??
  list(process.env["BROKER_RELEASE_PLATFORMS"]) ??
  PLUGIN_PLATFORMS.map((p) => p.name);
const platforms = platformNames.map((name) => {
  const found = PLUGIN_PLATFORMS.find((p) => p.name === name);
  if (found === undefined) fail(`no platform ${name} (${PLUGIN_PLATFORMS.map((p) => p.name).join(", ")})`);
  return found;
});
const parts = new Set(list(values.only) ?? PARTS);
for (const part of parts)
  if (!(PARTS as readonly string[]).includes(part)) fail(`--only takes ${PARTS.join(",")}, not ${part}`);
const out = path.resolve(values.out ?? path.join(repo, "release"));
const epoch = sourceDateEpoch(repo);
const log = (message: string): void => {
  console.error(`release: ${message}`);
};

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
const work = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-release-"));
try {
  log(`version ${version}, pluginDownloadURL ${pluginDownloadUrl}, SOURCE_DATE_EPOCH ${epoch}, into ${out}`);
  if (parts.has("npm")) {
    execFileSync("npm", ["pack", "--silent", "--pack-destination", out], {
      cwd: repo,
      stdio: ["ignore", "ignore", "inherit"],
    });
    log("npm package packed");
  }
  if (parts.has("plugin")) {
    const bundle = path.join(work, "pulumi-resource-broker.cjs");
    await bundlePlugin(repo, version, bundle);
    for (const platform of platforms) {
      const executable = await singleExecutable(bundle, platform);
      const archive = pluginArchive(repo, version, platform, executable, out);
      log(`${path.basename(archive)} (executable ${(fs.statSync(executable).size / 1e6).toFixed(1)} MB)`);
    }
  }
  if (parts.has("python") || parts.has("go")) {
    const sdks = path.join(work, "sdk");
    generateSdks(repo, version, pluginDownloadUrl, sdks);
    if (parts.has("python")) {
      const { wheel, sdist } = pythonArtifacts(repo, path.join(sdks, "python"), version, epoch, out);
      log(`${path.basename(wheel)}, ${path.basename(sdist)}`);
    }
    if (parts.has("go")) {
      const modulePath = goProxyModule(
        repo,
        goModuleDir(repo, sdks),
        version,
        epoch,
        path.join(out, "goproxy"),
      );
      log(`goproxy/${modulePath}@v${version}`);
    }
  }
  fs.writeFileSync(path.join(out, "checksums.txt"), checksums(out));
  log("checksums.txt written");
} catch (error) {
  // A step that cannot go on for a reason the user can fix says so in one line; anything else is a
  // defect and keeps its stack.
  if (!(error instanceof ReleaseError)) throw error;
  process.exitCode = 1;
  log(error.message);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
