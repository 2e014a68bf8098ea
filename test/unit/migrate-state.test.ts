import { describe, expect, it } from "vitest";
import {
  defaultProviderName,
  migrateDeployment,
  MigrateStateError,
  nativeUrn,
  type StateResource,
} from "../../src/cli/migrate-state";

const secret = (ciphertext: string): Record<string, string> => ({
  "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
  ciphertext,
});
const base = "urn:pulumi:dev::shop";
const nodejsProvider = `${base}::pulumi:providers:pulumi-nodejs::default`;
const nodejsRef = `${nodejsProvider}::old-id`;
const keyUrn = `${base}::pulumi-nodejs:dynamic/broker:AccessKey::orders-svc`;
const code = "exports.handler = __f0; require('pulumi-broker-config/providers/access-key')";

/** A dynamic stack: a workspace tree, a key, a pair built from it, and an unrelated resource. */
function dynamicExport(): {
  version: number;
  deployment: { resources: StateResource[]; [k: string]: unknown };
} {
  return {
    version: 3,
    deployment: {
      manifest: { version: "v3.259.0" },
      resources: [
        { urn: `${base}::pulumi:pulumi:Stack::shop-dev`, type: "pulumi:pulumi:Stack", custom: false },
        {
          urn: nodejsProvider,
          type: "pulumi:providers:pulumi-nodejs",
          custom: true,
          id: "old-id",
          inputs: { "broker:apiKey": secret("AK"), "broker:baseUrl": "http://b/v1", "shop:spec": "{}" },
          outputs: { "broker:apiKey": secret("AK2"), "broker:baseUrl": "http://b/v1", "shop:spec": "{}" },
        },
        {
          urn: `${base}::pulumi-nodejs:dynamic/broker:Workspace::platform`,
          type: "pulumi-nodejs:dynamic/broker:Workspace",
          custom: true,
          id: "1",
          inputs: { __provider: code, name: "platform", parentId: 0 },
          outputs: { __provider: code, name: "platform", parentId: 0, workspaceId: 1, path: "/platform" },
          parent: `${base}::pulumi:pulumi:Stack::shop-dev`,
          provider: nodejsRef,
          propertyDependencies: { __provider: [], name: [] },
        },
        {
          urn: `${base}::pulumi-nodejs:dynamic/broker:AccessKey::orders-svc`,
          type: "pulumi-nodejs:dynamic/broker:AccessKey",
          custom: true,
          id: "3",
          // The URN a dynamic class passes for its create intents (src/core/intents.ts).
          inputs: { __provider: code, __urn: keyUrn, name: "orders-svc", type: "SERVICE" },
          outputs: {
            __provider: code,
            __urn: keyUrn,
            accessKey: secret("KEY"),
            accessKeyId: 3,
            privateKey: secret("PK"),
          },
          provider: nodejsRef,
          dependencies: [`${base}::pulumi-nodejs:dynamic/broker:Workspace::platform`],
          additionalSecretOutputs: ["accessKey", "privateKey"],
        },
        {
          urn: `${base}::pulumi-nodejs:dynamic/broker:ServiceKeyPair::orders-svc-pair`,
          type: "pulumi-nodejs:dynamic/broker:ServiceKeyPair",
          custom: true,
          id: "3",
          inputs: { __provider: code, accessKey: secret("KEY-IN") },
          outputs: { __provider: code, privateKey: secret("PRIVATE"), publicKey: "pub" },
          provider: nodejsRef,
          dependencies: [`${base}::pulumi-nodejs:dynamic/broker:AccessKey::orders-svc`],
          propertyDependencies: {
            accessKey: [`${base}::pulumi-nodejs:dynamic/broker:AccessKey::orders-svc`],
          },
        },
      ],
    },
  };
}

const migrate = (input: unknown) => migrateDeployment(input, { version: "0.1.0", newId: () => "new-id" });

describe("migrateDeployment", () => {
  it("turns each dynamic broker resource into the native type, keeping ids, inputs and outputs (secret ciphertexts included)", () => {
    const { exported, migrated } = migrate(dynamicExport());
    expect(migrated).toBe(3);
    const byUrn = new Map(exported.deployment.resources!.map((r) => [r.urn, r]));
    const pair = byUrn.get(`${base}::broker:index:ServiceKeyPair::orders-svc-pair`)!;
    expect(pair.type).toBe("broker:index:ServiceKeyPair");
    expect(pair.id).toBe("3");
    expect(pair.inputs).toEqual({ accessKey: secret("KEY-IN") });
    expect(pair.outputs).toEqual({ privateKey: secret("PRIVATE"), publicKey: "pub" });
    expect(pair.dependencies).toEqual([`${base}::broker:index:AccessKey::orders-svc`]);
    expect(pair.propertyDependencies).toEqual({ accessKey: [`${base}::broker:index:AccessKey::orders-svc`] });
    expect(pair.provider).toBe(`${base}::pulumi:providers:broker::default_0_1_0::new-id`);
    const key = byUrn.get(`${base}::broker:index:AccessKey::orders-svc`)!;
    expect(key.outputs).toEqual({ accessKey: secret("KEY"), accessKeyId: 3, privateKey: secret("PK") });
    expect(key.additionalSecretOutputs).toEqual(["accessKey", "privateKey"]);
    const workspace = byUrn.get(`${base}::broker:index:Workspace::platform`)!;
    expect(workspace.propertyDependencies).toEqual({ name: [] });
    expect(workspace.parent).toBe(`${base}::pulumi:pulumi:Stack::shop-dev`);
    expect(JSON.stringify(exported)).not.toContain("__provider");
    expect(JSON.stringify(exported)).not.toContain("pulumi-nodejs");
  });

  it("adds the default broker provider as the engine writes it, from the stack's broker:* config, before its first user", () => {
    const { exported, changes } = migrate(dynamicExport());
    const resources = exported.deployment.resources!;
    const index = resources.findIndex((r) => r.type === "pulumi:providers:broker");
    expect(resources[index]).toEqual({
      urn: `${base}::pulumi:providers:broker::default_0_1_0`,
      custom: true,
      id: "new-id",
      type: "pulumi:providers:broker",
      inputs: { __internal: {}, apiKey: secret("AK"), baseUrl: "http://b/v1", version: "0.1.0" },
      outputs: { apiKey: secret("AK"), baseUrl: "http://b/v1", version: "0.1.0" },
    });
    expect(index).toBeLessThan(resources.findIndex((r) => r.provider !== undefined));
    expect(changes).toContain(`removed ${nodejsProvider}: no resource uses it any more`);
    expect(changes.filter((c) => c.includes(" -> "))).toHaveLength(3);
  });

  it("keeps the pulumi-nodejs provider while other dynamic resources still use it", () => {
    const input = dynamicExport();
    input.deployment.resources.push({
      urn: `${base}::pulumi-nodejs:dynamic:Resource::mine`,
      type: "pulumi-nodejs:dynamic:Resource",
      id: "x",
      provider: nodejsRef,
    });
    const { exported } = migrate(input);
    const resources = exported.deployment.resources!;
    expect(resources.some((r) => r.urn === nodejsProvider)).toBe(true);
    expect(resources.find((r) => r.id === "x")?.provider).toBe(nodejsRef);
  });

  it("leaves the input alone, and a stack without dynamic broker resources unchanged", () => {
    const input = dynamicExport();
    const copy = structuredClone(input);
    migrate(input);
    expect(input).toEqual(copy);
    const native = migrate(migrate(input).exported);
    expect(native.migrated).toBe(0);
    expect(native.changes).toEqual([]);
  });

  it("refuses what it cannot migrate, saying why", () => {
    expect(() => migrate({ resources: [] })).toThrow(/not the output of `pulumi stack export`/u);
    expect(() => migrate({ version: 3, deployment: { resources: [{ urn: 1 }] } })).toThrow(/resources\[0\]/u);
    const pending = dynamicExport();
    pending.deployment["pending_operations"] = [{ type: "creating" }];
    expect(() => migrate(pending)).toThrow(MigrateStateError);
    expect(() => migrate(pending)).toThrow(/pending operation.*pulumi refresh/u);
  });
});

describe("names", () => {
  it("names the default provider as the engine does", () => {
    expect(defaultProviderName("0.1.0")).toBe("default_0_1_0");
    expect(defaultProviderName("1.2.3-beta.4+build.5")).toBe("default_1_2_3_beta_4_build_5");
    expect(() => defaultProviderName("one")).toThrow(/not a semantic version/u);
  });

  it("rewrites the type chain of a URN, names with :: included", () => {
    expect(nativeUrn(`${base}::my:C$pulumi-nodejs:dynamic/broker:Workspace::a::b`)).toBe(
      `${base}::my:C$broker:index:Workspace::a::b`,
    );
    expect(() => nativeUrn("nope")).toThrow(/not a Pulumi URN/u);
  });
});
