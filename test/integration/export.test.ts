/**
 * `broker-config export` against a populated emulator: through the library, and through the real
 * command of the packed package (as users get it from npm) in a child process.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import { createServer } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { BrokerClient } from "../../src/client";
import type { Permissions } from "../../src/client/types";
import { BROKER_CONFIG_SCHEMA, loadBrokerConfig, type WorkspaceSpec } from "../../src/config-as-data";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { SETTINGS } from "../../src/settings/declarations";
import { exportBrokerConfig, formatBrokerConfig, type ExportProgress } from "../../src/export";
import { createWorkspaceTree } from "../support/client";

const KEY_COUNT = 130;
/** Every fifth key is an ACCOUNT key (key-000, key-005, …): left out unless asked for. */
const ACCOUNT_KEYS = KEY_COUNT / 5;
/** The keys a default export holds: the SERVICE keys. */
const SERVICE_KEYS = KEY_COUNT - ACCOUNT_KEYS;

let emulator: EmulatorHandle;
let client: BrokerClient;
let dir: string;
let cli: string;
/** Every credential the emulator holds or handed out: none may appear in an export. */
const secrets: string[] = [];

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], env: Record<string, string | undefined>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: dir,
      env: { PATH: process.env["PATH"], ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (data: Buffer) => (stdout += data.toString()));
    child.stderr.on("data", (data: Buffer) => (stderr += data.toString()));
    child.once("error", reject);
    child.once("close", (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

/** A port nothing listens on (taken, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => {
        resolve(port);
      });
    });
  });
}

function permissionsFor(i: number): Partial<Permissions> {
  if (i % 3 === 0) return {};
  return {
    send: [`team${i % 7}/events/*`, `team${i % 7}/created`],
    receive: i % 2 === 0 ? [`audit/${i}`] : [],
    ...(i % 10 === 1 ? { resources: { tier: "gold", zones: ["b", "a"] } } : {}),
  };
}

beforeAll(async () => {
  emulator = await startEmulator({ controls: true });
  secrets.push(emulator.adminKey);
  client = new BrokerClient({ baseUrl: emulator.url, apiKey: emulator.adminKey });
  await createWorkspaceTree(client);
  // Created in an order other than the sorted one, so that sorting is visible.
  for (let i = KEY_COUNT - 1; i >= 0; i--) {
    const created = await client.createAccessKey({
      name: `key-${String(i).padStart(3, "0")}`,
      type: i % 5 === 0 ? "ACCOUNT" : "SERVICE",
      permissions: permissionsFor(i),
    });
    secrets.push(created.accessKey);
    if (created.serviceKeyPair !== undefined) secrets.push(created.serviceKeyPair.privateKey);
  }
  for await (const record of client.accessKeys()) secrets.push(record.key);

  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-export-"));
  const installed = path.join(inject("packageFixture"), "node_modules", "pulumi-broker-config");
  cli = path.join(installed, "dist", "cli", "broker-config.js");
});

afterAll(async () => {
  await client.close();
  await emulator.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function expectNoSecrets(text: string): void {
  expect(secrets.length).toBeGreaterThan(KEY_COUNT);
  for (const secret of secrets) expect(text).not.toContain(secret);
}

describe("exportBrokerConfig against the emulator", () => {
  it("exports the workspace tree and every key (over 100, several pages) with its permissions", async () => {
    const progress: ExportProgress[] = [];
    const { document, warnings, counts } = await exportBrokerConfig(client, {
      onProgress: (p) => progress.push(p),
      includeAccountKeys: true,
    });
    expect(warnings).toEqual([]);
    expect(counts).toEqual({ workspaces: 6, accessKeys: KEY_COUNT + 1 });
    expect(document.adopt).toBe(true);
    expect(document.allowAccountKeys).toBe(true);
    expect(document.workspaces).toEqual<WorkspaceSpec[]>([
      { name: "data" },
      {
        name: "platform",
        children: [{ name: "billing" }, { name: "orders", children: [{ name: "eu" }, { name: "us" }] }],
      },
    ]);
    const keys = document.accessKeys!;
    expect(keys).toHaveLength(KEY_COUNT + 1);
    expect(keys.map((k) => k.name)).toEqual([...keys.map((k) => k.name)].sort());
    expect(keys.find((k) => k.name === "admin")).toEqual({ name: "admin", type: "ACCOUNT" });
    expect(keys.find((k) => k.name === "key-011")).toEqual({
      name: "key-011",
      type: "SERVICE",
      permissions: {
        send: ["team4/created", "team4/events/*"],
        resources: { tier: "gold", zones: ["b", "a"] },
      },
    });
    expect(keys.find((k) => k.name === "key-010")).toEqual({
      name: "key-010",
      type: "ACCOUNT",
      permissions: { send: ["team3/created", "team3/events/*"], receive: ["audit/10"] },
    });
    expect(keys.find((k) => k.name === "key-000")).toEqual({ name: "key-000", type: "ACCOUNT" });
    expect(progress.filter((p) => p.kind === "accessKeys")).toEqual([
      { kind: "accessKeys", count: 100, done: false },
      { kind: "accessKeys", count: KEY_COUNT + 1, done: true },
    ]);
    expectNoSecrets(formatBrokerConfig(document, "yaml") + formatBrokerConfig(document, "json"));
  });

  it("leaves out every ACCOUNT key by default, and the key it authenticates with always", async () => {
    const byDefault = await exportBrokerConfig(client, { authenticatedWith: emulator.adminKey });
    expect(byDefault.document.accessKeys?.every((k) => k.type === "SERVICE")).toBe(true);
    expect(byDefault.counts.accessKeys).toBe(SERVICE_KEYS);
    expect(byDefault.leftOut.ownKey?.name).toBe("admin");
    expect(byDefault.leftOut.accountKeys).toHaveLength(ACCOUNT_KEYS);
    const asked = await exportBrokerConfig(client, {
      includeAccountKeys: true,
      authenticatedWith: emulator.adminKey,
    });
    expect(asked.document.accessKeys?.map((k) => k.name)).not.toContain("admin");
    expect(asked.counts.accessKeys).toBe(KEY_COUNT);
    expect(asked.leftOut.accountKeys).toEqual([]);
  });

  it("gives byte-equal output for two exports of one environment", async () => {
    const one = await exportBrokerConfig(client);
    const two = await exportBrokerConfig(client);
    expect(formatBrokerConfig(two.document, "yaml")).toBe(formatBrokerConfig(one.document, "yaml"));
  });
});

describe("the broker-config command", () => {
  it("is installed as a bin of the package, with the schema beside it", () => {
    const fixture = inject("packageFixture");
    expect(fs.existsSync(path.join(fixture, "node_modules", ".bin", "broker-config"))).toBe(true);
    const schemaPath = require.resolve("pulumi-broker-config/broker-config.schema.json", {
      paths: [fixture],
    });
    expect(JSON.parse(fs.readFileSync(schemaPath, "utf8"))).toEqual(BROKER_CONFIG_SCHEMA);
  });

  it("exports to a file: exit 0, the library's bytes, loadable, no key value", async () => {
    const out = path.join(dir, "broker.yaml");
    const run = await runCli(["export", "--base-url", emulator.url, "--out", out], {
      BROKER_API_KEY: emulator.adminKey,
    });
    const lines = run.stderr.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^broker-config: left out access key "admin" \(id \d+\): it is the key this export authenticates with/u,
    );
    expect(lines[1]).toMatch(
      new RegExp(
        `^broker-config: left out ${ACCOUNT_KEYS} ACCOUNT key\\(s\\) \\("key-000", "key-005", .*\\): .*pass --include-account-keys to export them$`,
        "u",
      ),
    );
    expect(lines.slice(2)).toEqual([
      `broker-config: wrote 6 workspaces and ${SERVICE_KEYS} access keys to ${out}`,
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("");
    const text = fs.readFileSync(out, "utf8");
    expect(text).toBe(formatBrokerConfig((await exportBrokerConfig(client)).document, "yaml"));
    expect(loadBrokerConfig(out).accessKeys).toHaveLength(SERVICE_KEYS);
    expectNoSecrets(text + run.stderr);
  });

  it("writes JSON to stdout with the base URL from BROKER_BASE_URL, and reports progress when asked", async () => {
    const run = await runCli(["export", "--format", "json", "--progress"], {
      BROKER_BASE_URL: emulator.url,
      BROKER_API_KEY: emulator.adminKey,
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual((await exportBrokerConfig(client)).document);
    expect(run.stderr).toContain("broker-config: exported 100 access keys…\n");
    expect(run.stderr).toContain(`broker-config: exported ${KEY_COUNT + 1} access keys\n`);
    expectNoSecrets(run.stdout + run.stderr);
  });

  it("writes a pulumi import --file document with --format import: types, names and ids, no key value", async () => {
    const run = await runCli(["export", "--format", "import"], {
      BROKER_BASE_URL: emulator.url,
      BROKER_API_KEY: emulator.adminKey,
    });
    expect(run.code).toBe(0);
    const document = JSON.parse(run.stdout) as { resources: { type: string }[] };
    expect(document).toEqual((await exportBrokerConfig(client)).importFile);
    expect(document.resources.filter((r) => r.type === "broker:index:AccessKey")).toHaveLength(SERVICE_KEYS);
    expectNoSecrets(run.stdout + run.stderr);
  });

  it("exports the ACCOUNT keys with --include-account-keys, never the one it authenticates with", async () => {
    const run = await runCli(["export", "--base-url", emulator.url, "--include-account-keys"], {
      BROKER_API_KEY: emulator.adminKey,
    });
    expect(run.code).toBe(0);
    const document = parse(run.stdout) as { allowAccountKeys?: boolean; accessKeys: { name: string }[] };
    expect(document.allowAccountKeys).toBe(true);
    expect(document.accessKeys).toHaveLength(KEY_COUNT);
    expect(document.accessKeys.map((k) => k.name)).not.toContain("admin");
    expect(run.stderr).toMatch(
      /left out access key "admin" \(id \d+\): it is the key this export authenticates with/u,
    );
    expect(run.stderr).not.toContain("ACCOUNT key(s)");
    expectNoSecrets(run.stdout + run.stderr);
  });

  it("reads the key from the variable --api-key-env names", async () => {
    const run = await runCli(["export", "--base-url", emulator.url, "--api-key-env", "MY_BROKER_KEY"], {
      MY_BROKER_KEY: emulator.adminKey,
    });
    // Only the summary of what was left out: the key read from MY_BROKER_KEY is the one the export uses.
    expect(run.stderr).toMatch(
      /^broker-config: left out access key "admin" \(id \d+\): it is the key this export authenticates with/u,
    );
    expect(run.stderr).not.toMatch(/error|warning/iu);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^# Broker configuration/u);
  });

  it("fails with exit 1 and one line naming broker:apiKey / BROKER_API_KEY for a wrong key, never echoing it", async () => {
    const wrong = "bka_this_key_does_not_exist_0123456789";
    const out = path.join(dir, "never.yaml");
    const run = await runCli(["export", "--base-url", emulator.url, "--out", out], { BROKER_API_KEY: wrong });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain("401");
    expect(run.stderr).toContain("broker:apiKey");
    expect(run.stderr).toContain("BROKER_API_KEY");
    expect(run.stderr + run.stdout).not.toContain(wrong);
    expect(fs.existsSync(out)).toBe(false);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("fails with exit 1 and one line when the API is unreachable", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const run = await runCli(["export", "--base-url", url], { BROKER_API_KEY: emulator.adminKey });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(/^broker-config: GET \/workspace failed/u);
    expect(run.stderr).toContain(url.replace(/\/v1$/u, ""));
    expect(run.stderr).not.toContain(emulator.adminKey);
  });

  it.each([
    {
      what: "a key given as a flag",
      args: ["export", "--api-key", "bka_flag_secret"],
      pattern: /--api-key is not accepted/u,
    },
    {
      what: "a key given as --api-key=",
      args: ["export", "--api-key=bka_flag_secret"],
      pattern: /shell history/u,
    },
    { what: "no command", args: [], pattern: /no command given/u },
    { what: "an unknown command", args: ["import"], pattern: /unknown command "import"/u },
    {
      what: "a key pasted as an argument",
      args: ["export", "bka_flag_secret"],
      pattern: /unexpected argument: /u,
    },
    {
      what: "an unknown format",
      args: ["export", "--format", "toml"],
      pattern: /--format must be yaml or json/u,
    },
    { what: "an unknown flag", args: ["export", "--colour"], pattern: /Unknown option '--colour'/u },
  ])("fails with exit 2 for $what, with usage and without echoing a key", async ({ args, pattern }) => {
    const run = await runCli(args, { BROKER_API_KEY: emulator.adminKey, BROKER_BASE_URL: emulator.url });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(pattern);
    expect(run.stderr).toContain("Usage: broker-config export");
    expect(run.stderr).not.toContain("bka_flag_secret");
    expect(run.stderr).not.toContain(emulator.adminKey);
  });

  it("fails with exit 2 when the API key or base URL is missing or the URL is malformed", async () => {
    const noKey = await runCli(["export", "--base-url", emulator.url], {});
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/no API key: set BROKER_API_KEY/u);
    const noUrl = await runCli(["export"], { BROKER_API_KEY: emulator.adminKey });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/no base URL: pass --base-url or set BROKER_BASE_URL/u);
    const badUrl = await runCli(["export", "--base-url", "http://127.0.0.1:1/v2"], {
      BROKER_API_KEY: emulator.adminKey,
    });
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toMatch(/in --base-url: its path does not end in \/v1/u);
  });

  it("names both the base URL and the API key in one message when both are missing", async () => {
    const run = await runCli(["export"], {});
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^broker-config: no base URL and no API key: pass --base-url or set BROKER_BASE_URL \(it ends in \/v1\), and set BROKER_API_KEY to an ACCOUNT access key/u,
    );
  });

  it("fails with exit 1 and one line when the output file cannot be written", async () => {
    const out = path.join(dir, "no-such-dir", "broker.yaml");
    const run = await runCli(["export", "--base-url", emulator.url, "--out", out], {
      BROKER_API_KEY: emulator.adminKey,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`broker-config: cannot write ${out}: ENOENT\n`);
  });

  it("prints usage with --help, exit 0, with a flag for every provider setting but the API key", async () => {
    const run = await runCli(["--help"], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: broker-config export/u);
    for (const setting of SETTINGS) {
      const flag = `--${setting.name.replace(/[A-Z]/gu, (c) => `-${c.toLowerCase()}`)}`;
      if ("secret" in setting) expect(run.stdout).not.toContain(`${flag} `);
      else expect(run.stdout).toMatch(new RegExp(`^  ${flag} (N|URL)\\n {23}\\S`, "mu"));
    }
  });

  it("takes every numeric setting as a flag, checked with the setting's own rule and named by its flag", async () => {
    const env = { BROKER_API_KEY: emulator.adminKey, BROKER_BASE_URL: emulator.url };
    const ok = await runCli(
      ["export", "--timeout-ms", "20000", "--max-retries", "1", "--max-concurrency", "2", "--format", "json"],
      env,
    );
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toHaveProperty("accessKeys");
    const zero = await runCli(["export", "--max-concurrency", "0"], env);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('Invalid --max-concurrency "0": it must be a positive integer');
    const fraction = await runCli(["export", "--max-requests-per-second", "fast"], env);
    expect(fraction.code).toBe(2);
    expect(fraction.stderr).toContain(
      'Invalid --max-requests-per-second "fast": it must be a positive number (requests per second, such as 20 or 0.5)',
    );
  });
});
