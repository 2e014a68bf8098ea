import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { REPO_ROOT } from "../../harness/repo.mts";

// Issue #32: a program type-checks against the package as users install it (the packed package
// fixture), importing the root and every subpath of `exports` that has types, with no
// `skipLibCheck`, under the tsconfig `pulumi new typescript` writes (`moduleResolution: "node"`,
// which ignores `exports`: the subpaths resolve through `typesVersions`; `target: "es2020"`, whose
// default lib lacks ES2022 types such as `ErrorOptions`), and under node16, nodenext and bundler
// (which read `exports`). See docs/decisions.md, "Types of the subpaths".

const tsc = path.join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");

/** The compiler options of Pulumi's `typescript` template, as `pulumi new typescript` writes them. */
const TEMPLATE_OPTIONS = {
  strict: true,
  outDir: "bin",
  target: "es2020",
  module: "commonjs",
  moduleResolution: "node",
  sourceMap: true,
  experimentalDecorators: true,
  pretty: true,
  noFallthroughCasesInSwitch: true,
  noImplicitReturns: true,
  forceConsistentCasingInFileNames: true,
};

/** Every import specifier of the package that has types: the root and each typed `exports` subpath. */
function typedSpecifiers(): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
    exports: Record<string, string | { types?: string }>;
  };
  return Object.entries(manifest.exports).flatMap(([subpath, target]) =>
    typeof target === "object" && target.types !== undefined
      ? [path.posix.join("pulumi-broker-config", subpath)]
      : [],
  );
}

const SETTINGS: readonly { name: string; options: Record<string, unknown> }[] = [
  { name: "the template's tsconfig (moduleResolution node)", options: TEMPLATE_OPTIONS },
  {
    name: "node16",
    options: { ...TEMPLATE_OPTIONS, module: "node16", moduleResolution: "node16" },
  },
  {
    name: "nodenext",
    options: { ...TEMPLATE_OPTIONS, module: "nodenext", moduleResolution: "nodenext" },
  },
  {
    name: "bundler",
    options: { ...TEMPLATE_OPTIONS, module: "esnext", moduleResolution: "bundler" },
  },
];

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-subpath-types-"));
  // The fixture's node_modules holds the packed package, @pulumi/pulumi and @types/node, as a
  // template project's `npm install` does.
  fs.symlinkSync(path.join(inject("packageFixture"), "node_modules"), path.join(dir, "node_modules"), "dir");
  fs.writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: "types-check", main: "index.ts", private: true }),
  );
  const specifiers = typedSpecifiers();
  // Each import is used, as a value and as a type, so that a module resolving to `any` would be
  // caught too (strict mode reports an implicitly-`any` module only for missing declarations).
  fs.writeFileSync(
    path.join(dir, "index.ts"),
    [
      ...specifiers.map((s, i) => `import * as m${i} from ${JSON.stringify(s)};`),
      `export const modules: object[] = [${specifiers.map((_, i) => `m${i}`).join(", ")}];`,
      // A few names users write, checked as types.
      `export type Used = [m0.Workspace, m0.AccessKey];`,
      "",
    ].join("\n"),
  );
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("types of every subpath, as a user's project compiles them (no skipLibCheck)", () => {
  it("covers the root and the documented subpaths", () => {
    const specifiers = typedSpecifiers();
    expect(specifiers[0]).toBe("pulumi-broker-config");
    for (const documented of ["native", "client", "emulator", "providers/workspace", "impl/access-key"])
      expect(specifiers).toContain(`pulumi-broker-config/${documented}`);
  });

  it.each(SETTINGS)("type-checks under $name", ({ options }) => {
    fs.writeFileSync(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({ compilerOptions: options, files: ["index.ts"] }, null, 4),
    );
    let output = "";
    try {
      execFileSync(process.execPath, [tsc, "--noEmit", "-p", dir, "--pretty", "false"], {
        cwd: dir,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string };
      output = `${failed.stdout ?? ""}${failed.stderr ?? ""}`;
    }
    expect(output).toBe("");
  });
});
