/**
 * The core's types of inputs, outputs, facts and settings are mapped from the resource declarations
 * (`src/core/declared.ts`). These assertions are checked by `npm run typecheck` (a wrong mapping does
 * not compile) and, at run time, the generic decoding agrees with them.
 */
import { describe, expectTypeOf, it, expect } from "vitest";
import type { Permissions } from "../../src/client/types";
import { ACCESS_KEY, SERVICE_KEY_PAIR, WORKSPACE } from "../../src/core/declarations";
import {
  declared,
  type FactsOf,
  type InputsOf,
  type OutputsOf,
  type SettingsOf,
} from "../../src/core/declared";
import type { NotKnown } from "../../src/core/unknown";
import type { AccessKeyType, OnDelete } from "../../src/model";

describe("types mapped from the declarations", () => {
  it("gives an access key's inputs, outputs, facts and settings", () => {
    expectTypeOf<InputsOf<typeof ACCESS_KEY>>().toEqualTypeOf<{
      name: string;
      type: AccessKeyType;
      permissions: Permissions;
      adopt: boolean;
      onDelete?: OnDelete;
      rotationTriggers: Record<string, string>;
    }>();
    expectTypeOf<InputsOf<typeof ACCESS_KEY, NotKnown>["name"]>().toEqualTypeOf<string | NotKnown>();
    expectTypeOf<OutputsOf<typeof ACCESS_KEY>>().toEqualTypeOf<{
      name: string;
      type: AccessKeyType;
      permissions?: Permissions;
      adopt: boolean;
      onDelete?: OnDelete;
      rotationTriggers: Record<string, string>;
      accessKey: string;
      accessKeyId: number;
      createdAt?: string;
      publicKey?: string;
      privateKey?: string;
      adopted: boolean;
    }>();
    expectTypeOf<SettingsOf<typeof ACCESS_KEY>>().toEqualTypeOf<{
      adopt: boolean;
      onDelete?: OnDelete;
      rotationTriggers: Record<string, string>;
    }>();
    expectTypeOf<keyof FactsOf<typeof ACCESS_KEY>>().toEqualTypeOf<
      | "name"
      | "type"
      | "permissions"
      | "accessKey"
      | "accessKeyId"
      | "createdAt"
      | "publicKey"
      | "privateKey"
      | "adopted"
    >();
  });

  it("gives a workspace's and a key pair's outputs", () => {
    expectTypeOf<OutputsOf<typeof WORKSPACE>>().toEqualTypeOf<{
      name: string;
      parentId: number;
      adopt: boolean;
      workspaceId: number;
      path: string;
      createdAt: string;
      adopted: boolean;
    }>();
    expectTypeOf<OutputsOf<typeof SERVICE_KEY_PAIR>>().toEqualTypeOf<{
      accessKey: string;
      rotationTriggers: Record<string, string>;
      publicKey: string;
      privateKey: string;
      accessKeyId: number;
      rotatedAt: string;
    }>();
  });
});

describe("declared: plain fields handled from the declaration", () => {
  const fields = declared(ACCESS_KEY, "Access key");

  it("fills defaults and empty values when decoding inputs", () => {
    expect(fields.decodeInputs({ name: "k", type: "SERVICE" })).toEqual({
      name: "k",
      type: "SERVICE",
      permissions: { send: [], receive: [], resources: {} },
      adopt: false,
      rotationTriggers: {},
    });
  });

  it("leaves optional outputs out when absent and builds outputs in declaration order", () => {
    const outputs = fields.decodeOutputs(
      { name: "k", type: "ACCOUNT", accessKey: "secret", accessKeyId: 3, baseUrl: "http://x" },
      { accessKeyId: undefined },
    );
    expect(outputs).toEqual({
      name: "k",
      type: "ACCOUNT",
      adopt: false,
      rotationTriggers: {},
      accessKey: "secret",
      accessKeyId: 3,
      adopted: false,
    });
    expect(Object.keys(fields.outputs({ ...outputs, adopted: true, adopt: true }))).toEqual([
      "name",
      "type",
      "adopt",

      "rotationTriggers",
      "accessKey",
      "accessKeyId",
      "adopted",
    ]);
  });

  it("checks each input's declared type, reporting every problem", () => {
    expect(fields.check({ name: "k", type: "OTHER", adopt: "yes", onDelete: 1 }).failures).toEqual([
      { property: "type", reason: 'must be one of "ACCOUNT", "SERVICE", got "OTHER"' },
      { property: "adopt", reason: 'must be true or false, got "yes"' },
      { property: "onDelete", reason: 'must be one of "revoke", "retain", got number 1' },
    ]);
  });

  it("refuses null for a boolean or an enum, and takes a null map as empty", () => {
    expect(fields.check({ name: "k", type: "SERVICE", adopt: null }).failures).toEqual([
      { property: "adopt", reason: "must be true or false, got null" },
    ]);
    const pairs = declared(SERVICE_KEY_PAIR, "Service key pair");
    expect(pairs.check({ accessKey: "bks_x", rotationTriggers: null })).toEqual({
      inputs: { accessKey: "bks_x", rotationTriggers: {} },
      failures: [],
    });
  });

  it("replaces on a change of a replaceOnChange field only", () => {
    const old = fields.decodeInputs({ name: "k", type: "SERVICE" });
    expect(fields.diff(old, { ...old, name: "j", adopt: true }).replaces).toEqual(["name"]);
    expect(fields.diff(old, { ...old, adopt: true })).toMatchObject({
      changes: true,
      replaces: [],
      changed: ["adopt"],
    });
  });
});
