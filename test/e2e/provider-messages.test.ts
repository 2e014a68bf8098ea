import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { installBrokerPlugin } from "../../harness/broker-native.mts";
import { CliError, PulumiProject, type StackConfig } from "../../harness/pulumi-project.mts";
import { programsVenv, sdkVirtualenv } from "../../harness/python-sdk.mts";
import { configSteps } from "../support/stack-config";

// End-to-end through the real Pulumi CLI (issue #21): the messages a user meets about settings name
// the fix that applies to the provider that produced them. For the default provider that is stack
// config (`broker:baseUrl`); for an explicit `Provider` it is that provider's argument, spelled for
// every language, never stack config, which does not reach it. Programs in TypeScript (the native
// SDK) and Python (the generated SDK), one access key each; one stack per language and provider kind,
// whose config each case changes (four engine runs a stack: three `up`s, one preview; a `pulumi
// config` command only for a secret a case changes, plain values going on the run's `--config`). The default provider runs in TypeScript only: its
// settings come from stack config, which the engine hands to the plugin whatever the program's
// language, so a Python run of it would repeat the same messages from the same plugin (issue #50).
// An explicit provider's settings are the program's arguments, passed by each language's SDK: both run.

const WRONG_KEY = "bka_wrong_key_for_the_messages_test";

let first: EmulatorHandle;
let second: EmulatorHandle;
let venvRoot: string;
const projects: PulumiProject[] = [];

beforeAll(async () => {
  first = await startEmulator();
  // The same admin key at both ends, so moving the endpoint is one plaintext setting, passed on the
  // preview that must refuse it rather than by a `pulumi config` command of its own.
  second = await startEmulator({ adminKey: first.adminKey });
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

describe.each(["typescript", "python"] as const)("messages about settings, %s program", (language) => {
  let project: PulumiProject;

  beforeAll(async () => {
    project = await projectFor(language);
  }, 300_000);

  // One stack per provider kind, its config changed between cases (CLI runs are the file's cost:
  // issue #50). The cases run in order: each failed `up` leaves nothing in state, and the last
  // case's own `up` is the stack's first resource.
  describe.each(KINDS.filter(({ kind }) => language === "typescript" || kind === "explicit"))(
    "$kind provider",
    (kind) => {
      const stackName = kind.kind;

      /** The stack's config now. */
      let current: StackConfig = {};

      beforeAll(async () => {
        await project.run(["stack", "init", stackName]);
      }, 120_000);

      /**
       * `pulumi <args>` on the stack with `config`: a `pulumi config` command first only for what
       * must be encrypted or removed; the plain values go on the run's own `--config`, which saves them.
       */
      async function withConfig(config: StackConfig, args: readonly string[]): Promise<string[]> {
        const { commands, flags } = configSteps(current, config, stackName);
        for (const command of commands) await project.run(command);
        current = config;
        return [...args, "--stack", stackName, ...flags];
      }

      /** `up` with `config` must fail: its output. */
      async function failedUp(config: StackConfig): Promise<string> {
        return failure(project, await withConfig(config, ["up", "--yes", "--skip-preview"]));
      }

      // Both settings missing in one `up` (one message names where to set each: issue #50); which
      // headline a single missing setting gets is the wording's, test/unit/connection.test.ts (stack
      // config) and test/unit/settings-wording.test.ts (a provider's arguments).
      it("names where to set a missing base URL, and a missing API key", async () => {
        const output = await failedUp(kind.config(undefined, undefined));
        expect(output).toMatch(/No broker API base URL and no API key: set the base URL with /u);
        expect(output).toMatch(kind.setBaseUrl);
        expect(output).toMatch(/, and an ACCOUNT access key with /u);
        expect(output).toMatch(kind.setApiKey);
        expect(output).not.toContain("<nil>");
        if (kind.kind === "explicit") expect(output).not.toContain("pulumi config set");
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
        await project.run(
          await withConfig(kind.config(first.url, first.adminKey), ["up", "--yes", "--skip-preview"]),
        );
        // The same admin key at the second broker: only the URL moves, on the preview's own `--config`.
        const output = await failure(
          project,
          await withConfig(kind.config(second.url, first.adminKey), ["preview"]),
        );
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
    },
  );
});
