import { CONFIG_KEYS } from "../../src/settings/connection";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";

const root = path.join(__dirname, "..", "..");
const schema = JSON.parse(readFileSync(path.join(root, "schema.json"), "utf8")) as PackageSchema;
// Pulumi's package metaschema, copied from github.com/pulumi/pulumi/pkg/v3@v3.259.0/codegen/schema/pulumi.json.
const metaschema = JSON.parse(
  readFileSync(path.join(root, "test", "fixtures", "pulumi-package-metaschema.json"), "utf8"),
) as object;

interface PropertySpec {
  type?: string;
  $ref?: string;
  secret?: boolean;
  replaceOnChanges?: boolean;
  defaultInfo?: { environment?: string[] };
}
interface ResourceSpec {
  inputProperties: Record<string, PropertySpec>;
  properties: Record<string, PropertySpec>;
  requiredInputs?: string[];
  required?: string[];
}
interface PackageSchema {
  name: string;
  version?: string;
  config: { variables: Record<string, PropertySpec> };
  provider: ResourceSpec;
  resources: Record<string, ResourceSpec>;
  language: Record<string, unknown>;
}

/**
 * The argument names of `interface <name>Args` and the `declare readonly` outputs in the file of a
 * dynamic class's args and outputs (generated from the declarations: src/dynamic/resources/generated/).
 */
function dynamicShape(file: string, argsInterface: string): { inputs: string[]; outputs: string[] } {
  const text = readFileSync(path.join(root, "src", "dynamic", "resources", "generated", file), "utf8");
  const body = new RegExp(`export interface ${argsInterface} \\{([\\s\\S]*?)\\n\\}`).exec(text)?.[1] ?? "";
  const inputs = [...body.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1] ?? "");
  const outputs = [...text.matchAll(/declare readonly (\w+):/g)].map((m) => m[1] ?? "");
  return { inputs, outputs };
}

const RESOURCES = [
  { token: "broker:index:Workspace", file: "workspace.ts", args: "WorkspaceArgs" },
  { token: "broker:index:AccessKey", file: "access-key.ts", args: "AccessKeyArgs" },
  { token: "broker:index:ServiceKeyPair", file: "service-key-pair.ts", args: "ServiceKeyPairArgs" },
] as const;

function resource(token: string): ResourceSpec {
  const spec = schema.resources[token];
  if (spec === undefined) throw new Error(`schema.json has no resource ${token}`);
  return spec;
}

describe("schema.json", () => {
  function metaValidator() {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    return ajv.compile(metaschema);
  }

  it("is a valid Pulumi package schema", () => {
    const validate = metaValidator();
    const valid = validate(schema);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it("would be rejected by the metaschema with a malformed property (the check can fail)", () => {
    const broken = structuredClone(schema) as unknown as {
      resources: Record<string, { properties: object }>;
    };
    const workspace = broken.resources["broker:index:Workspace"];
    if (workspace !== undefined) workspace.properties = { name: { type: "text" } };
    expect(metaValidator()(broken)).toBe(false);
  });

  it("names the package broker and leaves the version to the server, which takes it from package.json", () => {
    expect(schema.name).toBe("broker");
    expect(schema.version).toBeUndefined();
  });

  it("declares exactly the three resources and the Environment component", () => {
    expect(Object.keys(schema.resources).sort()).toEqual(
      [...RESOURCES.map((r) => r.token), "broker:index:Environment"].sort(),
    );
    const components = Object.entries(schema.resources).filter(
      ([, spec]) => (spec as { isComponent?: boolean }).isComponent === true,
    );
    expect(components.map(([token]) => token)).toEqual(["broker:index:Environment"]);
  });

  it("gives the Environment component the document as text or object, and the outputs of BrokerConfig", () => {
    const environment = resource("broker:index:Environment");
    expect(Object.keys(environment.inputProperties).sort()).toEqual(["config", "document", "documentName"]);
    expect(Object.keys(environment.properties).sort()).toEqual([
      "accessKeyValues",
      "accessKeys",
      "privateKeys",
      "workspaces",
    ]);
  });

  it.each(RESOURCES)("$token has the inputs and outputs of the dynamic class", ({ token, file, args }) => {
    const shape = dynamicShape(file, args);
    expect(shape.inputs.length).toBeGreaterThan(0);
    expect(Object.keys(resource(token).inputProperties).sort()).toEqual([...shape.inputs].sort());
    // Outputs repeat the recorded inputs, as the engine stores them.
    expect(Object.keys(resource(token).properties).sort()).toEqual(
      [...new Set([...shape.inputs, ...shape.outputs])].sort(),
    );
  });

  it("marks every credential secret, and nothing else", () => {
    const secrets: string[] = [];
    for (const [token, spec] of Object.entries(schema.resources)) {
      for (const [kind, props] of [
        ["in", spec.inputProperties],
        ["out", spec.properties],
      ] as const) {
        for (const [name, prop] of Object.entries(props))
          if (prop.secret === true) secrets.push(`${token} ${kind} ${name}`);
      }
    }
    expect(secrets.sort()).toEqual([
      "broker:index:AccessKey out accessKey",
      "broker:index:AccessKey out privateKey",
      "broker:index:Environment out accessKeyValues",
      "broker:index:Environment out privateKeys",
      "broker:index:ServiceKeyPair in accessKey",
      "broker:index:ServiceKeyPair out accessKey",
      "broker:index:ServiceKeyPair out privateKey",
    ]);
  });

  it("marks replaceOnChanges exactly where a change replaces the object", () => {
    const replacing: string[] = [];
    for (const [token, spec] of Object.entries(schema.resources)) {
      for (const [name, prop] of Object.entries(spec.inputProperties))
        if (prop.replaceOnChanges === true) replacing.push(`${token} ${name}`);
    }
    expect(replacing.sort()).toEqual([
      "broker:index:AccessKey name",
      "broker:index:AccessKey rotationTriggers",
      "broker:index:AccessKey type",
      "broker:index:ServiceKeyPair accessKey",
      "broker:index:Workspace name",
      "broker:index:Workspace parentId",
    ]);
  });

  it("configures the provider with every connection setting, the API key secret, and the environment fallbacks", () => {
    const variables = schema.config.variables;
    expect(Object.keys(variables).sort()).toEqual(Object.keys(CONFIG_KEYS).sort());
    expect(Object.keys(schema.provider.inputProperties).sort()).toEqual(Object.keys(variables).sort());
    expect(variables["apiKey"]?.secret).toBe(true);
    expect(schema.provider.inputProperties["apiKey"]?.secret).toBe(true);
    expect(variables["baseUrl"]?.defaultInfo?.environment).toEqual(["BROKER_BASE_URL"]);
    expect(variables["apiKey"]?.defaultInfo?.environment).toEqual(["BROKER_API_KEY"]);
    for (const name of ["timeoutMs", "maxRetries", "maxConcurrency"])
      expect(variables[name]?.type).toBe("integer");
  });

  it("never uses the engine's reserved names", () => {
    const names = Object.values(schema.resources).flatMap((r) => [
      ...Object.keys(r.inputProperties),
      ...Object.keys(r.properties),
    ]);
    names.push(...Object.keys(schema.config.variables));
    expect(names.filter((n) => n.startsWith("__") || n === "id" || n === "urn" || n === "version")).toEqual(
      [],
    );
  });

  it("carries SDK settings for Node.js, Python and Go", () => {
    expect(Object.keys(schema.language).sort()).toEqual(["go", "nodejs", "python"]);
  });
});
