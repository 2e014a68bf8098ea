/**
 * A boolean or an optional string provider setting needs only its declaration: resolving,
 * checking and naming it follow from `SETTINGS`. No such setting exists today, so this test adds
 * two to the declarations (a mocked module) and resolves them through the real connection module.
 */
import { describe, expect, it, vi } from "vitest";
import { DEFAULT_SETTING_NAMES } from "../../src/client/setting-names";
import { resolveConnection, settingProblem } from "../../src/settings/connection";
import type * as Declarations from "../../src/settings/declarations";

// vi.mock is hoisted above the imports: the modules above see the mocked declarations.

vi.mock("../../src/settings/declarations", async (importOriginal) => {
  const original = await importOriginal<typeof Declarations>();
  const extra = [
    { name: "verbose", type: "boolean", doc: "Log every request.", env: "BROKER_VERBOSE" },
    { name: "proxyUrl", type: "string", doc: "An HTTP proxy." },
  ] as const;
  const SETTINGS = [...original.SETTINGS, ...extra];
  return {
    ...original,
    SETTINGS,
    settingNamed: (name: string) => SETTINGS.find((s) => s.name === name),
    CONFIG_KEYS: Object.fromEntries(SETTINGS.map((s) => [s.name, `broker:${s.name}`])),
    ENV_VARS: { ...original.ENV_VARS, verbose: "BROKER_VERBOSE" },
  };
});

const REQUIRED = { "broker:baseUrl": "https://broker.example.com/v1", "broker:apiKey": "bk_account" };
const stack =
  (values: Record<string, string>) =>
  (key: string): string | undefined =>
    ({ ...REQUIRED, ...values })[key];

describe("settings of other kinds, from their declaration alone", () => {
  it("resolves a boolean from stack config or its environment variable, and an optional string as set", () => {
    const fromStack = resolveConnection(
      {},
      stack({ "broker:verbose": "TRUE", "broker:proxyUrl": "http://proxy:3128" }),
      {},
    );
    expect(fromStack).toMatchObject({ verbose: true, proxyUrl: "http://proxy:3128" });
    expect(resolveConnection({}, stack({}), { BROKER_VERBOSE: "false" })).toMatchObject({ verbose: false });
    const unset = resolveConnection({}, stack({}), {});
    expect("verbose" in unset || "proxyUrl" in unset).toBe(false);
  });

  it("rejects a boolean that is not true or false, naming where it was set", () => {
    expect(() => resolveConnection({}, stack({ "broker:verbose": "yes" }), {})).toThrow(
      'Invalid broker:verbose "yes": it must be true or false',
    );
    expect(settingProblem("verbose" as never, "yes")).toBe(
      'Invalid broker:verbose "yes": it must be true or false',
    );
    expect(settingProblem("proxyUrl" as never, "anything")).toBeUndefined();
  });

  it("are named by the client only as its own options: it knows no setting declarations (issue #48)", () => {
    // The client's neutral names are its options', not the declarations': the mocked settings are
    // not among them (a real setting needs its client option, which a compile-time check enforces).
    expect(Object.keys(DEFAULT_SETTING_NAMES)).not.toContain("verbose");
    expect(DEFAULT_SETTING_NAMES.apiKey).toBe("the API key");
  });
});
