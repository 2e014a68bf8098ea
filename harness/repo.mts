/**
 * Where the harness finds things: the repository root and the Pulumi CLI. Shared by the tests
 * (vitest) and the bench (plain `node`), like every module of `harness/`.
 *
 * Every module of `harness/` is an ES module (`.mts`) written in erasable TypeScript only (no
 * enums, namespaces or parameter properties, types imported with `import type`), so that Node
 * runs it by stripping the types, and it imports other modules by their real file name
 * (`./repo.mts`), which Node needs and `rewriteRelativeImportExtensions` lets the type checker accept.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The project's cache directory outside the repository, `$XDG_CACHE_HOME/pulumi-broker-config`
 * (`~/.cache/pulumi-broker-config` without it), the root the scripts cache their builds under too
 * (`scripts/ensure-pulumi-cli.sh` and `scripts/lib/language-host.sh`). With `parts`, a path inside it.
 */
export function cacheDir(...parts: string[]): string {
  const root = process.env["XDG_CACHE_HOME"] ?? path.join(os.homedir(), ".cache");
  return path.join(root, "pulumi-broker-config", ...parts);
}

/**
 * The V8 code cache (`NODE_COMPILE_CACHE`, Node >= 22.1) the tests' Node.js processes share: the
 * environment's, else {@link cacheDir}'s `node-compile-cache`. The projects' commands
 * (harness/pulumi-project.mts) and the test files' workers (vitest.config.mts) use it.
 */
export function nodeCompileCacheDir(): string {
  return process.env["NODE_COMPILE_CACHE"] ?? cacheDir("node-compile-cache");
}

/**
 * The generated Go SDK's module directory. Its root is the package (`broker`), so that the Go
 * language host finds the module's `pulumi-plugin.json` there (scripts/gen-sdk/main.go says why).
 */
export const GO_SDK_DIR = path.join(REPO_ROOT, "sdk", "go", "broker");

/** The Go SDK's module path (its go.mod's, which is schema.json's `language.go.importBasePath`). */
export function goSdkModule(): string {
  const found = /^module (\S+)$/mu.exec(fs.readFileSync(path.join(GO_SDK_DIR, "go.mod"), "utf8"))?.[1];
  if (found === undefined) throw new Error(`${GO_SDK_DIR}/go.mod names no module`);
  return found;
}

/**
 * The environment of every Go build a test makes of a program against the generated SDK: the Go
 * language host's `go build` (which inherits the CLI's environment), and the `go build`/`go vet` the
 * tests run themselves. Go's build cache reuses a compiled package only under the same build flags,
 * so these are the flags of every Go build of the scripts (`scripts/lib/go-build-env.sh`: the CLI,
 * the hosts, the generators, the generated SDK's check), and the standard library, the Pulumi Go SDK
 * and its dependencies compile once per machine rather than once per flag set
 * (docs/offline-engine.md, "Go builds on a new machine"):
 * - `CGO_ENABLED=0`: the programs are pure Go, and with the default (cgo on where a C compiler is
 *   found) the same packages compiled again.
 * - `-trimpath` keeps each package's directory out of the cache keys, so a test with a module cache
 *   of its own (test/e2e/release-go-and-component.test.ts) finds what the others compiled.
 * - `-mod=mod`: the module graph may need go.sum entries the committed ones lack (another Go
 *   version), which are fetched.
 */
export const GO_BUILD_ENV: Readonly<Record<"CGO_ENABLED" | "GOFLAGS", string>> = {
  CGO_ENABLED: "0",
  GOFLAGS: "-mod=mod -trimpath",
};

/**
 * The version of the `@pulumi/pulumi` devDependency: the version the Pulumi CLI, its language hosts
 * and the Python SDK are built or installed at.
 */
export const PULUMI_VERSION = (
  JSON.parse(
    fs.readFileSync(path.join(REPO_ROOT, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8"),
  ) as { version: string }
).version;

/**
 * The version of the `@pulumi/policy` devDependency: the policy SDK the package fixture installs
 * beside the package, as a project that runs the broker policy pack does (docs/policy-pack.md).
 */
export const POLICY_SDK_VERSION = (
  JSON.parse(
    fs.readFileSync(path.join(REPO_ROOT, "node_modules", "@pulumi", "policy", "package.json"), "utf8"),
  ) as { version: string }
).version;

/**
 * The directory holding the `pulumi` CLI at `version` (default: {@link PULUMI_VERSION}), its
 * Node.js, Python and Go language hosts and the dynamic-provider plugin, made ready by
 * `scripts/ensure-pulumi-cli.sh` (which builds the CLI offline the first time on a machine, cached by
 * version, and answers in seconds after that).
 */
export function pulumiBinDir(version?: string): string {
  const script = path.join(REPO_ROOT, "scripts", "ensure-pulumi-cli.sh");
  return execFileSync("bash", version === undefined ? [script] : [script, version], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
}

/** PATH for child processes: `pulumiBin` first (when given), then this Node, then the inherited PATH. */
export function childPath(pulumiBin?: string): string {
  const parts = [path.dirname(process.execPath), process.env["PATH"] ?? ""];
  if (pulumiBin !== undefined) parts.unshift(pulumiBin);
  return parts.join(path.delimiter);
}
