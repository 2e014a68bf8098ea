import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import * as ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { AccessKey } from "../../src/dynamic/resources/access-key";
import { isBrokerConfigDocumentError } from "../../src/config-as-data";
import { BrokerConfig } from "../../src/dynamic/resources/broker-config";
import { ServiceKeyPair } from "../../src/dynamic/resources/service-key-pair";
import { Workspace } from "../../src/dynamic/resources/workspace";

// The resource classes as a program constructs them, under Pulumi's mocks (no engine, no provider
// host). What is checked here is the registration (which outputs exist, which inputs are secret),
// not the provider's serialization, which only a real `node` process can check (test/host).

const resourcesDir = path.join(__dirname, "../../src/dynamic/resources");
/** Where the classes' generated bases declare their outputs (scripts/gen-dynamic-types.mts). */
const generatedDir = path.join(resourcesDir, "generated");

/**
 * The outputs each exported class of src/dynamic/resources declares (`pulumi.Output<…>` or
 * `DeclaredOutput<…>` properties), its own and those of the generated base it extends, read from the
 * source so that an output added later is checked without touching this test.
 */
function declaredOutputs(): Map<string, string[]> {
  const classes = new Map<string, { outputs: string[]; base: string | undefined; abstract: boolean }>();
  for (const dir of [resourcesDir, generatedDir]) {
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      const source = ts.createSourceFile(
        file,
        fs.readFileSync(path.join(dir, file), "utf8"),
        ts.ScriptTarget.Latest,
        true,
      );
      for (const statement of source.statements) {
        if (!ts.isClassDeclaration(statement) || statement.name === undefined) continue;
        const outputs = statement.members
          .filter(ts.isPropertyDeclaration)
          .filter(
            (m) => m.type !== undefined && /^(pulumi\.Output|DeclaredOutput)</.test(m.type.getText(source)),
          )
          .map((m) => m.name.getText(source));
        const base = statement.heritageClauses?.[0]?.types[0]?.expression.getText(source);
        const abstract = ts.getCombinedModifierFlags(statement) & ts.ModifierFlags.Abstract;
        classes.set(statement.name.text, { outputs, base, abstract: abstract !== 0 });
      }
    }
  }
  const found = new Map<string, string[]>();
  for (const [name, { outputs, base, abstract }] of classes) {
    if (abstract) continue;
    found.set(name, [...(base === undefined ? [] : (classes.get(base)?.outputs ?? [])), ...outputs]);
  }
  return found;
}

/** Inputs of every resource registered so far, by resource name, as the engine received them. */
const registered = new Map<string, Record<string, unknown>>();

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        registered.set(args.name, args.inputs as Record<string, unknown>);
        return { id: `${args.name}-id`, state: {} };
      },
      call: () => ({}),
    },
    "project",
    "stack",
    false,
  );
});

/** Each class constructed with only its required inputs. */
function minimalInstances(): Record<string, object> {
  return {
    Workspace: new Workspace("minimal-workspace", { name: "w" }),
    AccessKey: new AccessKey("minimal-key", { name: "k", type: "SERVICE" }),
    ServiceKeyPair: new ServiceKeyPair("minimal-pair", { accessKey: "bks_plain" }),
    BrokerConfig: new BrokerConfig("minimal-config", { config: { version: 1 } }),
  };
}

/** Resolves once the mocks registered the resource. */
function urnOf(resource: pulumi.Resource): Promise<string> {
  return new Promise((resolve) => {
    resource.urn.apply(resolve);
  });
}

function isSecretValue(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<string, unknown>)[pulumi.runtime.specialSigKey] === pulumi.runtime.specialSecretSig
  );
}

describe("resource classes under Pulumi's mocks", () => {
  it("reads the declared outputs of all four classes from the source", () => {
    const outputs = declaredOutputs();
    expect([...outputs.keys()].sort()).toEqual(["AccessKey", "BrokerConfig", "ServiceKeyPair", "Workspace"]);
    // Regression: the output that was missing at run time is among those checked.
    expect(outputs.get("Workspace")).toContain("parentId");
    // The outputs of the generated bases are read: AccessKey declares none of its own.
    expect(outputs.get("AccessKey")).toEqual(expect.arrayContaining(["accessKey", "createdAt", "onDelete"]));
  });

  it("gives every declared output as an Output when only the required inputs are passed", () => {
    const instances = minimalInstances();
    const missing: string[] = [];
    for (const [className, outputs] of declaredOutputs()) {
      const instance = instances[className] as Record<string, unknown> | undefined;
      expect(instance, className).toBeDefined();
      for (const output of outputs) {
        if (!pulumi.Output.isInstance(instance?.[output])) missing.push(`${className}.${output}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("refuses a BrokerConfig given neither or both of file and config, naming its own inputs", () => {
    expect(() => new BrokerConfig("neither-config", {})).toThrow(
      "BrokerConfig needs exactly one of `file` (a YAML or JSON file) and `config` (an object), got neither",
    );
    let both: unknown;
    try {
      new BrokerConfig("both-config", { file: "broker.yaml", config: { version: 1 } });
    } catch (error) {
      both = error;
    }
    expect(isBrokerConfigDocumentError(both)).toBe(true);
    expect((both as Error).message).toMatch(/got both$/u);
  });

  it("registers a ServiceKeyPair's accessKey as a secret input when it was passed as a plain string", async () => {
    const pair = new ServiceKeyPair("plain-key-pair", { accessKey: "bks_plain_service_key" });
    await urnOf(pair);
    const inputs = registered.get("plain-key-pair");
    expect(inputs?.["accessKey"]).toEqual({
      [pulumi.runtime.specialSigKey]: pulumi.runtime.specialSecretSig,
      value: "bks_plain_service_key",
    });
  });

  it("keeps an accessKey that already is a secret secret, and registers no other input as secret", async () => {
    const pair = new ServiceKeyPair("secret-key-pair", {
      accessKey: pulumi.secret("bks_secret_service_key"),
      rotationTriggers: { quarter: "2026-Q4" },
    });
    await urnOf(pair);
    const inputs = registered.get("secret-key-pair") ?? {};
    expect(isSecretValue(inputs["accessKey"])).toBe(true);
    const secretInputs = Object.keys(inputs).filter((k) => isSecretValue(inputs[k]));
    expect(secretInputs).toEqual(["accessKey"]);
  });
});
