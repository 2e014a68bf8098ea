/**
 * The engine matrix: which Pulumi CLI and which `@pulumi/pulumi` version each vitest project runs
 * with. `vitest.config.mts` makes one project per leg, and `test/global-setup.ts` prepares the CLI
 * and the package fixture of the project it runs for, by the project's name.
 *
 * The main leg runs every test file with the CLI and SDK of our devDependencies. The other legs
 * run only {@link MATRIX_FILES} (and the newest CLI's leg {@link PYTHON_FILE}), the tests that show whether the plugin and the dynamic providers
 * still work with another engine or SDK: a newer CLI speaks a newer provider protocol to the
 * `broker` plugin, and an older or newer `@pulumi/pulumi` brings other gRPC stubs (the plugin
 * serves with the ones installed beside it) and another dynamic-provider host.
 *
 * A leg runs only what it can prove that an earlier leg did not. What a case depends on is one of
 * two {@link EngineLayer}s: the CLI (the engine's own features and its protocol to the plugin: the
 * order of a replacement's create and delete, `Cancel` on Ctrl-C, `pulumi import --file`,
 * `packages:` in Pulumi.yaml), or the SDK (the `@pulumi/pulumi` the plugin serves its gRPC with, the
 * dynamic-provider host and the program's own SDK), which most cases reach. Each leg names the
 * layers it is the first to bring ({@link EngineLeg.proves}); a case that reaches the CLI alone is
 * written with {@link cliCase}'s options and is skipped (shown as skipped) in a leg whose CLI an
 * earlier leg already runs. So the two legs of CLI 3.274.1 share the CLI-only cases: the newest
 * SDK's leg runs them, the lowest SDK's leg runs only what its old stubs and old dynamic host change.
 * Per file, what the lowest SDK's leg skips and where the same path still runs in that leg:
 * - `native.test.ts`: Ctrl-C during a rate-limit wait (the CLI's `Cancel`; the plugin's answer is
 *   our code) and `packages:` (the CLI finding the plugin): every other case, Handshake included.
 * - `names-and-rotation.test.ts`: the replacements' new names and new-first order (one `up` that
 *   replaces a key for a new type and keys for a new rotation trigger: the engine orders creates
 *   and deletes): replacements through the old stubs and the old dynamic host run in
 *   `lifecycle.test.ts` (step 6) and `native.test.ts` (`replaceOnChanges`) of that leg.
 * - `migrate.test.ts`: `pulumi import --file` (a CLI command): the plugin's `Read` without state
 *   through the old stubs runs in `native.test.ts`'s import case of that leg.
 * - `lifecycle.test.ts`: nothing; every step is a call of the dynamic-provider host, which the SDK brings.
 *
 * A case whose outcome no CLI or SDK version changes beyond what the other cases of its leg show
 * is written with {@link coreCase}'s options and runs in the main leg alone (the `core` layer):
 * docs/offline-engine.md lists each one and why.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { PULUMI_VERSION, REPO_ROOT } from "./repo.mts";

/**
 * What a leg is the first to run: `cli`, the Pulumi CLI (the engine and its protocol to
 * providers); `sdk`, the `@pulumi/pulumi` beside the package (gRPC stubs, the dynamic-provider
 * host, the program's SDK); or `core`, what a case adds that no CLI or SDK version changes (our
 * core's own decisions, or a path another case of the same leg already runs), which the main leg
 * alone runs ({@link coreCase}).
 */
export type EngineLayer = "cli" | "sdk" | "core";

/** One leg of the matrix: a vitest project. */
export interface EngineLeg {
  /** The vitest project's name (`--project <name>` runs only this leg). */
  readonly name: string;
  /** The Pulumi CLI version (built by `scripts/ensure-pulumi-cli.sh <version>`). */
  readonly cliVersion: string;
  /** The `@pulumi/pulumi` version installed in the package fixture beside the package. */
  readonly sdkVersion: string;
  /** The test files the leg runs (globs); the main leg runs them all. */
  readonly include: readonly string[];
  /**
   * The layers this leg is the first to run at its version: a case that reaches only a layer the
   * leg does not name is skipped there ({@link cliCase}).
   */
  readonly proves: readonly EngineLayer[];
}

/**
 * The newest CLI the Go module proxy serves here (`github.com/pulumi/pulumi/pkg/v3`), which users
 * who install Pulumi today run.
 */
export const NEWEST_CLI_VERSION = "3.274.1";

/** The newest `@pulumi/pulumi` the npm registry serves here. */
export const NEWEST_SDK_VERSION = "3.270.0";

/**
 * The lowest `@pulumi/pulumi` the package declares it supports: the floor of its peer dependency
 * range (`^3.x.y` or `>=3.x.y`), read from package.json so that the matrix tests what is declared.
 */
export const LOWEST_SDK_VERSION = peerFloor();

/**
 * The end-to-end tests every leg runs: the native plugin through the TypeScript SDK, the dynamic
 * resources' lifecycle, and the migration from dynamic to native resources. What differs between
 * legs is the engine's protocol to the plugin (the CLI) and the gRPC stubs and dynamic-provider
 * host of `@pulumi/pulumi` (the SDK): these files reach both.
 */
export const MATRIX_FILES = [
  "test/e2e/native.test.ts",
  "test/e2e/lifecycle.test.ts",
  "test/e2e/migrate.test.ts",
  // `pulumi:autonaming` is worked out by the engine and sent to the plugin: checked with every CLI.
  "test/e2e/names-and-rotation.test.ts",
] as const;

/**
 * The Python quickstart, run again where the CLI differs from the main leg's. A Python program
 * brings its own SDK (PyPI `pulumi`, the same in every leg), so what another leg changes for it is
 * the CLI (its Python language host and its protocol to the plugin). The plugin's gRPC stubs come
 * from the leg's `@pulumi/pulumi` whatever the program's language, and `native.test.ts` covers them
 * in every leg: a second leg with the same CLI and only other stubs would repeat both.
 */
export const PYTHON_FILE = "test/e2e/python-sdk.test.ts";

/** The name of the main leg, which runs every test file. */
export const MAIN_LEG = "main";

/**
 * The legs, the main one first. The newest CLI runs with the newest SDK (what a new project gets)
 * and with the lowest declared one (an old project whose team installed a new CLI).
 */
export const ENGINE_LEGS: readonly EngineLeg[] = [
  {
    name: MAIN_LEG,
    cliVersion: PULUMI_VERSION,
    sdkVersion: PULUMI_VERSION,
    include: ["test/**/*.test.ts"],
    proves: ["cli", "sdk", "core"],
  },
  {
    name: `cli-${NEWEST_CLI_VERSION}+sdk-${NEWEST_SDK_VERSION}`,
    cliVersion: NEWEST_CLI_VERSION,
    sdkVersion: NEWEST_SDK_VERSION,
    include: [...MATRIX_FILES, PYTHON_FILE],
    proves: ["cli", "sdk"],
  },
  {
    // The same CLI as the leg before: only the SDK is new here.
    name: `cli-${NEWEST_CLI_VERSION}+sdk-${LOWEST_SDK_VERSION}`,
    cliVersion: NEWEST_CLI_VERSION,
    sdkVersion: LOWEST_SDK_VERSION,
    include: MATRIX_FILES,
    proves: ["sdk"],
  },
];

/** The leg of vitest project `name`; throws for a project the matrix does not know. */
export function engineLeg(name: string): EngineLeg {
  const leg = ENGINE_LEGS.find((l) => l.name === name);
  if (leg === undefined) {
    throw new Error(
      `vitest project "${name}" is no leg of the engine matrix (${ENGINE_LEGS.map((l) => l.name).join(", ")})`,
    );
  }
  return leg;
}

/**
 * The options of a test case (`it(name, cliCase(layers), fn)`) whose outcome depends on the CLI
 * alone: skipped in a leg (`layers`, the leg's {@link EngineLeg.proves}) whose CLI an earlier leg
 * already runs, as a skipped test the report shows.
 */
export function cliCase(layers: readonly EngineLayer[]): { skip: boolean } {
  return { skip: !layers.includes("cli") };
}

/**
 * The options of a test case (`it(name, coreCase(layers), fn)`) that the main leg alone runs: what
 * it checks beyond the other cases of its file is our own code's outcome (a refusal of the core, a
 * second run of a path the leg already runs), which another CLI or SDK cannot change. Another leg
 * shows it as skipped; docs/offline-engine.md says, per case, why the version cannot change it.
 */
export function coreCase(layers: readonly EngineLayer[]): { skip: boolean } {
  return { skip: !layers.includes("core") };
}

function peerFloor(): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
    peerDependencies?: Record<string, string>;
  };
  const range = manifest.peerDependencies?.["@pulumi/pulumi"] ?? "";
  const floor = /^(?:\^|>=\s*)(\d+\.\d+\.\d+)/u.exec(range)?.[1];
  if (floor === undefined) {
    throw new Error(`package.json's peer range for @pulumi/pulumi ("${range}") has no floor to test`);
  }
  return floor;
}
