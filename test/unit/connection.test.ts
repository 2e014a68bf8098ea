import { describe, expect, it, vi } from "vitest";

import { isBrokerSettingsError } from "../../src/client";
import {
  CONFIG_KEYS,
  configuredBaseUrl,
  ENV_VARS,
  isConfiguredApiKey,
  resolveConnection,
  resolveSettings,
  STACK_SETTING_NAMES,
  type ConfigSource,
} from "../../src/settings/connection";

const KEY = "bka_config_secret";

function stack(values: Record<string, string>): ConfigSource {
  return (key) => values[key];
}

function failure(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (!isBrokerSettingsError(error)) throw error;
    return { code: error.code, message: error.message };
  }
  throw new Error("expected a BrokerSettingsError");
}

describe("resolveConnection precedence", () => {
  const env = { BROKER_BASE_URL: "https://env.example/v1", BROKER_API_KEY: "bka_env" };
  const config = stack({ "broker:baseUrl": "https://stack.example/v1", "broker:apiKey": "bka_stack" });

  it("prefers explicit options over stack config and env", () => {
    expect(
      resolveConnection({ baseUrl: "https://explicit.example/v1", apiKey: "bka_explicit" }, config, env),
    ).toEqual({
      baseUrl: "https://explicit.example/v1",
      apiKey: "bka_explicit",
    });
  });

  it("prefers stack config over env", () => {
    expect(resolveConnection(undefined, config, env)).toEqual({
      baseUrl: "https://stack.example/v1",
      apiKey: "bka_stack",
    });
  });

  it("falls back to env, setting by setting", () => {
    expect(resolveConnection({}, stack({ "broker:apiKey": "bka_stack" }), env)).toEqual({
      baseUrl: "https://env.example/v1",
      apiKey: "bka_stack",
    });
    expect(resolveConnection(undefined, undefined, env)).toEqual({
      baseUrl: "https://env.example/v1",
      apiKey: "bka_env",
    });
  });

  it("treats empty values as unset", () => {
    expect(resolveConnection({ baseUrl: "" }, stack({ "broker:baseUrl": "  " }), env).baseUrl).toBe(
      "https://env.example/v1",
    );
  });

  it("reads process.env when no env is given", () => {
    vi.stubEnv("BROKER_BASE_URL", "http://127.0.0.1:1/v1");
    vi.stubEnv("BROKER_API_KEY", "bka_process");
    try {
      expect(resolveConnection()).toEqual({ baseUrl: "http://127.0.0.1:1/v1", apiKey: "bka_process" });
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("reads the numeric settings from explicit options, then stack config", () => {
    const numbers = stack({
      "broker:timeoutMs": "5000",
      "broker:maxRetries": "0",
      "broker:maxConcurrency": "2",
    });
    expect(resolveConnection({}, numbers, env)).toEqual({
      baseUrl: "https://env.example/v1",
      apiKey: "bka_env",
      timeoutMs: 5000,
      maxRetries: 0,
      maxConcurrency: 2,
    });
    expect(resolveConnection({ timeoutMs: 7 }, numbers, env).timeoutMs).toBe(7);
  });

  it("normalises a trailing slash and trims whitespace", () => {
    expect(
      resolveConnection({ baseUrl: " https://x.example/api/v1/ ", apiKey: ` ${KEY}\n` }, undefined, {}),
    ).toEqual({
      baseUrl: "https://x.example/api/v1",
      apiKey: KEY,
    });
  });

  it("names its keys and environment variables", () => {
    expect(CONFIG_KEYS).toEqual({
      baseUrl: "broker:baseUrl",
      apiKey: "broker:apiKey",
      timeoutMs: "broker:timeoutMs",
      maxRetries: "broker:maxRetries",
      maxConcurrency: "broker:maxConcurrency",
      rateLimitTimeoutSeconds: "broker:rateLimitTimeoutSeconds",
      maxRequestsPerSecond: "broker:maxRequestsPerSecond",
      readStalenessMs: "broker:readStalenessMs",
    });
    expect(ENV_VARS).toEqual({
      baseUrl: "BROKER_BASE_URL",
      apiKey: "BROKER_API_KEY",
      maxRequestsPerSecond: "BROKER_MAX_REQUESTS_PER_SECOND",
    });
  });
});

describe("resolveConnection errors", () => {
  const ok = { "broker:baseUrl": "https://x.example/v1", "broker:apiKey": KEY };
  const cases: [string, Record<string, string>, Record<string, string>, string, string][] = [
    [
      "no base URL",
      { "broker:apiKey": KEY },
      {},
      "BROKER_SETTINGS_MISSING",
      "No broker API base URL: set it with `pulumi config set broker:baseUrl https://…/v1` or the BROKER_BASE_URL environment variable",
    ],
    [
      "no API key",
      { "broker:baseUrl": "https://x.example/v1" },
      {},
      "BROKER_SETTINGS_MISSING",
      "No broker API key: set an ACCOUNT access key with `pulumi config set --secret broker:apiKey <key>` or the BROKER_API_KEY environment variable",
    ],
    [
      "a base URL that is not a URL",
      { ...ok, "broker:baseUrl": "broker.example/v1" },
      {},
      "BROKER_SETTINGS_INVALID",
      "Invalid broker API base URL in broker:baseUrl: it is not an absolute URL; use an http(s) URL ending in /v1, such as https://broker.example.com/v1",
    ],
    [
      "a base URL not ending in /v1, from the environment",
      { "broker:apiKey": KEY },
      { BROKER_BASE_URL: "https://x.example/v2" },
      "BROKER_SETTINGS_INVALID",
      "Invalid broker API base URL https://x.example/v2 in the BROKER_BASE_URL environment variable: its path does not end in /v1; use an http(s) URL ending in /v1, such as https://broker.example.com/v1",
    ],
    [
      "a base URL with another scheme",
      { ...ok, "broker:baseUrl": "ftp://x.example/v1" },
      {},
      "BROKER_SETTINGS_INVALID",
      "Invalid broker API base URL ftp://x.example/v1 in broker:baseUrl: its scheme is ftp: (use http or https); use an http(s) URL ending in /v1, such as https://broker.example.com/v1",
    ],
    [
      "a base URL with a query",
      { ...ok, "broker:baseUrl": "https://x.example/v1?a=1" },
      {},
      "BROKER_SETTINGS_INVALID",
      "Invalid broker API base URL https://x.example/v1 in broker:baseUrl: it has a query or fragment; use an http(s) URL ending in /v1, such as https://broker.example.com/v1",
    ],
    [
      "an API key with inner whitespace",
      { ...ok, "broker:apiKey": "bka_a b" },
      {},
      "BROKER_SETTINGS_INVALID",
      "Invalid broker API key in broker:apiKey: it contains whitespace or control characters; copy the key again",
    ],
    [
      "a timeout that is not a number",
      { ...ok, "broker:timeoutMs": "30s" },
      {},
      "BROKER_SETTINGS_INVALID",
      'Invalid broker:timeoutMs "30s": it must be a positive integer; fix it with `pulumi config set broker:timeoutMs <number>`',
    ],
    [
      "a zero concurrency",
      { ...ok, "broker:maxConcurrency": "0" },
      {},
      "BROKER_SETTINGS_INVALID",
      'Invalid broker:maxConcurrency "0": it must be a positive integer; fix it with `pulumi config set broker:maxConcurrency <number>`',
    ],
    [
      "negative retries",
      { ...ok, "broker:maxRetries": "-1" },
      {},
      "BROKER_SETTINGS_INVALID",
      'Invalid broker:maxRetries "-1": it must be a non-negative integer; fix it with `pulumi config set broker:maxRetries <number>`',
    ],
  ];

  it.each(cases)("explains %s", (_, config, env, code, message) => {
    expect(failure(() => resolveConnection(undefined, stack(config), env))).toEqual({ code, message });
  });

  it("rejects an explicit option that is not a positive integer", () => {
    expect(failure(() => resolveConnection({ timeoutMs: 1.5 }, stack(ok), {}))).toEqual({
      code: "BROKER_SETTINGS_INVALID",
      message: "Invalid timeoutMs option 1.5: it must be a positive integer",
    });
  });

  it("never echoes the API key, even one pasted into another setting", () => {
    const pasted = failure(() => resolveConnection(undefined, stack({ ...ok, "broker:timeoutMs": KEY }), {}));
    expect(pasted.code).toBe("BROKER_SETTINGS_INVALID");
    expect(pasted.message).not.toContain(KEY);
    expect(pasted.message).toContain("[REDACTED]");
    const inUrl = failure(() =>
      resolveConnection(undefined, stack({ ...ok, "broker:baseUrl": `https://x.example/${KEY}` }), {}),
    );
    expect(inUrl.message).not.toContain(KEY);
    const userInfo = failure(() =>
      resolveConnection(
        undefined,
        stack({ ...ok, "broker:baseUrl": "https://user:hunter2@x.example/v1" }),
        {},
      ),
    );
    expect(userInfo.message).not.toContain("hunter2");
    expect(userInfo.message).toContain("it contains user info");
  });
});

describe("missing settings", () => {
  it("names every missing setting and both ways to set each in one message (issue #10)", () => {
    expect(failure(() => resolveConnection(undefined, stack({}), {}))).toEqual({
      code: "BROKER_SETTINGS_MISSING",
      message:
        "No broker API base URL and no API key: set the base URL with `pulumi config set broker:baseUrl https://…/v1` or the BROKER_BASE_URL environment variable, and an ACCOUNT access key with `pulumi config set --secret broker:apiKey <key>` or the BROKER_API_KEY environment variable",
    });
  });

  it("reports missing settings before an invalid one, so one run shows what to add", () => {
    const { code } = failure(() => resolveConnection(undefined, stack({ "broker:timeoutMs": "x" }), {}));
    expect(code).toBe("BROKER_SETTINGS_MISSING");
  });

  it("has a code of its own, not the configuration document's", () => {
    const { code } = failure(() => resolveConnection(undefined, undefined, {}));
    expect(code).not.toBe("BROKER_CONFIG_INVALID");
  });
});

describe("resolveSettings for a caller without a stack", () => {
  const cli = (env: Record<string, string>, baseUrl?: string) =>
    resolveSettings({
      explicit: baseUrl === undefined ? {} : { baseUrl },
      explicitNames: { baseUrl: "--base-url" },
      env,
      envVars: { apiKey: "MY_KEY" },
      missingMessage: (missing) => `missing ${missing.join(" and ")}`,
    });

  it("reads the key from the variable it is told, not BROKER_API_KEY", () => {
    expect(
      cli({ MY_KEY: KEY, BROKER_API_KEY: "bka_other", BROKER_BASE_URL: "https://e.example/v1" }),
    ).toEqual({
      baseUrl: "https://e.example/v1",
      apiKey: KEY,
    });
    expect(failure(() => cli({ BROKER_API_KEY: KEY }, "https://e.example/v1"))).toEqual({
      code: "BROKER_SETTINGS_MISSING",
      message: "missing apiKey",
    });
    expect(failure(() => cli({}))).toMatchObject({ message: "missing baseUrl and apiKey" });
  });

  it("names the flag and the variable in its errors, and redacts the key it was given", () => {
    expect(failure(() => cli({ MY_KEY: KEY }, "https://e.example/v2")).message).toContain(
      "Invalid broker API base URL https://e.example/v2 in --base-url:",
    );
    expect(failure(() => cli({ MY_KEY: "bka_a b" }, "https://e.example/v1")).message).toBe(
      "Invalid broker API key in the MY_KEY environment variable: it contains whitespace or control characters; copy the key again",
    );
    const pasted = failure(() => cli({ MY_KEY: KEY }, `https://e.example/${KEY}`));
    expect(pasted.message).not.toContain(KEY);
    expect(failure(() => cli({ MY_KEY: KEY }, "https://u:p@e.example/v1")).message).toContain(
      "(put the API key in MY_KEY)",
    );
  });
});

describe("rate-limit settings", () => {
  const ok = { "broker:baseUrl": "https://x.example/v1", "broker:apiKey": KEY };

  it("reads the rate-limit budget from stack config and the quota from stack config, then the environment", () => {
    expect(
      resolveConnection(
        undefined,
        stack({ ...ok, "broker:rateLimitTimeoutSeconds": "600", "broker:maxRequestsPerSecond": "2.5" }),
        { BROKER_MAX_REQUESTS_PER_SECOND: "9" },
      ),
    ).toMatchObject({ rateLimitTimeoutSeconds: 600, maxRequestsPerSecond: 2.5 });
    // 0 is a staleness bound too: only pages sent after the read began.
    expect(resolveConnection(undefined, stack({ ...ok, "broker:readStalenessMs": "0" }), {})).toMatchObject({
      readStalenessMs: 0,
    });
    expect(
      resolveConnection(undefined, stack(ok), { BROKER_MAX_REQUESTS_PER_SECOND: "9" }).maxRequestsPerSecond,
    ).toBe(9);
    expect(resolveConnection({ maxRequestsPerSecond: 0.5 }, stack(ok), {}).maxRequestsPerSecond).toBe(0.5);
  });

  it.each([
    [
      { "broker:maxRequestsPerSecond": "0" },
      {},
      'Invalid broker:maxRequestsPerSecond "0": it must be a positive number (requests per second, such as 20 or 0.5)',
    ],
    [
      {},
      { BROKER_MAX_REQUESTS_PER_SECOND: "fast" },
      'Invalid BROKER_MAX_REQUESTS_PER_SECOND "fast": it must be a positive number (requests per second, such as 20 or 0.5)',
    ],
    [
      { "broker:rateLimitTimeoutSeconds": "5m" },
      {},
      'Invalid broker:rateLimitTimeoutSeconds "5m": it must be a non-negative integer; fix it with `pulumi config set broker:rateLimitTimeoutSeconds <number>`',
    ],
  ])("explains an invalid value: %o %o", (config, env, message) => {
    expect(failure(() => resolveConnection(undefined, stack({ ...ok, ...config }), env))).toEqual({
      code: "BROKER_SETTINGS_INVALID",
      message,
    });
  });
});

describe("STACK_SETTING_NAMES", () => {
  it("names the stack config key and the environment variable, as the client's hints show them", () => {
    expect(STACK_SETTING_NAMES).toEqual({
      baseUrl: "broker:baseUrl (or BROKER_BASE_URL)",
      apiKey: "broker:apiKey (or BROKER_API_KEY)",
      timeoutMs: "broker:timeoutMs",
      maxRetries: "broker:maxRetries",
      maxConcurrency: "broker:maxConcurrency",
      rateLimitTimeoutSeconds: "broker:rateLimitTimeoutSeconds",
      maxRequestsPerSecond: "broker:maxRequestsPerSecond (or BROKER_MAX_REQUESTS_PER_SECOND)",
      readStalenessMs: "broker:readStalenessMs",
    });
  });
});

describe("isConfiguredApiKey", () => {
  it("compares with the key resolution would use (stack config before the environment), without a base URL", () => {
    const stack = (key: string): string | undefined => (key === "broker:apiKey" ? "bka_stack" : undefined);
    expect(isConfiguredApiKey("bka_stack", stack, { BROKER_API_KEY: "bka_env" })).toBe(true);
    expect(isConfiguredApiKey("bka_env", stack, { BROKER_API_KEY: "bka_env" })).toBe(false);
    expect(isConfiguredApiKey("bka_env", undefined, { BROKER_API_KEY: "bka_env" })).toBe(true);
  });

  it("is false when no key is configured, and for an empty value", () => {
    expect(isConfiguredApiKey("bka_x", undefined, {})).toBe(false);
    expect(isConfiguredApiKey("", undefined, { BROKER_API_KEY: "" })).toBe(false);
  });
});

describe("configuredBaseUrl", () => {
  it("reads the base URL without needing an API key, stack config first", () => {
    const stack = (key: string): string | undefined =>
      key === "broker:baseUrl" ? "https://a.example/v1/" : undefined;
    expect(configuredBaseUrl(stack, { BROKER_BASE_URL: "https://b.example/v1" })).toBe(
      "https://a.example/v1",
    );
    expect(configuredBaseUrl(undefined, { BROKER_BASE_URL: "https://b.example/v1" })).toBe(
      "https://b.example/v1",
    );
  });

  it("answers undefined instead of throwing when nothing or something invalid is set", () => {
    expect(configuredBaseUrl(undefined, {})).toBeUndefined();
    expect(configuredBaseUrl(undefined, { BROKER_BASE_URL: "not a url" })).toBeUndefined();
  });
});
