/**
 * How messages name a provider's settings: stack config for the default provider, the arguments of
 * an explicit one, with every language's spelling (src/settings/wording.ts), and how the plugin
 * tells the two apart from the engine's requests (requestOrigin).
 */
import { describe, expect, it } from "vitest";
import { requestOrigin } from "../../src/native/config";
import {
  missingSettingsMessage,
  originOfProvider,
  settingNamesFor,
  spellings,
  STACK_ORIGIN,
} from "../../src/settings/wording";

describe("originOfProvider", () => {
  it("takes the providers the engine makes (default, default_<version>…) for stack config, any other for its arguments", () => {
    for (const name of [undefined, "", "default", "default_0_1_0", "default_0_1_0_alpha"])
      expect(originOfProvider(name)).toEqual(STACK_ORIGIN);
    expect(originOfProvider("prod")).toEqual({ kind: "provider", name: "prod" });
  });
});

describe("requestOrigin", () => {
  const urn = (name: string): string => `urn:pulumi:dev::app::pulumi:providers:broker::${name}`;

  it("reads the provider's name, else the end of its URN", () => {
    expect(requestOrigin({ getName: () => "prod", getUrn: () => urn("prod") })).toEqual({
      kind: "provider",
      name: "prod",
    });
    expect(requestOrigin({ getName: () => "", getUrn: () => urn("staging") })).toEqual({
      kind: "provider",
      name: "staging",
    });
    expect(requestOrigin({ getName: () => undefined, getUrn: () => urn("default_0_1_0") })).toEqual(
      STACK_ORIGIN,
    );
  });

  it("copes with the request classes of older SDKs, which lack the name or both accessors", () => {
    expect(requestOrigin({ getUrn: () => urn("prod") })).toEqual({ kind: "provider", name: "prod" });
    expect(requestOrigin({})).toBeUndefined();
  });
});

describe("wording", () => {
  it("gives a schema name's other spellings once", () => {
    expect(spellings("allowEndpointChange")).toBe(
      "`allowEndpointChange` (`allow_endpoint_change` in Python, `AllowEndpointChange` in Go and .NET)",
    );
    expect(spellings("adopt")).toBe("`adopt` (`Adopt` in Go and .NET)");
  });

  it("names the settings as the provider has them", () => {
    expect(settingNamesFor(STACK_ORIGIN)).toMatchObject({
      baseUrl: "broker:baseUrl (or BROKER_BASE_URL)",
      timeoutMs: "broker:timeoutMs",
    });
    expect(settingNamesFor({ kind: "provider", name: "prod" })).toMatchObject({
      baseUrl: 'the baseUrl argument of provider "prod" (or BROKER_BASE_URL)',
      apiKey: 'the apiKey argument of provider "prod" (or BROKER_API_KEY)',
      timeoutMs: 'the timeoutMs argument of provider "prod"',
    });
  });

  it("tells an explicit provider's user to set its arguments, never stack config", () => {
    const message = missingSettingsMessage({ kind: "provider", name: "prod" }, ["baseUrl", "apiKey"]);
    expect(message).toBe(
      'No broker API base URL and no API key: set the base URL with the `baseUrl` (`base_url` in Python, `BaseUrl` in Go and .NET) argument of provider "prod", or the BROKER_BASE_URL environment variable, and an ACCOUNT access key with the `apiKey` (`api_key` in Python, `ApiKey` in Go and .NET) argument of provider "prod" (as a secret), or the BROKER_API_KEY environment variable',
    );
    expect(missingSettingsMessage(STACK_ORIGIN, ["apiKey"])).toBe(
      "No broker API key: set an ACCOUNT access key with `pulumi config set --secret broker:apiKey <key>` or the BROKER_API_KEY environment variable",
    );
  });
});
