import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { createKeyThroughApi, installBrokerPlugin } from "../../harness/broker-native.mts";
import type { PulumiProject } from "../../harness/pulumi-project.mts";
import { REPO_ROOT } from "../../harness/repo.mts";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { parseBrokerConfig } from "../../src/config-as-data/load";
import { planBrokerConfig } from "../../src/config-as-data/plan";
import { EXAMPLE_FILES } from "../../src/core/declarations/examples";
import { writeExampleFiles } from "../support/example-mocks";
import { emulatorConfig, ensureYamlHost, NO_BROKER_ENV, tearDown, testProject } from "../support/projects";
import { allExamples, exampleName, readSchema, type PackageSchema } from "../support/registry-docs";

// Issue #34: every YAML Example Usage program of schema.json runs through the real Pulumi CLI (the
// YAML language host and the `broker` plugin as `broker-config plugin install` installs it) against
// the emulator: preview, up and destroy. Few CLI runs: the programs are merged into two stacks of one
// project, the resources' examples first and then the functions' (which look up what the first made),
// a name two programs declare alike declared once, a name they declare differently renamed in the
// later program (mergePrograms). Whatever a look-up finds that no example makes, the harness makes
// through the API before the second stack runs (lookUpSetup).

const schema = readSchema(REPO_ROOT);
const yamlExamples = allExamples(schema)
  .filter((e) => e.language === "yaml")
  .map((example, i) => ({ example, name: exampleName(example, i) }));

/** The sections of a Pulumi YAML program that declare names (a reference `${name…}` names one of them). */
const DECLARING = ["config", "variables", "resources"] as const;

/** A Pulumi YAML program's sections. */
type YamlProgram = Partial<Record<(typeof DECLARING)[number] | "outputs", Record<string, unknown>>>;

/** A stack of merged programs: the examples of the resources, or of the functions. */
interface Stage {
  readonly stack: string;
  readonly tokens: readonly string[];
}

const STAGES: readonly Stage[] = [
  { stack: "resources", tokens: Object.keys(schema.resources) },
  { stack: "functions", tokens: Object.keys(schema.functions) },
];

/**
 * The programs merged into one: each name of each section declared once. A program's name declared
 * before by another program differently (in any declaring section) is renamed `<name>_<program>`
 * in that program, references included; an output likewise.
 */
function mergePrograms(programs: readonly { name: string; code: string }[]): YamlProgram {
  const merged: Required<YamlProgram> = { config: {}, variables: {}, resources: {}, outputs: {} };
  for (const { name: programName, code } of programs) {
    let program = parse(code) as YamlProgram;
    const renames = new Map<string, string>();
    // Renaming a name changes the declarations that reference it: repeat until nothing else clashes.
    for (;;) {
      const clashes = DECLARING.flatMap((section) =>
        Object.entries(program[section] ?? {}).flatMap(([name, declaration]) => {
          const before = DECLARING.find((s) => name in merged[s]);
          const same =
            before === section && JSON.stringify(merged[section][name]) === JSON.stringify(declaration);
          return before === undefined || same || renames.has(name) ? [] : [name];
        }),
      );
      if (clashes.length === 0) break;
      for (const name of clashes) renames.set(name, `${name}_${programName.replace(/\W/gu, "")}`);
      program = renamed(parse(code) as YamlProgram, renames);
    }
    for (const section of DECLARING) Object.assign(merged[section], program[section]);
    for (const [output, value] of Object.entries(program.outputs ?? {})) {
      const clash =
        output in merged.outputs && JSON.stringify(merged.outputs[output]) !== JSON.stringify(value);
      merged.outputs[clash ? `${output}_${programName.replace(/\W/gu, "")}` : output] = value;
    }
  }
  return Object.fromEntries(Object.entries(merged).filter(([, entries]) => Object.keys(entries).length > 0));
}

/** `program` with the names in `renames` renamed, where declared and where referenced. */
function renamed(program: YamlProgram, renames: ReadonlyMap<string, string>): YamlProgram {
  const rewrite = (value: unknown): unknown => {
    if (typeof value === "string") {
      return value.replace(/\$\{(\w+)/gu, (whole, name: string) => {
        const to = renames.get(name);
        return to === undefined ? whole : `\${${to}`;
      });
    }
    if (Array.isArray(value)) return value.map(rewrite);
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewrite(v)]));
    }
    return value;
  };
  return Object.fromEntries(
    Object.entries(program).map(([section, entries]) => [
      section,
      Object.fromEntries(
        Object.entries(entries).map(([name, value]) => [
          section === "outputs" ? name : (renames.get(name) ?? name),
          rewrite(value),
        ]),
      ),
    ]),
  );
}

/**
 * The outputs of `program` that must be secret: those that reference a secret. A resource's output
 * is one when the schema marks it secret or its input was given a secret; a function's result when
 * the function returns a secret or was given one (an invoke's result is one value: with a secret in
 * it, every part of it is secret, in every language's Output form of a function too); a config
 * value when it is declared secret.
 */
function secretOutputs(packageSchema: PackageSchema, program: YamlProgram): string[] {
  const secretValue = (value: unknown): boolean =>
    [...JSON.stringify(value).matchAll(/\$\{(\w+)(?:\.(\w+))?/gu)].some(([, name, key]) =>
      secretRef(name ?? "", key),
    );
  const secretRef = (name: string, key: string | undefined): boolean => {
    const resource = program.resources?.[name] as
      { type: string; properties?: Record<string, unknown> } | undefined;
    if (resource !== undefined) {
      const spec = packageSchema.resources[resource.type]?.properties[key ?? ""] as
        { secret?: boolean } | undefined;
      return spec?.secret === true || secretValue(resource.properties?.[key ?? ""] ?? null);
    }
    const invoke = (
      program.variables?.[name] as
        { "fn::invoke"?: { function: string; arguments?: Record<string, unknown> } } | undefined
    )?.["fn::invoke"];
    if (invoke !== undefined) {
      const results = Object.values(packageSchema.functions[invoke.function]?.outputs.properties ?? {});
      return (
        results.some((spec) => (spec as { secret?: boolean }).secret === true) ||
        secretValue(invoke.arguments ?? null)
      );
    }
    return (program.config?.[name] as { secret?: boolean } | undefined)?.secret === true;
  };
  return Object.entries(program.outputs ?? {}).flatMap(([output, value]) =>
    secretValue(value) ? [output] : [],
  );
}

/** How many resources `program` declares, with the children each component's document makes. */
function resourceCount(program: YamlProgram): number {
  return Object.values(program.resources ?? {}).reduce<number>((n, r) => n + 1 + childrenOf(r), 0);
}

/** How many children `resource` makes: an Environment one per workspace and key of its document. */
function childrenOf(resource: unknown): number {
  const { type, properties } = resource as { type: string; properties?: { document?: unknown } };
  if (type !== "broker:index:Environment") return 0;
  const file = (properties?.document as { "fn::readFile"?: string } | undefined)?.["fn::readFile"];
  const text = file === undefined ? undefined : EXAMPLE_FILES[path.posix.normalize(file)];
  if (file === undefined || text === undefined)
    throw new Error("an Environment example reads no example file");
  const plan = planBrokerConfig(parseBrokerConfig({ file, text }), "count");
  return plan.workspaces.length + plan.accessKeys.length;
}

let emulator: EmulatorHandle;
let project: PulumiProject;
let scratch: string;
/** The merged program of each stage, by stack name. */
const programs = new Map<string, YamlProgram>();
const stacks = new Map<string, Stack>();
/**
 * Values that must appear in no CLI output or file the engine wrote: the admin key, the key the
 * harness made, and the secret outputs' values.
 */
const secrets: string[] = [];

/**
 * What the functions' examples look up that no example makes: the SERVICE key `billing-service`
 * (getAccessKey's example), made through the API; its value is the `partnerKey` config that
 * verifyAccessKey's example checks. Every other config value of a program is made up.
 */
async function lookUpSetup(): Promise<Record<string, string>> {
  const key = await createKeyThroughApi(emulator, {
    name: "billing-service",
    type: "SERVICE",
    permissions: { send: ["billing/invoiced"], receive: [] },
  });
  const value = String(key["key"]);
  secrets.push(value);
  return { partnerKey: value };
}

beforeAll(async () => {
  emulator = await startEmulator({ controls: true });
  secrets.push(emulator.adminKey);
  ensureYamlHost();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-yaml-examples-"));
  for (const stage of STAGES) {
    const examples = yamlExamples.filter(({ example }) => stage.tokens.includes(example.token));
    programs.set(
      stage.stack,
      mergePrograms(examples.map(({ name, example }) => ({ name, code: example.code }))),
    );
  }
  fs.writeFileSync(path.join(scratch, "Pulumi.yaml"), "name: broker-yaml-examples\nruntime: yaml\n");
  project = await testProject("broker-yaml-examples", scratch, NO_BROKER_ENV);
  writeExampleFiles(project.dir);
  installBrokerPlugin(project);
}, 600_000);

afterAll(() => tearDown({ emulators: [emulator], project, scratch: [scratch] }));

/** Makes the project's program the merged program of `stage` (the stacks share the project). */
function useProgram(stage: Stage): YamlProgram {
  const program = programs.get(stage.stack)!;
  fs.writeFileSync(
    path.join(project.dir, "Pulumi.yaml"),
    stringify({ name: "broker-yaml-examples", runtime: "yaml", ...program }),
  );
  return program;
}

it("covers every resource and function of the schema, in one of the stacks", () => {
  const covered = STAGES.flatMap((stage) =>
    yamlExamples
      .filter(({ example }) => stage.tokens.includes(example.token))
      .map(({ example }) => example.token),
  );
  expect(new Set(covered)).toEqual(
    new Set([...Object.keys(schema.resources), ...Object.keys(schema.functions)]),
  );
});

describe.each(STAGES)("the YAML examples of the $stack, merged into one stack", (stage) => {
  it("preview: every resource to create", async () => {
    const program = useProgram(stage);
    const config: Record<string, { value: string; secret?: boolean }> = emulatorConfig(emulator);
    const handed = stage.stack === "functions" ? await lookUpSetup() : {};
    for (const [key, declaration] of Object.entries(program.config ?? {})) {
      config[key] = {
        value: handed[key] ?? `${key}-value`,
        secret: (declaration as { secret?: boolean }).secret === true,
      };
    }
    const stack = await project.stack(stage.stack, config);
    stacks.set(stage.stack, stack);
    const preview = await stack.preview();
    expect(preview.changeSummary).toEqual({ create: resourceCount(program) + 1 });
  });

  it("up: creates them; every output is there, secret where the schema says", async () => {
    const program = useProgram(stage);
    const stack = stacks.get(stage.stack)!;
    const up = await stack.up();
    expect(up.summary.resourceChanges).toEqual({ create: resourceCount(program) + 1 });
    const outputs = await stack.outputs();
    expect(Object.keys(outputs).sort()).toEqual(Object.keys(program.outputs ?? {}).sort());
    const secret = secretOutputs(schema, program);
    for (const [name, output] of Object.entries(outputs)) {
      expect({ name, secret: output.secret }).toEqual({ name, secret: secret.includes(name) });
      // Scanned for below: the secret values themselves (a key, a private key), not the ids and flags
      // that are secret only for being beside one, whose digits appear in any output.
      if (output.secret && typeof output.value === "string" && output.value.length >= 16)
        secrets.push(output.value);
    }
    if (stage.stack === "functions") {
      // The look-ups found what the resources' stack and the harness made.
      expect(outputs["partnerKeyValid"]?.value).toBe(true);
      expect(outputs["billingPath"]?.value).toBe("/platform/billing");
    } else {
      expect(outputs["ordersPath"]?.value).toBe("/platform/orders");
    }
    const text = up.stdout + up.stderr + project.producedText();
    for (const value of secrets) expect(text).not.toContain(value);
  });
});

describe("destroy", () => {
  it.each([...STAGES].reverse())("destroys the $stack stack", async (stage) => {
    const destroy = await stacks.get(stage.stack)!.destroy();
    expect(destroy.summary.resourceChanges).toEqual({
      delete: resourceCount(programs.get(stage.stack)!) + 1,
    });
  });
});
