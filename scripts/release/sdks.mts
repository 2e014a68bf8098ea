/**
 * The Python and Go SDKs as a release ships them: generated again from `schema.json` with the
 * release's `pluginDownloadURL` (the committed `sdk/` carries the default one), by the same generator
 * program as `npm run gen:sdk` (scripts/gen-sdk, built once per machine), into a scratch directory.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/** The generator program's path, built by scripts/lib/sdk-generator.sh when not cached yet. */
function sdkGenerator(repo: string): string {
  const script = `repo=${JSON.stringify(repo)}; log() { echo "release: $*" >&2; }; source scripts/lib/sdk-generator.sh; echo "$generator"`;
  return execFileSync("bash", ["-c", script], {
    cwd: repo,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
}

/**
 * The Go SDK's module directory under `sdkRoot` (the repository's `sdk/` or a release's scratch copy):
 * `go/<package>`, the last element of the schema's `language.go.importBasePath`, since the module's
 * root is its package (scripts/gen-sdk/main.go says why).
 */
export function goModuleDir(repo: string, sdkRoot: string): string {
  const schema = JSON.parse(fs.readFileSync(path.join(repo, "schema.json"), "utf8")) as {
    language?: { go?: { importBasePath?: string } };
  };
  const importBasePath = schema.language?.go?.importBasePath;
  if (importBasePath === undefined) throw new Error("schema.json sets no language.go.importBasePath");
  return path.join(sdkRoot, "go", path.posix.basename(importBasePath));
}

/**
 * Writes `<out>/python` and the Go module in {@link goModuleDir}: the SDKs of `schema.json` with
 * `pluginDownloadURL` set to `pluginDownloadUrl`, at `version`. The Go SDK's go.mod and go.sum are the
 * committed ones (the URL changes no dependency, and `npm run gen:sdk -- --check` holds them to the
 * generator's).
 */
export function generateSdks(repo: string, version: string, pluginDownloadUrl: string, out: string): void {
  const schema = JSON.parse(fs.readFileSync(path.join(repo, "schema.json"), "utf8")) as Record<
    string,
    unknown
  >;
  fs.mkdirSync(out, { recursive: true });
  const schemaFile = path.join(out, "schema.json");
  fs.writeFileSync(schemaFile, JSON.stringify({ ...schema, pluginDownloadURL: pluginDownloadUrl }, null, 2));
  execFileSync(
    sdkGenerator(repo),
    ["-schema", schemaFile, "-out", out, "-version", version, "-languages", "python,go"],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  for (const file of ["go.mod", "go.sum"])
    fs.copyFileSync(
      path.join(goModuleDir(repo, path.join(repo, "sdk")), file),
      path.join(goModuleDir(repo, out), file),
    );
}
