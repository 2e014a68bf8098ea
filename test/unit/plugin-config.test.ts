import { describe, expect, it } from "vitest";
import { decodeStruct, pv, type PropertyMap } from "../../src/native/codec";
import { checkConfig, diffConfig, plainApiKeyWarning, ProviderConfiguration } from "../../src/native/config";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";

const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = "1b47061264138c4ac30d75fd1eb44270";
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const secret = (value: unknown) => ({ [SIG]: SECRET, value });
const decode = (value: Record<string, unknown>): PropertyMap =>
  decodeStruct(Struct.fromJavaScript(value as Parameters<typeof Struct.fromJavaScript>[0]));

describe("checkConfig", () => {
  it("accepts valid settings, numbers given as strings included, and keeps the inputs as they are", () => {
    const news = decode({
      baseUrl: "http://127.0.0.1:4010/v1/",
      apiKey: secret("bka_admin"),
      timeoutMs: "30000",
      maxRetries: 0,
      maxConcurrency: "8",
      version: "0.1.0",
    });
    expect(checkConfig(news)).toEqual({ inputs: news, failures: [], warnings: [] });
  });

  it("reports every invalid setting against its own property, with the settings module's message", () => {
    const { failures } = checkConfig(
      decode({
        baseUrl: "ftp://broker.example.com",
        timeoutMs: "0",
        maxRetries: "-1",
        maxConcurrency: "many",
        apiKey: secret("a b"),
      }),
    );
    expect(failures.map((f) => f.property)).toEqual([
      "baseUrl",
      "apiKey",
      "timeoutMs",
      "maxRetries",
      "maxConcurrency",
    ]);
    expect(failures[0]?.reason).toContain("Invalid broker API base URL");
    expect(failures[0]?.reason).toContain("broker:baseUrl");
    expect(failures[1]?.reason).toContain("whitespace or control characters");
    expect(failures[1]?.reason).not.toContain("a b");
    expect(failures[2]?.reason).toContain('Invalid broker:timeoutMs "0": it must be a positive integer');
    expect(failures[3]?.reason).toContain("a non-negative integer");
  });

  it("does not check values that are not known yet, nor empty ones", () => {
    expect(
      checkConfig(decode({ baseUrl: UNKNOWN, apiKey: secret(UNKNOWN), timeoutMs: "" })).failures,
    ).toEqual([]);
  });

  it("names a value of the wrong kind", () => {
    expect(checkConfig(decode({ timeoutMs: { a: 1 } })).failures).toEqual([
      { property: "timeoutMs", reason: "broker:timeoutMs must be a number" },
    ]);
  });

  it("records a plain API key as a secret, without a warning (the engine sends CheckConfig no secrets)", () => {
    const checked = checkConfig(decode({ apiKey: "bka_plain" }));
    expect(checked.inputs).toEqual({ apiKey: pv.secret(pv.string("bka_plain")) });
    expect(checked.warnings).toEqual([]);
  });

  it("warns at Configure when the API key is not a secret, and only then", () => {
    const warning = plainApiKeyWarning(decode({ apiKey: "bka_plain" }));
    expect(warning).toContain("pulumi config set --secret broker:apiKey");
    expect(warning).not.toContain("bka_plain");
    expect(plainApiKeyWarning(decode({ apiKey: secret("bka_secret") }))).toBeUndefined();
    expect(plainApiKeyWarning(decode({}))).toBeUndefined();
  });

  it("warns about a setting it does not know, and ignores the engine's own keys", () => {
    const checked = checkConfig(decode({ baseURL: "x", version: "1.0.0", __internal: {} }));
    expect(checked.failures).toEqual([]);
    expect(checked.warnings).toEqual([
      'Unknown broker provider setting "baseURL" is ignored; the settings are baseUrl, apiKey, timeoutMs, maxRetries, maxConcurrency, rateLimitTimeoutSeconds, maxRequestsPerSecond, readStalenessMs.',
    ]);
  });
});

describe("diffConfig", () => {
  const olds = decode({ baseUrl: "http://a.test/v1", apiKey: secret("k1"), timeoutMs: "30000" });

  it("shows a changed baseUrl as an update of the provider, never a replacement", () => {
    const result = diffConfig(
      olds,
      decode({ baseUrl: "http://b.test/v1", apiKey: secret("k1"), timeoutMs: "30000" }),
    );
    expect(result.changes).toBe("DIFF_SOME");
    expect(result.diffs).toEqual(["baseUrl"]);
    expect(result.replaces).toEqual([]);
    expect(result.detailedDiff).toEqual({ baseUrl: { kind: "UPDATE", inputDiff: true } });
  });

  it("sees no change in a trailing slash, a number written as a string, or a secret marker", () => {
    const result = diffConfig(olds, decode({ baseUrl: "http://a.test/v1/", apiKey: "k1", timeoutMs: 30000 }));
    expect(result.changes).toBe("DIFF_NONE");
  });

  it("reports added, removed and not-yet-known settings", () => {
    const result = diffConfig(olds, decode({ baseUrl: UNKNOWN, maxRetries: "2", timeoutMs: "30000" }));
    expect(result.detailedDiff).toEqual({
      apiKey: { kind: "DELETE", inputDiff: true },
      baseUrl: { kind: "UPDATE", inputDiff: true },
      maxRetries: { kind: "ADD", inputDiff: true },
    });
    expect(result.replaces).toEqual([]);
  });
});

describe("ProviderConfiguration", () => {
  it("resolves the connection from args, with strings parsed, secrets unwrapped and env fallbacks", () => {
    const config = new ProviderConfiguration(
      decode({ apiKey: secret("bka_admin"), timeoutMs: "1500", maxRetries: 2 }),
      {
        BROKER_BASE_URL: "http://env.test/v1/",
      },
    );
    expect(config.connection()).toEqual({
      baseUrl: "http://env.test/v1",
      apiKey: "bka_admin",
      timeoutMs: 1500,
      maxRetries: 2,
    });
    expect(config.baseUrl()).toBe("http://env.test/v1");
  });

  it("is made without credentials and fails only when the connection is asked for", () => {
    const config = new ProviderConfiguration({}, {});
    expect(config.baseUrl()).toBeUndefined();
    expect(() => config.connection()).toThrow(
      /No broker API base URL and no API key: set the base URL with `pulumi config set broker:baseUrl/,
    );
    expect(() => config.client()).toThrow(/No broker API base URL/);
  });

  it("owns one API client made from its own settings; another instance never shares it", async () => {
    const a = new ProviderConfiguration(decode({ baseUrl: "http://a.test/v1", apiKey: secret("k") }), {});
    const b = new ProviderConfiguration(decode({ apiKey: secret("k") }), {
      BROKER_BASE_URL: "http://b.test/v1",
    });
    const client = a.client();
    expect(client.baseUrl).toBe("http://a.test/v1");
    expect(a.client()).toBe(client);
    expect(b.client().baseUrl).toBe("http://b.test/v1");
    await a.close();
    expect(client.closed).toBe(true);
    expect(a.client()).not.toBe(client);
    await a.close();
    await b.close();
  });
});
