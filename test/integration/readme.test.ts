import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { GO_SDK_DIR, goSdkModule } from "../../harness/repo.mts";
import { validateBrokerConfig } from "../../src/config-as-data";

// Every code block of README.md is checked: TypeScript is type-checked against the built package
// (as a user's program compiles), Python runs against the generated SDK (sdk/python) under Pulumi's
// mocks, Go is the program the Go end-to-end test builds and runs, YAML and JSON are parsed, shell
// is syntax-checked and may only call the tools the README tells users to have.

const root = path.join(__dirname, "../..");
const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
const blocks = [...readme.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gmu)].map((m, index) => ({
  index,
  language: m[1]!,
  code: m[2]!,
}));

/** A TypeScript `paths` entry for each subpath of the package's `exports` that has types. */
function exportedTypes(): Record<string, string[]> {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
    exports: Record<string, string | { types?: string }>;
  };
  return Object.fromEntries(
    Object.entries(manifest.exports).flatMap(([subpath, target]) =>
      typeof target === "object" && target.types !== undefined
        ? [[path.posix.join("pulumi-broker-config", subpath), [target.types]]]
        : [],
    ),
  );
}

/** The Go program test/e2e/go-sdk.test.ts builds and runs, from `package main` on (its leading comment is about the test). */
function goExample(): string {
  const program = fs.readFileSync(path.join(root, "test", "programs", "go-native", "main.go"), "utf8");
  return program.slice(program.indexOf("package main"));
}

describe("README code blocks", () => {
  it("has blocks of every kind it uses, each with a language", () => {
    expect(blocks.length).toBeGreaterThan(5);
    expect(readme.match(/^```$/gmu)?.length).toBe(blocks.length);
    expect(new Set(blocks.map((b) => b.language))).toEqual(new Set(["go", "python", "sh", "ts", "yaml"]));
  });

  it("type-checks every TypeScript block against the built package", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-readme-"));
    try {
      const files = blocks
        .filter((b) => b.language === "ts")
        .map((b) => {
          const file = path.join(dir, `block${b.index}.ts`);
          // Each block is its own module, as each is a separate snippet.
          fs.writeFileSync(file, `${b.code}\nexport {};\n`);
          return file;
        });
      fs.writeFileSync(
        path.join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "ES2022",
            module: "commonjs",
            moduleResolution: "node10",
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: ["node"],
            typeRoots: [path.join(root, "node_modules/@types")],
            baseUrl: root,
            // Each subpath the package exports, resolved as its `exports` map says.
            paths: { ...exportedTypes(), "@pulumi/pulumi": ["node_modules/@pulumi/pulumi"] },
          },
          files,
        }),
      );
      const tsc = path.join(root, "node_modules/typescript/bin/tsc");
      const run = (): string => execFileSync(process.execPath, [tsc, "-p", dir], { encoding: "utf8" });
      expect(run).not.toThrow();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("parses every YAML block, and validates configuration documents against the schema", () => {
    let documents = 0;
    for (const block of blocks.filter((b) => b.language === "yaml")) {
      const parsed = parseYaml(block.code) as unknown;
      if (parsed !== null && typeof parsed === "object" && "version" in parsed) {
        documents++;
        expect(validateBrokerConfig(parsed)).toEqual([]);
      }
    }
    expect(documents).toBeGreaterThan(0);
  });

  it("shows as its YAML quickstart the program test/e2e/release.test.ts runs", () => {
    const program = fs.readFileSync(
      path.join(root, "test", "programs", "yaml-native", "Pulumi.yaml"),
      "utf8",
    );
    expect(blocks.filter((b) => b.language === "yaml").map((b) => b.code)).toContain(program);
  });

  it("syntax-checks every shell block and uses only documented tools", () => {
    for (const block of blocks.filter((b) => b.language === "sh")) {
      execFileSync("bash", ["-n"], { input: block.code });
      for (const line of block.code.split("\n").map((l) => l.replace(/#.*$/u, "").trim())) {
        if (line === "") continue;
        // Leading VAR=value assignments are part of a command line.
        const command = line.split(/\s+/u).find((word) => !/^[A-Z_]+=/u.test(word));
        expect(["npm", "npx", "pulumi", "python3", "pip", "go"]).toContain(command);
      }
    }
  });

  it("runs every Python block against the generated SDK under Pulumi's mocks", () => {
    // The venv of scripts/ensure-python-host.sh (PyPI pulumi at the default CLI's version), ready since the
    // global setup; the SDK is imported from sdk/python, without writing bytecode into it.
    const venv = execFileSync("bash", [path.join(root, "scripts", "ensure-python-host.sh")], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-readme-python-"));
    try {
      // An unknown argument or class fails the block's constructor call: the mocks only stand in
      // for the engine, the SDK's classes are the real ones.
      fs.writeFileSync(
        path.join(dir, "run_with_mocks.py"),
        [
          "import runpy, sys",
          "import pulumi",
          "class Mocks(pulumi.runtime.Mocks):",
          "    def new_resource(self, args):",
          "        return [f'{args.name}-id', dict(args.inputs)]",
          "    def call(self, args):",
          "        return {}",
          "pulumi.runtime.set_mocks(Mocks(), preview=False)",
          "runpy.run_path(sys.argv[1], run_name='__main__')",
          "",
        ].join("\n"),
      );
      // The SDK reads its own version from its installed distribution's metadata: a dist-info
      // beside the source tree stands in for `pip install` (which builds the package from PyPI's
      // setuptools, not for a unit test).
      const version = /^\s*version = "([^"]+)"$/mu.exec(
        fs.readFileSync(path.join(root, "sdk", "python", "pyproject.toml"), "utf8"),
      )?.[1];
      expect(version).toBeDefined();
      const distInfo = path.join(dir, "site", `pulumi_broker-${version}.dist-info`);
      fs.mkdirSync(distInfo, { recursive: true });
      fs.writeFileSync(
        path.join(distInfo, "METADATA"),
        `Metadata-Version: 2.1\nName: pulumi_broker\nVersion: ${version}\n`,
      );
      const pythonPath = [path.join(root, "sdk", "python"), path.join(dir, "site")].join(path.delimiter);
      const python = blocks.filter((b) => b.language === "python");
      expect(python.length).toBeGreaterThan(0);
      for (const block of python) {
        const file = path.join(dir, `block${block.index}.py`);
        fs.writeFileSync(file, block.code);
        execFileSync(path.join(venv, "bin", "python"), [path.join(dir, "run_with_mocks.py"), file], {
          env: { ...process.env, PYTHONPATH: pythonPath, PYTHONDONTWRITEBYTECODE: "1" },
          stdio: ["ignore", "pipe", "pipe"],
        });
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("shows as its Go example the program that test/e2e/go-sdk.test.ts builds and runs", () => {
    const go = blocks.filter((b) => b.language === "go");
    expect(go.map((b) => b.code)).toContain(goExample());
  });

  it(
    "builds every further Go block as a program against the generated SDK (sdk/go/broker)",
    { timeout: 600_000 },
    () => {
      const further = blocks.filter((b) => b.language === "go" && b.code !== goExample());
      expect(further.length).toBeGreaterThan(0);
      const programDir = path.join(root, "test", "programs", "go-native");
      for (const block of further) {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-readme-go-"));
        try {
          // The Go example's module, with the SDK taken from this checkout as the README says.
          for (const file of ["go.mod", "go.sum"])
            fs.copyFileSync(path.join(programDir, file), path.join(dir, file));
          fs.appendFileSync(path.join(dir, "go.mod"), `\nreplace ${goSdkModule()} => ${GO_SDK_DIR}\n`);
          fs.writeFileSync(path.join(dir, "main.go"), block.code);
          execFileSync("go", ["build", "-o", os.devNull, "."], {
            cwd: dir,
            env: { ...process.env, GOFLAGS: "-mod=mod", CGO_ENABLED: "0" },
            stdio: ["ignore", "ignore", "inherit"],
          });
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      }
    },
  );
});
