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
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { PULUMI_VERSION, REPO_ROOT } from "./repo.mts";

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
  { name: MAIN_LEG, cliVersion: PULUMI_VERSION, sdkVersion: PULUMI_VERSION, include: ["test/**/*.test.ts"] },
  {
    name: `cli-${NEWEST_CLI_VERSION}+sdk-${NEWEST_SDK_VERSION}`,
    cliVersion: NEWEST_CLI_VERSION,
    sdkVersion: NEWEST_SDK_VERSION,
    include: [...MATRIX_FILES, PYTHON_FILE],
  },
  {
    name: `cli-${NEWEST_CLI_VERSION}+sdk-${LOWEST_SDK_VERSION}`,
    cliVersion: NEWEST_CLI_VERSION,
    sdkVersion: LOWEST_SDK_VERSION,
    include: MATRIX_FILES,
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
