import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { programsVenv, sdkVirtualenv } from "../../harness/python-sdk.mts";
import { GO_SDK_DIR, goSdkModule, REPO_ROOT } from "../../harness/repo.mts";
import { comparable, expectedRun, type RecordedRun } from "../support/example-mocks";
import {
  allExamples,
  exampleName,
  inOtherLanguage,
  readSchema,
  type ExampleProgram,
  type PackageSchema,
} from "../support/registry-docs";

// Issue #34: the Example Usage programs the Registry shows on every resource and function page (from
// schema.json's descriptions, declared in src/core/declarations/examples.ts) are programs that work
// with our SDKs: the TypeScript type-checks against the package as users install it, the Go builds
// against sdk/go/broker, the Python runs with the generated SDK under Pulumi's mocks, and the YAML
// names only types, properties, functions, arguments and outputs the schema has. (The example
// projects under examples/ run through the real CLI in test/e2e/examples.test.ts.)

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

/** Runs `file` and returns all it printed, whether it succeeded or not. */
function attempt(file: string, args: string[], cwd: string): string {
  try {
    return run(file, args, cwd);
  } catch (error) {
    return (error as Error).message;
  }
}

/** The examples in `language`, each with the file name it is written to. */
function named(language: string): { name: string; example: ExampleProgram }[] {
  return inLanguage(language).map((example, i) => ({ name: exampleName(example, i), example }));
}

/**
 * Runs `example` under mocks with `driver` (given the file of the mocks' tables and the file to
 * record into), and returns what it registered and invoked beside what the same example's YAML
 * program shows.
 */
function runUnderMocks(
  example: ExampleProgram,
  driver: (tablesFile: string, recordFile: string) => void,
): { actual: ReturnType<typeof comparable>; expected: ReturnType<typeof comparable> } {
  const expected = expectedRun(schema, inOtherLanguage(examples, example, "yaml").code);
  const runDir = fs.mkdtempSync(path.join(dir, "run-"));
  const tables = path.join(runDir, "tables.json");
  const record = path.join(runDir, "record.json");
  fs.writeFileSync(tables, JSON.stringify(expected.mocks));
  driver(tables, record);
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

  it("build in Go against sdk/go/broker, and pass go vet", () => {
    const module = path.join(dir, "go");
    fs.mkdirSync(module);
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
    inLanguage("go").forEach((example, i) => {
      const main = path.join(module, exampleName(example, i), "main.go");
      fs.mkdirSync(path.dirname(main));
      fs.writeFileSync(main, example.code);
    });
    const env = { ...process.env, GOFLAGS: "-mod=mod", CGO_ENABLED: "0" };
    run("go", ["build", "-o", os.devNull, "./..."], module, env);
    run("go", ["vet", "./..."], module, env);
    // gofmt lists the files whose layout differs from Go's own: none, as users copy them.
    expect(run("gofmt", ["-l", "."], module)).toBe("");
  }, 600_000);

  it("run in Python with the generated SDK under Pulumi's mocks", () => {
    const venv = sdkVirtualenv(programsVenv(), path.join(dir, "python"));
    const driver = path.join(REPO_ROOT, "test", "fixtures", "run-with-mocks.py");
    inLanguage("python").forEach((example, i) => {
      const file = path.join(dir, "python", `${exampleName(example, i).replaceAll("-", "_")}.py`);
      fs.writeFileSync(file, example.code);
      run(path.join(venv, "bin", "python"), [driver, file], dir);
    });
  }, 300_000);

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
