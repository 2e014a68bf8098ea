/**
 * What an Example Usage program must do when it runs under Pulumi's mocks, worked out from the same
 * example's YAML program and the schema: the resources it registers (type, name and inputs), the
 * functions it invokes (token and arguments), and the answers the mocks give (each resource's id and
 * outputs, each function's result), so a reference such as `${platform.workspaceId}` has a value to
 * compare. The TypeScript, Go and Python programs run under mocks (test/fixtures/run-with-mocks.cjs,
 * .go, .py) and must register and invoke exactly what the YAML shows: the four
 * languages of an example show one program, and YAML states it as data.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { EXAMPLE_FILES } from "../../src/core/declarations/examples";
import type { PackageSchema } from "./registry-docs";

/** A resource the program registers. */
export interface Registration {
  readonly type: string;
  readonly name: string;
  readonly inputs: Record<string, unknown>;
}

/** A function the program invokes. */
export interface Invocation {
  readonly token: string;
  readonly args: Record<string, unknown>;
}

/** What the mocks answer, read by the drivers as JSON. */
export interface MockTables {
  /** The project the program runs in: its stack config keys are `<project>:<key>`. */
  readonly project: string;
  /** The stack config (`PULUMI_CONFIG`), keyed `<project>:<key>`. */
  readonly config: Record<string, string>;
  /** Each resource's id and outputs, keyed `<type>::<name>`. */
  readonly resources: Record<string, { readonly id: string; readonly state: Record<string, unknown> }>;
  /** Each function's result, by token. */
  readonly functions: Record<string, Record<string, unknown>>;
}

/** What the program must register and invoke, and the mocks' answers. */
export interface ExpectedRun {
  readonly resources: Registration[];
  readonly invokes: Invocation[];
  readonly mocks: MockTables;
}

/** What a driver recorded of one run: every resource registration and function invocation. */
export interface RecordedRun {
  readonly registered: Registration[];
  readonly invoked: Invocation[];
}

/** The project name the examples run in under mocks. */
export const MOCK_PROJECT = "examples";

/** A property's type as schema.json writes it. */
interface PropertySpec {
  readonly type?: string;
  readonly $ref?: string;
  readonly items?: PropertySpec;
  readonly additionalProperties?: PropertySpec;
}

/** A type of the schema's `types` section: an object's properties, or an enum's values. */
interface TypeSpec {
  readonly properties?: Record<string, PropertySpec>;
  readonly enum?: readonly { readonly value: unknown }[];
}

/** A Pulumi YAML program: the parts these expectations read. */
interface YamlProgram {
  readonly config?: Record<string, unknown>;
  readonly variables?: Record<string, unknown>;
  readonly resources?: Record<
    string,
    { readonly type: string; readonly properties?: Record<string, unknown> }
  >;
}

/** An `fn::invoke` of a YAML variable. */
interface YamlInvoke {
  readonly function: string;
  readonly arguments?: Record<string, unknown>;
  readonly return?: string;
}

/**
 * Made-up values of the schema's types, each telling where it came from (`<owner>.<property>` for a
 * string, a number of its own for each integer), so a program that passes the wrong output on is
 * told apart from one that passes the right one.
 */
class MadeUpValues {
  private next = 100;

  constructor(private readonly schema: PackageSchema) {}

  value(spec: PropertySpec, where: string): unknown {
    // Any value will do where the schema allows any.
    if (spec.$ref === "pulumi.json#/Any") return where;
    if (spec.$ref !== undefined) {
      const types = this.schema["types"] as Record<string, TypeSpec> | undefined;
      const type = types?.[spec.$ref.replace(/^#\/types\//u, "")];
      if (type === undefined) throw new Error(`${where}: schema.json has no type ${spec.$ref}`);
      if (type.enum !== undefined) return type.enum[0]?.value;
      return this.object(type.properties ?? {}, where);
    }
    switch (spec.type) {
      case "string":
        return where;
      case "integer":
      case "number":
        return this.next++;
      case "boolean":
        return true;
      case "array":
        return [this.value(spec.items ?? { type: "string" }, `${where}[0]`)];
      case "object":
        return { key: this.value(spec.additionalProperties ?? { type: "string" }, `${where}.key`) };
      default:
        throw new Error(`${where}: no made-up value for a property of type ${String(spec.type)}`);
    }
  }

  object(properties: Record<string, PropertySpec>, where: string): Record<string, unknown> {
    return Object.fromEntries(
      Object.entries(properties).map(([key, spec]) => [key, this.value(spec, `${where}.${key}`)]),
    );
  }
}

/**
 * What the YAML program `yamlCode` registers and invokes, with the mocks' answers: each resource's
 * outputs made up from the schema (its inputs echoed), each function's result made up from the
 * schema, each config value `<key>-value`. References (`${name}`, `${name.property}`) are resolved
 * against those answers, in the order the references need.
 * Each `fn::readFile` of the program reads from `files` (by path relative to the program), the
 * files the examples find beside them.
 * @throws when the program names what the schema lacks, references what it does not declare, or
 *   reads a file `files` lacks.
 */
export function expectedRun(
  schema: PackageSchema,
  yamlCode: string,
  files: Readonly<Record<string, string>> = EXAMPLE_FILES,
): ExpectedRun {
  const program = withFilesRead(parse(yamlCode), files) as YamlProgram;
  const madeUp = new MadeUpValues(schema);
  /** The value of each name a reference can start with. */
  const values = new Map<string, unknown>();
  const config: Record<string, string> = {};
  for (const key of Object.keys(program.config ?? {})) {
    config[`${MOCK_PROJECT}:${key}`] = `${key}-value`;
    values.set(key, `${key}-value`);
  }
  const resources: Registration[] = [];
  const invokes: Invocation[] = [];
  const tables: MockTables = { project: MOCK_PROJECT, config, resources: {}, functions: {} };

  /** Each declaration not yet resolved: it is once every name it references has a value. */
  const pending = new Map<string, () => void>();
  for (const [name, resource] of Object.entries(program.resources ?? {})) {
    pending.set(name, () => {
      const declared = schema.resources[resource.type];
      if (declared === undefined) throw new Error(`${name}: schema.json has no resource ${resource.type}`);
      const inputs = {
        ...defaults(declared.inputProperties as Record<string, { default?: unknown }>),
        ...(resolve(resource.properties ?? {}, values) as Record<string, unknown>),
      };
      const id = `${name}-id`;
      const state = {
        ...madeUp.object(declared.properties as Record<string, PropertySpec>, name),
        ...inputs,
      };
      resources.push({ type: resource.type, name, inputs });
      // The other languages name it in kebab case, the name YAML has in camel case.
      tables.resources[`${resource.type}::${name}`] = { id, state };
      tables.resources[`${resource.type}::${kebabCase(name)}`] = { id, state };
      values.set(name, { ...state, id, urn: `${name}-urn` });
    });
  }
  for (const [name, variable] of Object.entries(program.variables ?? {})) {
    const invoke = (variable as { "fn::invoke"?: YamlInvoke })["fn::invoke"];
    pending.set(name, () => {
      if (invoke === undefined) {
        values.set(name, resolve(variable, values));
        return;
      }
      const declared = schema.functions[invoke.function];
      if (declared === undefined) throw new Error(`${name}: schema.json has no function ${invoke.function}`);
      const result = (tables.functions[invoke.function] ??= madeUp.object(
        declared.outputs.properties as Record<string, PropertySpec>,
        name,
      ));
      invokes.push({
        token: invoke.function,
        args: resolve(invoke.arguments ?? {}, values) as Record<string, unknown>,
      });
      values.set(name, invoke.return === undefined ? result : result[invoke.return]);
    });
  }
  while (pending.size > 0) {
    const ready = [...pending].filter(([name]) =>
      referencedNames(yamlEntry(program, name)).every((n) => values.has(n)),
    );
    if (ready.length === 0) {
      throw new Error(
        `the YAML program references names it does not declare, or in a cycle: ${[...pending.keys()].join(", ")}`,
      );
    }
    for (const [name, declare] of ready) {
      declare();
      pending.delete(name);
    }
  }
  return { resources, invokes, mocks: tables };
}

/** The inputs the SDKs set when a program leaves them out: the schema's `default` of each. */
function defaults(inputs: Record<string, { default?: unknown }>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(inputs).flatMap(([key, spec]) =>
      spec.default === undefined ? [] : [[key, spec.default]],
    ),
  );
}

/** `ordersService` as the other languages name it: `orders-service`. */
function kebabCase(name: string): string {
  return name.replace(/[A-Z]/gu, (c) => `-${c.toLowerCase()}`);
}

/** `orders-service` as YAML names it: `ordersService`. */
function camelCase(name: string): string {
  return name.replace(/-(\w)/gu, (_, c: string) => c.toUpperCase());
}

/** The wrapper the Node.js SDK's mocks pass a secret in (`rpc.specialSigKey`, `specialSecretSig`). */
const SECRET_SIG = { key: "4dabf18193072939515e22adb298388d", value: "1b47061264138c4ac30d75fd1eb44270" };

/** `value` with every secret unwrapped: what the program passed, secret or not. */
function unwrapSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unwrapSecrets);
  if (typeof value !== "object" || value === null) return value;
  const record = value as Record<string, unknown>;
  if (record[SECRET_SIG.key] === SECRET_SIG.value) return unwrapSecrets(record["value"]);
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, unwrapSecrets(v)]));
}

/** Writes the files the examples read (such as the Environment example's `broker.yaml`) into `dir`. */
export function writeExampleFiles(dir: string): void {
  for (const [name, text] of Object.entries(EXAMPLE_FILES)) fs.writeFileSync(path.join(dir, name), text);
}

/** `value` with each `{ "fn::readFile": path }` in it replaced by that file's text, from `files`. */
function withFilesRead(value: unknown, files: Readonly<Record<string, string>>): unknown {
  if (Array.isArray(value)) return value.map((v) => withFilesRead(v, files));
  if (typeof value !== "object" || value === null) return value;
  const read = (value as { "fn::readFile"?: unknown })["fn::readFile"];
  if (typeof read === "string") {
    const text = files[path.posix.normalize(read)];
    if (text === undefined) throw new Error(`fn::readFile: ${read}: no such file beside the example`);
    return text;
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withFilesRead(v, files)]));
}

/** The resource or variable `name` of `program`. */
function yamlEntry(program: YamlProgram, name: string): unknown {
  return program.resources?.[name] ?? program.variables?.[name];
}

/** The names that the references (`${name…}`) in `value` start with. */
function referencedNames(value: unknown): string[] {
  return [...JSON.stringify(value).matchAll(/\$\{(\w+)/gu)].map((m) => m[1] ?? "");
}

/**
 * `value` with its references replaced by what they name: a string that is one reference becomes
 * the value itself (an integer stays an integer), one inside other text is interpolated.
 */
function resolve(value: unknown, values: ReadonlyMap<string, unknown>): unknown {
  if (typeof value === "string") {
    const whole = /^\$\{([\w.]+)\}$/u.exec(value);
    if (whole !== null) return lookUp(whole[1] ?? "", values);
    return value.replace(/\$\{([\w.]+)\}/gu, (_, ref: string) => String(lookUp(ref, values)));
  }
  if (Array.isArray(value)) return value.map((v) => resolve(v, values));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, values)]));
  }
  return value;
}

/** The value of the reference `ref` (`name` or `name.property.…`). */
function lookUp(ref: string, values: ReadonlyMap<string, unknown>): unknown {
  const [name = "", ...path] = ref.split(".");
  let value = values.get(name);
  for (const key of path) {
    if (typeof value !== "object" || value === null || !(key in value)) {
      throw new Error(`\${${ref}}: ${name} has no ${key}`);
    }
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * `run`'s registrations of the program's own resources (not the stack or providers) and its
 * invocations, in a stable order: names as YAML spells them, secrets unwrapped.
 */
export function comparable(run: RecordedRun): { resources: Registration[]; invokes: Invocation[] } {
  return {
    resources: run.registered
      .filter((r) => !r.type.startsWith("pulumi:"))
      .map((r) => ({
        type: r.type,
        name: camelCase(r.name),
        inputs: unwrapSecrets(r.inputs) as Record<string, unknown>,
      }))
      .sort((a, b) => `${a.type}::${a.name}`.localeCompare(`${b.type}::${b.name}`)),
    invokes: run.invoked
      .map((i) => ({ token: i.token, args: unwrapSecrets(i.args) as Record<string, unknown> }))
      .sort((a, b) =>
        `${a.token}${JSON.stringify(a.args)}`.localeCompare(`${b.token}${JSON.stringify(b.args)}`),
      ),
  };
}
