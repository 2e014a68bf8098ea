import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { programsVenv, sdkVirtualenv } from "../../harness/python-sdk.mts";
import { GO_BUILD_ENV, GO_SDK_DIR, goSdkModule, REPO_ROOT } from "../../harness/repo.mts";
import {
  comparable,
  expectedRun,
  writeExampleFiles,
  type MockTables,
  type RecordedRun,
} from "../support/example-mocks";
import {
  allExamples,
  exampleName,
  inOtherLanguage,
  readSchema,
  type ExampleProgram,
  type PackageSchema,
} from "../support/registry-docs";

// Issue #34: the Example Usage programs the Registry shows on every resource and function page (from
// schema.json's descriptions, declared in src/core/declarations/examples.ts) are programs that run
// with our SDKs. The TypeScript (compiled once against the package as users install it), the Go
// (built once against sdk/go/broker) and the Python (with the generated SDK's wheel) run under
// Pulumi's mocks, and each must register exactly the resources, with the inputs, and invoke exactly
// the functions, with the arguments, that the same example's YAML program shows
// (test/support/example-mocks.ts). The YAML names only types, properties, functions, arguments and
// outputs the schema has; test/e2e/yaml-examples.test.ts runs it through the real CLI. (The example
// projects under examples/ run through the real CLI in test/e2e/native-examples.test.ts.)

const schema = readSchema(REPO_ROOT);
const examples = allExamples(schema);
const inLanguage = (language: string): ExampleProgram[] => examples.filter((e) => e.language === language);

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-schema-examples-"));
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs `file` and returns its output; a failure becomes the test's failure with the tool's output. */
function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  try {
    return execFileSync(file, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    throw new Error(
      `${path.basename(file)} ${args.join(" ")} failed:\n${failed.stdout ?? ""}${failed.stderr ?? ""}`,
      { cause: error },
    );
  }
}

/**
 * The Go program `code` as a function `entry` of the package that runs the examples under mocks:
 * its `func main()` renamed, and its one `pulumi.Run(` made `runWithMocks(`.
 * @throws when the program has no `func main()` or not exactly one `pulumi.Run(`.
 */
function mockedGoProgram(name: string, code: string, entry: string): string {
  const runs = code.split("pulumi.Run(").length - 1;
  if (runs !== 1 || !code.includes("\nfunc main() {\n")) {
    throw new Error(`${name}: not a program of one func main() calling pulumi.Run once`);
  }
  return code.replace("\nfunc main() {\n", `\nfunc ${entry}() {\n`).replace("pulumi.Run(", "runWithMocks(");
}

/** Runs `file` and returns all it printed, whether it succeeded or not. */
function attempt(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  try {
    return run(file, args, cwd, env);
  } catch (error) {
    return (error as Error).message;
  }
}

/** The examples in `language`, each with the file name it is written to. */
function named(language: string): { name: string; example: ExampleProgram }[] {
  return inLanguage(language).map((example, i) => ({ name: exampleName(example, i), example }));
}

/**
 * Runs `example` under mocks with `driver` (given the file of the mocks' tables, the file to record
 * into, and the tables), and returns what it registered and invoked beside what the same example's YAML
 * program shows.
 */
function runUnderMocks(
  example: ExampleProgram,
  driver: (tablesFile: string, recordFile: string, mocks: MockTables) => void,
): { actual: ReturnType<typeof comparable>; expected: ReturnType<typeof comparable> } {
  const expected = expectedRun(schema, inOtherLanguage(examples, example, "yaml").code);
  const runDir = fs.mkdtempSync(path.join(dir, "run-"));
  const tables = path.join(runDir, "tables.json");
  const record = path.join(runDir, "record.json");
  fs.writeFileSync(tables, JSON.stringify(expected.mocks));
  driver(tables, record, expected.mocks);
  return {
    actual: comparable(JSON.parse(fs.readFileSync(record, "utf8")) as RecordedRun),
    expected: comparable({ registered: expected.resources, invoked: expected.invokes }),
  };
}

describe("the Example Usage programs of schema.json", () => {
  it("come in TypeScript, Python, Go and YAML for every resource and function", () => {
    const tokens = [...Object.keys(schema.resources), ...Object.keys(schema.functions)];
    for (const language of ["typescript", "python", "go", "yaml"]) {
      expect(new Set(inLanguage(language).map((e) => e.token)), language).toEqual(new Set(tokens));
    }
  });

  describe("in TypeScript, against the installed package", () => {
    let project: string;
    /** What tsc printed compiling every program under pulumi new's tsconfig: nothing when all type-check. */
    let tscOutput: string;

    beforeAll(() => {
      project = path.join(dir, "typescript");
      fs.mkdirSync(project);
      writeExampleFiles(project);
      // The packed package with @pulumi/pulumi and @types/node, as a template project's `npm install` gives.
      fs.symlinkSync(
        path.join(inject("packageFixture"), "node_modules"),
        path.join(project, "node_modules"),
        "dir",
      );
      const files = inLanguage("typescript").map((example, i) => {
        const file = `${exampleName(example, i)}.ts`;
        fs.writeFileSync(path.join(project, file), example.code);
        return file;
      });
      fs.writeFileSync(
        path.join(project, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            outDir: "bin",
            target: "es2020",
            module: "commonjs",
            moduleResolution: "node",
            noFallthroughCasesInSwitch: true,
            noImplicitReturns: true,
            forceConsistentCasingInFileNames: true,
            noUnusedLocals: true,
          },
          files,
        }),
      );
      // One compile for every program: it type-checks them and writes the JavaScript the mocks run.
      const tsc = path.join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
      tscOutput = attempt(process.execPath, [tsc, "-p", project, "--pretty", "false"], project);
    });

    it("type-check under pulumi new's tsconfig (no skipLibCheck)", () => {
      expect(tscOutput).toBe("");
    });

    it.each(named("typescript"))(
      "$name runs under Pulumi's mocks and registers and invokes what its YAML program shows",
      ({ name, example }) => {
        const program = path.join(project, "bin", `${name}.js`);
        const driver = path.join(REPO_ROOT, "test", "fixtures", "run-with-mocks.cjs");
        const recorded = runUnderMocks(example, (tables, record) => {
          run(process.execPath, [driver, program, tables, record], project);
        });
        expect(recorded.actual).toEqual(recorded.expected);
      },
    );
  });

  describe("in Go, against sdk/go/broker", () => {
    let module: string;
    /** What building and vetting every program printed, and the files gofmt would change: nothing. */
    let checks: { build: string; vet: string; gofmt: string };
    /** The binary that runs each program, by name, under mocks. */
    const bin = (): string => path.join(module, "run-with-mocks");

    beforeAll(() => {
      module = path.join(dir, "go");
      fs.mkdirSync(module);
      writeExampleFiles(module);
      // The module graph of the README's Go program (its go.sum lists what the SDK needs), with the
      // SDK taken from this checkout as its README says for a clone.
      const goMod = fs
        .readFileSync(path.join(REPO_ROOT, "test", "programs", "go-native", "go.mod"), "utf8")
        .replace(/^module \S+$/mu, "module broker-examples");
      fs.writeFileSync(path.join(module, "go.mod"), `${goMod}\nreplace ${goSdkModule()} => ${GO_SDK_DIR}\n`);
      fs.copyFileSync(
        path.join(REPO_ROOT, "test", "programs", "go-native", "go.sum"),
        path.join(module, "go.sum"),
      );
      // Each program as users copy it; and all of them again in one package run under mocks, each
      // program's `func main()` renamed and its `pulumi.Run(` made `runWithMocks(`
      // (test/fixtures/run-with-mocks.go), nothing else: one binary to link, which runs the program
      // its argument names.
      const mocked = path.join(module, "mocked");
      fs.mkdirSync(mocked);
      const programs = named("go").map(({ name, example }, i) => {
        const main = path.join(module, name, "main.go");
        fs.mkdirSync(path.dirname(main));
        fs.writeFileSync(main, example.code);
        const entry = `example${i}`;
        fs.writeFileSync(path.join(mocked, `${name}.go`), mockedGoProgram(name, example.code, entry));
        return `\t${JSON.stringify(name)}: ${entry},`;
      });
      fs.writeFileSync(
        path.join(mocked, "programs.go"),
        `package main\n\n// programs are the examples by name.\nvar programs = map[string]func(){\n${programs.join("\n")}\n}\n`,
      );
      fs.copyFileSync(
        path.join(REPO_ROOT, "test", "fixtures", "run-with-mocks.go"),
        path.join(mocked, "mocks.go"),
      );
      const env = { ...process.env, ...GO_BUILD_ENV };
      checks = {
        // vet type-checks every program as users copy it; the build compiles and links the mocked.
        vet: attempt("go", ["vet", "./..."], module, env),
        build: attempt("go", ["build", "-o", bin(), "./mocked"], module, env),
        // gofmt lists the files whose layout differs from Go's own: none, as users copy them.
        gofmt: attempt("gofmt", ["-l", ...named("go").map(({ name }) => name)], module),
      };
    }, 600_000);

    it("build, and pass go vet and gofmt", () => {
      expect(checks).toEqual({ build: "", vet: "", gofmt: "" });
    });

    it.each(named("go"))(
      "$name runs under Pulumi's mocks and registers and invokes what its YAML program shows",
      ({ name, example }) => {
        const recorded = runUnderMocks(example, (tables, record, mocks) => {
          const env = {
            ...process.env,
            EXAMPLE_MOCKS: tables,
            EXAMPLE_RECORD: record,
            PULUMI_CONFIG: JSON.stringify(mocks.config),
          };
          run(bin(), [name], module, env);
        });
        expect(recorded.actual).toEqual(recorded.expected);
      },
    );
  });

  describe("in Python, with the generated SDK", () => {
    let python: string;

    beforeAll(() => {
      python = path.join(sdkVirtualenv(programsVenv(), path.join(dir, "python")), "bin", "python");
      writeExampleFiles(dir);
    }, 300_000);

    it.each(named("python"))(
      "$name runs under Pulumi's mocks and registers and invokes what its YAML program shows",
      ({ name, example }) => {
        const file = path.join(dir, "python", `${name.replaceAll("-", "_")}.py`);
        fs.writeFileSync(file, example.code);
        const driver = path.join(REPO_ROOT, "test", "fixtures", "run-with-mocks.py");
        const recorded = runUnderMocks(example, (tables, record) => {
          run(python, [driver, file, tables, record], dir);
        });
        expect(recorded.actual).toEqual(recorded.expected);
      },
    );
  });

  it.each(inLanguage("yaml").map((example, i) => ({ name: exampleName(example, i), example })))(
    "name only what the schema has in YAML: $name",
    ({ example }) => {
      expect(yamlProblems(schema, example.code)).toEqual([]);
    },
  );
});

describe("the YAML check", () => {
  it("finds a property, an argument and an output the schema lacks", () => {
    const program = `
resources:
  w:
    type: broker:index:Workspace
    properties:
      nome: x
variables:
  v:
    fn::invoke:
      function: broker:index:getWorkspace
      arguments:
        pth: /x
outputs:
  a: \${w.paht}
  b: \${v.nam}
  c: \${missing.id}
`;
    expect(yamlProblems(schema, program)).toEqual([
      "w: broker:index:Workspace has no input nome",
      "v: broker:index:getWorkspace has no argument pth",
      "${w.paht}: broker:index:Workspace has no output paht",
      "${v.nam}: broker:index:getWorkspace has no result nam",
      "${missing.id}: no resource, variable or config missing",
    ]);
  });
});

/** What a Pulumi YAML program names that the schema does not have, one line each. */
function yamlProblems(packageSchema: PackageSchema, code: string): string[] {
  const program = parse(code) as {
    config?: Record<string, unknown>;
    resources?: Record<string, { type: string; properties?: Record<string, unknown> }>;
    variables?: Record<string, { "fn::invoke"?: { function: string; arguments?: Record<string, unknown> } }>;
  };
  const problems: string[] = [];
  /** What each name of the program has, as `${name.x}` reads it. */
  const outputs = new Map<string, { token: string; has: (key: string) => boolean; what: string }>();
  for (const [name, resource] of Object.entries(program.resources ?? {})) {
    const declared = packageSchema.resources[resource.type];
    if (declared === undefined) {
      problems.push(`${name}: no resource type ${resource.type}`);
      continue;
    }
    for (const key of Object.keys(resource.properties ?? {})) {
      if (!(key in declared.inputProperties)) problems.push(`${name}: ${resource.type} has no input ${key}`);
    }
    outputs.set(name, {
      token: resource.type,
      has: (key) => key in declared.properties || key === "id" || key === "urn",
      what: "output",
    });
  }
  for (const [name, variable] of Object.entries(program.variables ?? {})) {
    const invoke = variable["fn::invoke"];
    if (invoke === undefined) continue;
    const declared = packageSchema.functions[invoke.function];
    if (declared === undefined) {
      problems.push(`${name}: no function ${invoke.function}`);
      continue;
    }
    for (const key of Object.keys(invoke.arguments ?? {})) {
      if (!(key in declared.inputs.properties))
        problems.push(`${name}: ${invoke.function} has no argument ${key}`);
    }
    outputs.set(name, {
      token: invoke.function,
      has: (key) => key in declared.outputs.properties,
      what: "result",
    });
  }
  for (const [, name, key] of code.matchAll(/\$\{(\w+)(?:\.(\w+))?/gu)) {
    if (name === undefined) continue;
    const target = outputs.get(name);
    if (target === undefined) {
      if (!(name in (program.config ?? {})))
        problems.push(`\${${name}.${key ?? ""}}: no resource, variable or config ${name}`);
    } else if (key !== undefined && !target.has(key)) {
      problems.push(`\${${name}.${key}}: ${target.token} has no ${target.what} ${key}`);
    }
  }
  return problems;
}
