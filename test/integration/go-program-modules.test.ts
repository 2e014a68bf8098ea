/**
 * The Go programs the tests build (test/programs, test/e2e/programs and examples) require their
 * modules at the versions the default leg's Pulumi CLI build selects (issue #50). Go's build cache
 * reuses a compiled package only when its version and all its dependencies' are the same, so
 * aligned, a new machine's run compiles Pulumi's Go SDK and its dependencies once, in the CLI's
 * build before the tests, rather than again in the tests' first Go builds, three at once
 * (scripts/align-go-programs.sh says more).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { cacheDir, PULUMI_VERSION, REPO_ROOT } from "../../harness/repo.mts";

/** The module the CLI is built from (scripts/ensure-pulumi-cli.sh), on a machine that built it. */
const CLI_GO_MOD = cacheDir("pulumi-cli", `v${PULUMI_VERSION}`, "cli-module", "go.mod");

/** Each module a go.mod requires, with its version. */
function requiredVersions(goMod: string): Map<string, string> {
  const versions = new Map<string, string>();
  let inRequireBlock = false;
  for (const line of goMod.split("\n")) {
    const trimmed = line.replace(/\/\/.*$/u, "").trim();
    if (trimmed === "require (") inRequireBlock = true;
    else if (trimmed === ")") inRequireBlock = false;
    const requirement = inRequireBlock ? trimmed : /^require\s+(.*)$/u.exec(trimmed)?.[1];
    const [module, version] = requirement?.split(/\s+/u) ?? [];
    if (module !== undefined && version?.startsWith("v") === true) versions.set(module, version);
  }
  return versions;
}

/** Where the tests' Go programs are, from the repository's root: each directory with a go.mod. */
const PROGRAM_PARENTS = ["test/programs", "test/e2e/programs", "examples"];
const programs = PROGRAM_PARENTS.flatMap((parent) =>
  fs
    .readdirSync(path.join(REPO_ROOT, parent))
    .map((dir) => `${parent}/${dir}`)
    .filter((dir) => fs.existsSync(path.join(REPO_ROOT, dir, "go.mod"))),
);

describe.skipIf(!fs.existsSync(CLI_GO_MOD))("the Go test programs' modules", () => {
  const cli = fs.existsSync(CLI_GO_MOD)
    ? requiredVersions(fs.readFileSync(CLI_GO_MOD, "utf8"))
    : new Map<string, string>();
  it("are the programs with a go.mod", () => {
    expect(programs.sort()).toEqual([
      "examples/native-go",
      "test/e2e/programs/go-host",
      "test/programs/go-native",
      "test/programs/lookups-go",
    ]);
  });

  it.each(programs)(
    "%s requires every module it shares with the Pulumi CLI's build at the CLI's version (run scripts/align-go-programs.sh)",
    (program) => {
      const own = requiredVersions(fs.readFileSync(path.join(REPO_ROOT, program, "go.mod"), "utf8"));
      const shared = [...own.keys()].filter((module) => cli.has(module));
      // gRPC, protobuf and Pulumi's Go SDK, at least: the modules whose packages most others import.
      expect(shared).toEqual(
        expect.arrayContaining([
          "google.golang.org/grpc",
          "google.golang.org/protobuf",
          "github.com/pulumi/pulumi/sdk/v3",
        ]),
      );
      const differing = shared.filter((module) => own.get(module) !== cli.get(module));
      expect(differing.map((module) => `${module} ${own.get(module)} (CLI: ${cli.get(module)})`)).toEqual([]);
    },
  );
});
