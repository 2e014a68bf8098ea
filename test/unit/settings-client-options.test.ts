/**
 * The provider settings are exactly the client options its messages can name: the declarations
 * check it at compile time (`SettingsAreClientOptions`); this checks the lists agree at run time.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTING_NAMES } from "../../src/client/setting-names";
import { SETTINGS } from "../../src/settings/declarations";

describe("the provider settings and the client's options", () => {
  it("name the same options, so every setting has a neutral name in the client's messages", () => {
    expect(SETTINGS.map((s) => s.name).sort()).toEqual(Object.keys(DEFAULT_SETTING_NAMES).sort());
  });
});
