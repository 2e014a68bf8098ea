import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { installBrokerPlugin } from "../../harness/broker-native.mts";
import { CliError, type PulumiProject } from "../../harness/pulumi-project.mts";
import { programsVenv, sdkVirtualenv } from "../../harness/python-sdk.mts";
import { PROGRAMS_DIR, testProject, venvPath } from "../support/projects";
import type { Spec as ProgramSpec } from "../programs/policy-native-ts";

// Issue #35: the broker policy pack through the real Pulumi CLI, offline, as a pull-request check
// runs it: `pulumi preview --policy-pack node_modules/pulumi-broker-config/policy-pack` (the pack
// the package ships, from the packed package installed as users get it), with no broker settings at
// all: a preview that sent a request, or needed credentials, would fail with the provider's missing
// setting error. The compliant scenario then runs with an emulator's URL and key in the CLI's
// environment (`BROKER_BASE_URL`, `BROKER_API_KEY`: no `pulumi config` command before it, issue #50),
// and the emulator must have received no request. One program per door and language (a TypeScript program with the native SDK, a
// dynamic-door program, a Python program), each one project whose stack config `spec` says what it
// declares; CLI runs are kept few, each scenario a single preview:
//
//   violating  a `*` permission (mandatory) and the advisory cases: fails, naming resource and path;
//   advisory   only advisory cases: passes, printing a warning per case;
//   configured the same with a policy config file that disables one rule, allows a top-level path,
//              and makes keys-per-workspace mandatory with a lower maxKeys: fails on that rule;
//   compliant  nothing to report: passes with no violation.

/** The pack as users pass it: a path inside the installed package. */
const PACK = path.join("node_modules", "pulumi-broker-config", "policy-pack");

/** A scenario: the program's spec, every part given. */
type Spec = Required<ProgramSpec>;

/** Every advisory rule but keys-per-workspace (its default maxKeys is 20) has a case here. */
const ADVISORY: Spec = {
  workspaces: [{ resource: "orders", name: "OrdersTeam" }],
  keys: [
    {
      resource: "orders-service",
      name: "orders-service",
      type: "SERVICE",
      // check sorts the list (["orders/*", "orders/eu/created"]): the pack cannot tell where the
      // program wrote "orders/*", and names the list without an index.
      send: ["orders/eu/created", "orders/*"],
      receive: ["orders/*"],
      workspace: "orders",
    },
    {
      resource: "ops-admin",
      name: "ops-admin",
      type: "ACCOUNT",
      receive: ["audit/eu/*"],
      workspace: "orders",
    },
  ],
};

const VIOLATING: Spec = {
  ...ADVISORY,
  // check refuses "*", so the engine hands the pack the program's own list: its index is known.
  keys: [
    ...ADVISORY.keys,
    { resource: "firehose", name: "firehose", type: "SERVICE", send: ["orders/created", "*"] },
  ],
};

const COMPLIANT: Spec = {
  workspaces: [{ resource: "orders", name: "orders" }],
  keys: [
    {
      resource: "orders-service",
      name: "orders-service",
      type: "SERVICE",
      send: ["orders/eu/created"],
      receive: ["payments/eu/*"],
      workspace: "orders",
    },
  ],
};

/**
 * The policy config file of the `configured` scenario (Pulumi's format: policy name → level, or
 * level and settings). The only mandatory violation left is the stack-level one, which the engine
 * analyses after every resource: a mandatory violation of a resource would stop the preview there.
 */
const POLICY_CONFIG = {
  "broker-no-account-keys": "disabled",
  "broker-no-top-level-wildcards": { enforcementLevel: "mandatory", allowedPaths: ["orders/*"] },
  "broker-max-keys-per-workspace": { enforcementLevel: "mandatory", maxKeys: 1 },
};

/** The outcome of one preview: whether it passed, and everything it printed. */
interface Preview {
  passed: boolean;
  output: string;
}

/**
 * Previews with the pack (and `configFile`, when given), the stack's `spec` set by the preview's own
 * `--config` (which saves it to the stack config): one CLI run, not a `config set` before it. `env`
 * is added to the CLI's environment.
 */
async function preview(
  project: PulumiProject,
  spec: Spec,
  configFile?: string,
  env: Record<string, string> = {},
): Promise<Preview> {
  const args = [
    "preview",
    "--config",
    `spec=${JSON.stringify(spec)}`,
    "--policy-pack",
    PACK,
    ...(configFile === undefined ? [] : ["--policy-pack-config", configFile]),
  ];
  try {
    const run = await project.run(args, env);
    return { passed: true, output: run.stdout + run.stderr };
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return { passed: false, output: error.stdout + error.stderr };
  }
}

/** The line the CLI prints for a policy's violation by a resource: `[level]  policy  (type: name)`. */
function violation(level: "mandatory" | "advisory", policy: string, type: string, resource: string): string {
  return `[${level}]  ${policy}  (${type}: ${resource})`;
}

interface Door {
  name: string;
  program: string;
  /** The type token the analyzer sees for `kind`. */
  type: (kind: "Workspace" | "AccessKey") => string;
  /**
   * Which scenarios this door runs (every door: violating, advisory; see the file's head). The
   * policy config file is read by the engine and the pack, whatever the door: one door runs it.
   */
  scenarios: readonly ("configured" | "compliant")[];
  /** Prepares the project (the plugin, a Python venv) and returns what its commands need. */
  env?: () => Record<string, string>;
  native: boolean;
}

let scratch: string;
let emulator: EmulatorHandle;

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-policy-"));
  fs.writeFileSync(path.join(scratch, "policy-config.json"), JSON.stringify(POLICY_CONFIG));
  emulator = await startEmulator({ controls: true });
});

afterAll(async () => {
  await emulator.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

const DOORS: readonly Door[] = [
  {
    name: "a TypeScript program with the native SDK",
    program: "policy-native-ts",
    type: (kind) => `broker:index:${kind}`,
    scenarios: ["configured", "compliant"],
    native: true,
  },
  {
    name: "a dynamic-door program",
    program: "policy-dynamic",
    type: (kind) => `pulumi-nodejs:dynamic/broker:${kind}`,
    scenarios: ["compliant"],
    native: false,
  },
  {
    name: "a Python program with the generated SDK",
    program: "policy-python",
    type: (kind) => `broker:index:${kind}`,
    scenarios: [],
    // The Python language host runs the first `python` on PATH: a venv with the SDK installed.
    env: () => ({ PATH: venvPath(sdkVirtualenv(programsVenv(inject("pulumiVersion")), scratch)) }),
    native: true,
  },
];

describe.each(DOORS)("the broker policy pack previewing $name", (door) => {
  let project: PulumiProject;
  const key = door.type("AccessKey");

  beforeAll(async () => {
    project = await testProject(door.program, path.join(PROGRAMS_DIR, door.program), door.env?.());
    if (door.native) installBrokerPlugin(project);
    await project.run(["stack", "init", "dev"]);
  }, 300_000);

  afterAll(() => {
    project.remove();
  });

  it("fails on a `*` permission, naming the resource, the path and what to change", async () => {
    const { passed, output } = await preview(project, VIOLATING);
    expect(passed).toBe(false);
    expect(output).toContain(violation("mandatory", "broker-no-all-event-paths", key, "firehose"));
    expect(output).toContain(
      'AccessKey "firehose" may send to "*" (permissions.send[1]), every event path of the broker: list the paths it needs instead',
    );
    // The provider's check refuses `*` as well (the grammar wants a prefix), so the engine stops at that
    // resource: which of the others it analysed first is the engine's order, not asserted here.
  }, 120_000);

  it("passes with only advisory violations, printing each as a warning", async () => {
    const { passed, output } = await preview(project, ADVISORY);
    expect(passed, output).toBe(true);
    expect(output).not.toContain("[mandatory]");
    for (const [policy, resource, message] of [
      [
        "broker-no-top-level-wildcards",
        "orders-service",
        'may send to "orders/*" (permissions.send), every event under the top-level path "orders"',
      ],
      [
        "broker-no-send-and-receive-wildcard",
        "orders-service",
        'may both send to and receive from the wildcard "orders/*" (permissions.send, permissions.receive[0])',
      ],
      ["broker-no-account-keys", "ops-admin", 'AccessKey "ops-admin" creates an ACCOUNT key'],
    ] as const) {
      expect(output).toContain(violation("advisory", policy, key, resource));
      expect(output).toContain(message);
    }
    expect(output).toContain(
      violation("advisory", "broker-names-match-pattern", door.type("Workspace"), "orders"),
    );
    expect(output).toContain(
      'Workspace "orders" is named "OrdersTeam" (name), which does not match workspaceNamePattern',
    );
  }, 120_000);

  it.runIf(door.scenarios.includes("configured"))(
    "follows the policy config file: a disabled rule is silent, an allowed path passes, a rule made mandatory with maxKeys fails",
    async () => {
      const { passed, output } = await preview(project, ADVISORY, path.join(scratch, "policy-config.json"));
      expect(passed).toBe(false);
      expect(output).not.toContain("broker-no-account-keys");
      expect(output).not.toContain("broker-no-top-level-wildcards");
      expect(output).toContain("[mandatory]  broker-max-keys-per-workspace");
      expect(output).toContain(
        'Workspace "orders" holds (as the Pulumi parent of each) 2 access keys, more than maxKeys (1): "ops-admin", "orders-service".',
      );
      // The rules the file does not name keep their default levels.
      expect(output).toContain(
        violation("advisory", "broker-no-send-and-receive-wildcard", key, "orders-service"),
      );
    },
    120_000,
  );

  it.runIf(door.scenarios.includes("compliant"))(
    "passes a compliant program with no violation, sending no request to the API it is configured with",
    async () => {
      await emulator.controls!.clearRequests();
      const { passed, output } = await preview(project, COMPLIANT, undefined, {
        BROKER_BASE_URL: emulator.url,
        BROKER_API_KEY: emulator.adminKey,
      });
      expect(await emulator.controls!.requests()).toEqual([]);
      expect(passed, output).toBe(true);
      expect(output).not.toMatch(/\[(mandatory|advisory)\]/u);
      expect(output).toContain("pulumi-broker-config@v");
    },
    120_000,
  );
});
