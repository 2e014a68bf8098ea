import * as fs from "node:fs";
import * as path from "node:path";
import * as prettier from "prettier";
import { describe, expect, it } from "vitest";
import { NATIVE_TYPE_OF } from "../../src/cli/migrate-state";
import { CONFIG_KEYS, ENV_VARS, STACK_SETTING_NAMES } from "../../src/settings/connection";
import {
  ACCESS_KEY,
  ACCESS_KEY_TYPE,
  ON_DELETE,
  RESOURCES,
  renderPackageSchema,
  secretFields,
  SERVICE_KEY_PAIR,
} from "../../src/core/declarations";
import { ACCESS_KEY_TYPES, ON_DELETE_VALUES } from "../../src/model";
import { ACCESS_KEY_SECRET_OUTPUTS, SERVICE_KEY_PAIR_SECRET_OUTPUTS } from "../../src";
import { SETTINGS } from "../../src/settings/declarations";

const root = path.join(__dirname, "..", "..");

describe("the declarations of resources and settings", () => {
  it("render schema.json as committed (run `npm run gen:schema` after changing a declaration)", async () => {
    const file = path.join(root, "schema.json");
    const options = (await prettier.resolveConfig(file)) ?? {};
    const rendered = await prettier.format(JSON.stringify(renderPackageSchema(), null, 2), {
      ...options,
      filepath: file,
    });
    expect(fs.readFileSync(file, "utf8")).toBe(rendered);
  });

  it("give the dynamic resources their secret outputs", () => {
    expect(ACCESS_KEY_SECRET_OUTPUTS).toEqual(secretFields(ACCESS_KEY));
    expect(ACCESS_KEY_SECRET_OUTPUTS).toEqual(["accessKey", "privateKey"]);
    expect(SERVICE_KEY_PAIR_SECRET_OUTPUTS).toEqual(["accessKey", "privateKey"]);
    expect(secretFields(SERVICE_KEY_PAIR)).toEqual(SERVICE_KEY_PAIR_SECRET_OUTPUTS);
  });

  it("map every dynamic type to its native type for migrate-state", () => {
    expect(NATIVE_TYPE_OF).toEqual({
      "pulumi-nodejs:dynamic/broker:Workspace": "broker:index:Workspace",
      "pulumi-nodejs:dynamic/broker:AccessKey": "broker:index:AccessKey",
      "pulumi-nodejs:dynamic/broker:ServiceKeyPair": "broker:index:ServiceKeyPair",
    });
    expect(Object.values(NATIVE_TYPE_OF)).toEqual(RESOURCES.map((r) => r.token));
  });

  it("declare exactly the enum values the model knows", () => {
    expect(ACCESS_KEY_TYPE.values.map((v) => v.value).sort()).toEqual([...ACCESS_KEY_TYPES].sort());
    expect(ON_DELETE.values.map((v) => v.value).sort()).toEqual([...ON_DELETE_VALUES].sort());
  });

  it("give every setting its stack config key, and its environment variable where it has one", () => {
    for (const setting of SETTINGS) {
      expect(CONFIG_KEYS[setting.name]).toBe(`broker:${setting.name}`);
      const env = "env" in setting ? setting.env : undefined;
      expect((ENV_VARS as Record<string, string>)[setting.name]).toBe(env);
      expect(STACK_SETTING_NAMES[setting.name]).toBe(
        env === undefined ? `broker:${setting.name}` : `broker:${setting.name} (or ${env})`,
      );
    }
    expect(ENV_VARS).toEqual({
      baseUrl: "BROKER_BASE_URL",
      apiKey: "BROKER_API_KEY",
      maxRequestsPerSecond: "BROKER_MAX_REQUESTS_PER_SECOND",
    });
  });
});
