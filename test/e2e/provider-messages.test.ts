import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { installBrokerPlugin } from "../../harness/broker-native.mts";
import { CliError, PulumiProject, type StackConfig } from "../../harness/pulumi-project.mts";
import { programsVenv, sdkVirtualenv } from "../../harness/python-sdk.mts";

// End-to-end through the real Pulumi CLI (issue #21): the messages a user meets about settings name
// the fix that applies to the provider that produced them. For the default provider that is stack
// config (`broker:baseUrl`); for an explicit `Provider` it is that provider's argument, spelled for
// every language, never stack config, which does not reach it. Programs in TypeScript (the native
// SDK) and Python (the generated SDK), one access key each; one stack per language and provider kind,
// whose config each case changes (five engine runs a stack: four `up`s, one preview).

const WRONG_KEY = "bka_wrong_key_for_the_messages_test";

let first: EmulatorHandle;
let second: EmulatorHandle;
let venvRoot: string;
const projects: PulumiProject[] = [];

beforeAll(async () => {
  first = await startEmulator();
  second = await startEmulator();
  venvRoot = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-messages-"));
}, 120_000);

afterAll(async () => {
  await Promise.all([first.close(), second.close()]);
  for (const project of projects) project.remove();
  fs.rmSync(venvRoot, { recursive: true, force: true });
});

/** The project of `language`'s program, with the plugin installed as users install it. */
async function projectFor(language: "typescript" | "python"): Promise<PulumiProject> {
  const pulumiBin = inject("pulumiBin");
  const programs = path.join(__dirname, "..", "programs");
  const project = await PulumiProject.create(
    language === "typescript"
      ? {
          name: "messages-ts",
          programDir: path.join(programs, "native-messages"),
          fixture: inject("packageFixture"),
          pulumiBin,
        }
      : {
          name: "messages-py",
          programDir: path.join(programs, "python-messages"),
          fixture: inject("packageFixture"),
          pulumiBin,
          // The Python language host runs the first `python` on PATH: a venv with the SDK installed.
          env: {
            PATH: [
              path.join(
                sdkVirtualenv(
                  programsVenv(inject("pulumiVersion")),
                  fs.mkdtempSync(path.join(venvRoot, "venv-")),
                ),
                "bin",
              ),
              pulumiBin,
              process.env["PATH"] ?? "",
            ].join(path.delimiter),
          },
        },
  );
  installBrokerPlugin(project);
  projects.push(project);
  return project;
}

/** What one provider kind is configured with, and how messages must name its settings. */
interface ProviderKind {
  readonly kind: "default" | "explicit";
  /** Stack config giving this provider the base URL and the API key, either of them left out. */
  config(url: string | undefined, key: string | undefined): StackConfig;
  /** How messages name the place of a setting, as a regular expression's source. */
  readonly baseUrlPlace: RegExp;
  readonly apiKeyPlace: RegExp;
  /** The fix for a missing base URL and a missing API key. */
  readonly setBaseUrl: RegExp;
  readonly setApiKey: RegExp;
}

const KINDS: readonly ProviderKind[] = [
  {
    kind: "default",
    config: (url, key) => ({
      ...(url === undefined ? {} : { "broker:baseUrl": { value: url } }),
      ...(key === undefined ? {} : { "broker:apiKey": { value: key, secret: true } }),
    }),
    baseUrlPlace: /broker:baseUrl \(or BROKER_BASE_URL\)/u,
    apiKeyPlace: /broker:apiKey \(or BROKER_API_KEY\)/u,
    setBaseUrl:
      /`pulumi config set broker:baseUrl https:\/\/…\/v1` or the BROKER_BASE_URL environment variable/u,
    setApiKey: /`pulumi config set --secret broker:apiKey <key>` or the BROKER_API_KEY environment variable/u,
  },
  {
    kind: "explicit",
    config: (url, key) => ({
      explicit: { value: "true" },
      ...(url === undefined ? {} : { providerUrl: { value: url } }),
      ...(key === undefined ? {} : { providerKey: { value: key, secret: true } }),
    }),
    baseUrlPlace: /the baseUrl argument of provider "prod" \(or BROKER_BASE_URL\)/u,
    apiKeyPlace: /the apiKey argument of provider "prod" \(or BROKER_API_KEY\)/u,
    setBaseUrl:
      /the `baseUrl` \(`base_url` in Python, `BaseUrl` in Go and \.NET\) argument of provider "prod", or the BROKER_BASE_URL environment variable/u,
    setApiKey:
      /the `apiKey` \(`api_key` in Python, `ApiKey` in Go and \.NET\) argument of provider "prod" \(as a secret\), or the BROKER_API_KEY environment variable/u,
  },
];

/** The output of a `pulumi` command that must fail. */
async function failure(project: PulumiProject, args: string[]): Promise<string> {
  try {
    await project.run(args);
  } catch (error) {
    if (error instanceof CliError) return `${error.stdout}\n${error.stderr}`;
    throw error;
  }
  throw new Error(`pulumi ${args.join(" ")} succeeded, but it should have failed`);
}

/** `pulumi config set-all` on `stackName` with `config`, after `pulumi config rm-all` of `remove`. */
async function setConfig(
  project: PulumiProject,
  stackName: string,
  config: StackConfig,
  remove: readonly string[] = [],
): Promise<void> {
  if (remove.length > 0) await project.run(["config", "rm-all", "--stack", stackName, ...remove]);
  const pairs = Object.entries(config).flatMap(([key, { value, secret }]) => [
    secret === true ? "--secret" : "--plaintext",
    `${key}=${value}`,
  ]);
  if (pairs.length > 0) await project.run(["config", "set-all", "--stack", stackName, ...pairs]);
}

describe.each(["typescript", "python"] as const)("messages about settings, %s program", (language) => {
  let project: PulumiProject;

  beforeAll(async () => {
    project = await projectFor(language);
  }, 300_000);

  // One stack per provider kind, its config changed between cases (CLI runs are the file's cost:
  // issue #50). The cases run in order: each failed `up` leaves nothing in state, and the last
  // case's own `up` is the stack's first resource.
  describe.each(KINDS)("$kind provider", (kind) => {
    const stackName = kind.kind;
    /** The stack config key of this kind's base URL. */
    const urlKey = kind.kind === "default" ? "broker:baseUrl" : "providerUrl";

    beforeAll(async () => {
      await project.run(["stack", "init", stackName]);
    }, 120_000);

    /** Sets `config` (after removing the `remove` keys); `up` must then fail: its output. */
    async function failedUp(config: StackConfig, remove: readonly string[] = []): Promise<string> {
      await setConfig(project, stackName, config, remove);
      return failure(project, ["up", "--yes", "--skip-preview", "--stack", stackName]);
    }

    it("names where to set a missing base URL, and a missing API key", async () => {
      const noKey = await failedUp(kind.config(first.url, undefined));
      expect(noKey).toMatch(/No broker API key: set an ACCOUNT access key with /u);
      expect(noKey).toMatch(kind.setApiKey);
      const noUrl = await failedUp(kind.config(undefined, first.adminKey), [urlKey]);
      expect(noUrl).toMatch(/No broker API base URL: set it with /u);
      expect(noUrl).toMatch(kind.setBaseUrl);
      for (const output of [noUrl, noKey]) {
        expect(output).not.toContain("<nil>");
        if (kind.kind === "explicit") expect(output).not.toContain("pulumi config set");
      }
    }, 120_000);

    it("names where the API key the broker refused came from", async () => {
      const output = await failedUp(kind.config(first.url, WRONG_KEY));
      expect(output).toMatch(/401/u);
      expect(output).toMatch(
        new RegExp(`check that ${kind.apiKeyPlace.source} holds an ACCOUNT access key`, "u"),
      );
      expect(output).not.toContain(WRONG_KEY);
      expect(output).not.toContain("<nil>");
    }, 120_000);

    it("fails a preview whose endpoint moved on the resource, naming this provider's setting and every spelling", async () => {
      await setConfig(project, stackName, kind.config(first.url, first.adminKey));
      await project.run(["up", "--yes", "--skip-preview", "--stack", stackName]);
      await setConfig(project, stackName, kind.config(second.url, second.adminKey));
      const output = await failure(project, ["preview", "--stack", stackName]);
      expect(output).toMatch(
        /broker:index:AccessKey resource 'messages-key' has a problem: this resource lives at /u,
      );
      expect(output).toContain(first.url);
      expect(output).toMatch(
        new RegExp(`${kind.baseUrlPlace.source} now points to ${second.url.replace(/[.]/gu, "\\.")}`, "u"),
      );
      expect(output).toContain(
        "`allowEndpointChange` (`allow_endpoint_change` in Python, `AllowEndpointChange` in Go and .NET)",
      );
      expect(output).not.toContain("<nil>");
      if (kind.kind === "explicit") expect(output).not.toContain("broker:baseUrl");
    }, 180_000);
  });
});
