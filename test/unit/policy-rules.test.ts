/**
 * The broker policy pack (issue #35), rule by rule, on plain inputs: what each rule reports, that
 * its message names the resource, the offending path or value and what to change, and what its
 * config changes. Then the policies as `@pulumi/policy` runs them (names, default enforcement
 * levels, config schemas, which resource types they read), and the shipped pack's version.
 * test/e2e/policy-pack.test.ts runs the pack through the real CLI.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type {
  Policies,
  PolicyResource,
  ReportViolation,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationArgs,
  StackValidationPolicy,
} from "@pulumi/policy";
import { describe, expect, it } from "vitest";
import { eventPathScope, normalizePermissions } from "../../src/model";
import {
  accountKeyViolations,
  allEventPathsViolations,
  BROKER_POLICY_NAMES,
  brokerPolicies,
  brokerResourceType,
  DEFAULT_NAME_PATTERN,
  keysPerWorkspaceViolations,
  namePatternViolations,
  sendAndReceiveWildcardViolations,
  topLevelWildcardViolations,
  type BrokerResourceView,
  type StackResourceView,
} from "../../src/policy";
import { REPO_ROOT } from "../../harness/repo.mts";

function key(props: Record<string, unknown>, resourceName = "orders-service"): BrokerResourceView {
  return { kind: "AccessKey", resourceName, props };
}

function permissions(send: string[], receive: string[] = []): Record<string, unknown> {
  return { permissions: { send, receive, resources: {} } };
}

describe("eventPathScope reads the event path grammar", () => {
  it.each([
    ["*", "all"],
    ["/*", "all"],
    ["orders/*", "top-level"],
    ["orders/eu/*", "nested"],
    ["orders/created", "exact"],
    ["orders", "exact"],
  ] as const)("%s is %s", (path, scope) => {
    expect(eventPathScope(path)).toBe(scope);
  });
});

describe("broker-no-all-event-paths", () => {
  it("reports `*` in send and in receive, naming the resource, the path and its property", () => {
    const messages = allEventPathsViolations(key(permissions(["orders/created", "*"], ["*"])));
    expect(messages).toEqual([
      'AccessKey "orders-service" may send to "*" (permissions.send[1]), every event path of the broker: list the paths it needs instead, such as "orders/created" or "orders/*".',
      'AccessKey "orders-service" may receive from "*" (permissions.receive[0]), every event path of the broker: list the paths it needs instead, such as "orders/created" or "orders/*".',
    ]);
  });

  it("passes narrower paths, keys without permissions and other resources", () => {
    expect(allEventPathsViolations(key(permissions(["orders/*", "orders/eu/*"], ["a/b"])))).toEqual([]);
    expect(allEventPathsViolations(key({ type: "SERVICE" }))).toEqual([]);
    expect(
      allEventPathsViolations({ kind: "Workspace", resourceName: "w", props: permissions(["*"]) }),
    ).toEqual([]);
  });
});

describe("the property a message names is where the program wrote the path", () => {
  // Issue #47: the pack sees the inputs `check` returned, sorted and without repeats, so an index
  // into them is not one into the program's list.
  const audit = (list: string[]) =>
    topLevelWildcardViolations(key(permissions([], list)), { allowedPaths: [] })[0]?.match(
      /\(([^)]*)\)/u,
    )?.[1];

  it("names the list without an index when check reordered it", () => {
    const written = ["billing/invoiced", "audit/*"];
    const checked = normalizePermissions({ receive: written }).receive;
    expect(checked).toEqual(["audit/*", "billing/invoiced"]);
    expect(audit(checked)).toBe("permissions.receive");
  });

  it("names the program's index when check refused the inputs and the engine passed the program's list on", () => {
    expect(audit(["billing/invoiced", "audit/*"])).toBe("permissions.receive[1]");
    expect(audit(["audit/*", "audit/*", "billing/x"])).toBe("permissions.receive[0]");
  });

  it("names index 0 of a list of one path, the only place the program can have written it", () => {
    expect(audit(normalizePermissions({ receive: ["audit/*", "audit/*"] }).receive)).toBe(
      "permissions.receive[0]",
    );
  });
});

describe("broker-no-top-level-wildcards", () => {
  it("reports a wildcard directly under the root, saying how to narrow or allow it", () => {
    expect(
      topLevelWildcardViolations(key(permissions(["orders/eu/*"], ["orders/*"])), { allowedPaths: [] }),
    ).toEqual([
      'AccessKey "orders-service" may receive from "orders/*" (permissions.receive[0]), every event under the top-level path "orders": name the paths below it that the key needs (such as "orders/created"), or allow "orders/*" in this policy\'s allowedPaths.',
    ]);
  });

  it("passes a path listed in allowedPaths, and only that one", () => {
    const messages = topLevelWildcardViolations(key(permissions(["audit/*", "orders/*"])), {
      allowedPaths: ["audit/*"],
    });
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('"orders/*" (permissions.send)');
  });

  it("leaves `*` to broker-no-all-event-paths", () => {
    expect(topLevelWildcardViolations(key(permissions(["*"])), { allowedPaths: [] })).toEqual([]);
  });
});

describe("broker-no-account-keys", () => {
  it("reports an ACCOUNT key the stack creates, and says what to use instead", () => {
    expect(accountKeyViolations(key({ type: "ACCOUNT", name: "ops" }, "ops-admin"))).toEqual([
      'AccessKey "ops-admin" creates an ACCOUNT key (type: "ACCOUNT"), which may change the whole broker configuration through the API: use type "SERVICE" for a key that connects clients to the broker, or create ACCOUNT keys outside the stack.',
    ]);
  });

  it("passes SERVICE keys and ACCOUNT keys the stack adopted rather than created", () => {
    expect(accountKeyViolations(key({ type: "SERVICE" }))).toEqual([]);
    expect(accountKeyViolations(key({ type: "ACCOUNT", adopt: true }))).toEqual([]);
  });
});

describe("broker-no-send-and-receive-wildcard", () => {
  it("reports a wildcard in both lists once, with both properties", () => {
    expect(
      sendAndReceiveWildcardViolations(
        key(permissions(["orders/*", "payments/created"], ["payments/created", "orders/*", "orders/*"])),
      ),
    ).toEqual([
      'AccessKey "orders-service" may both send to and receive from the wildcard "orders/*" (permissions.send, permissions.receive[1]): give publishing and subscribing to separate keys, or narrow one of the lists to the paths it needs.',
    ]);
  });

  it("passes an exact path in both lists and different wildcards", () => {
    expect(
      sendAndReceiveWildcardViolations(key(permissions(["a/b", "orders/*"], ["a/b", "payments/*"]))),
    ).toEqual([]);
  });
});

describe("broker-names-match-pattern", () => {
  const defaults = { workspaceNamePattern: DEFAULT_NAME_PATTERN, keyNamePattern: DEFAULT_NAME_PATTERN };

  it("reports a workspace and a key whose names do not match, naming the setting", () => {
    expect(
      namePatternViolations(
        { kind: "Workspace", resourceName: "team", props: { name: "Team Orders" } },
        defaults,
      ),
    ).toEqual([
      `Workspace "team" is named "Team Orders" (name), which does not match workspaceNamePattern ${JSON.stringify(DEFAULT_NAME_PATTERN)}: rename it to match (a new name replaces the object), or change workspaceNamePattern in the policy config.`,
    ]);
    expect(namePatternViolations(key({ name: "Orders_Service" }), defaults)[0]).toContain(
      "does not match keyNamePattern",
    );
  });

  it("passes default-style and generated names, and names that are not known yet", () => {
    expect(namePatternViolations(key({ name: "orders-service-1a2b3c4" }), defaults)).toEqual([]);
    expect(
      namePatternViolations(
        { kind: "Workspace", resourceName: "w", props: { name: "team.orders" } },
        defaults,
      ),
    ).toEqual([]);
    expect(namePatternViolations(key({}), defaults)).toEqual([]);
  });

  it("applies each kind's own pattern from the config", () => {
    const config = { workspaceNamePattern: "^team-", keyNamePattern: "^svc-" };
    expect(
      namePatternViolations({ kind: "Workspace", resourceName: "w", props: { name: "team-a" } }, config),
    ).toEqual([]);
    expect(namePatternViolations(key({ name: "team-a" }), config)).toHaveLength(1);
    expect(namePatternViolations(key({ name: "svc-a" }), config)).toEqual([]);
  });

  it("says when the configured pattern is not a regular expression", () => {
    const [message] = namePatternViolations(key({ name: "a" }), { ...defaults, keyNamePattern: "(" });
    expect(message).toMatch(/^the policy config's keyNamePattern "\(" is not a valid regular expression/);
  });
});

describe("broker-max-keys-per-workspace", () => {
  const stack = (parentOf: Record<string, string | undefined>, kinds: Record<string, string>) =>
    Object.entries(kinds).map(([name, kind]): StackResourceView => ({
      kind: kind === "Component" ? undefined : (kind as StackResourceView["kind"]),
      resourceName: name,
      urn: `urn:${name}`,
      parentUrn: parentOf[name] === undefined ? undefined : `urn:${parentOf[name]}`,
    }));

  it("counts keys under the nearest Workspace among their parents, through other resources", () => {
    const resources = stack(
      { a: "orders", b: "orders", c: "group", group: "orders", d: "payments" },
      {
        orders: "Workspace",
        payments: "Workspace",
        group: "Component",
        a: "AccessKey",
        b: "AccessKey",
        c: "AccessKey",
        d: "AccessKey",
      },
    );
    expect(keysPerWorkspaceViolations(resources, { maxKeys: 3 })).toEqual([]);
    expect(keysPerWorkspaceViolations(resources, { maxKeys: 2 })).toEqual([
      'Workspace "orders" holds (as the Pulumi parent of each) 3 access keys, more than maxKeys (2): "a", "b", "c". Share keys between services that need the same paths, split the workspace, or raise maxKeys in the policy config.',
    ]);
  });

  it("counts keys with no workspace among their parents together, as the stack's", () => {
    const resources = stack({}, { b: "AccessKey", a: "AccessKey", w: "Workspace" });
    expect(keysPerWorkspaceViolations(resources, { maxKeys: 1 })).toEqual([
      'The stack holds 2 access keys outside any workspace, more than maxKeys (1): "a", "b". Share keys between services that need the same paths, split the workspace, or raise maxKeys in the policy config.',
    ]);
  });
});

describe("brokerResourceType recognises both doors' type tokens", () => {
  it.each([
    ["broker:index:AccessKey", { kind: "AccessKey", door: "native" }],
    ["broker:index:Workspace", { kind: "Workspace", door: "native" }],
    ["pulumi-nodejs:dynamic/broker:AccessKey", { kind: "AccessKey", door: "dynamic" }],
    ["pulumi-nodejs:dynamic/broker:ServiceKeyPair", { kind: "ServiceKeyPair", door: "dynamic" }],
    ["pulumi-nodejs:dynamic:Resource", undefined],
    ["pulumi-nodejs:dynamic/other:AccessKey", undefined],
  ] as const)("%s", (type, expected) => {
    expect(brokerResourceType(type)).toEqual(expected);
  });
});

describe("the policies as @pulumi/policy runs them", () => {
  const policies = brokerPolicies();
  const byName = new Map(policies.map((p) => [p.name, p]));

  /** Runs a resource policy on one resource and returns the messages it reported. */
  function validate(
    name: string,
    type: string,
    props: Record<string, unknown>,
    config: Record<string, unknown> = {},
  ): string[] {
    const policy = byName.get(name) as ResourceValidationPolicy;
    const reported: string[] = [];
    const report: ReportViolation = (message) => reported.push(message);
    const args = {
      type,
      name: "k",
      urn: "urn:k",
      props,
      getConfig: () => config,
    } as unknown as ResourceValidationArgs;
    // The broker policies validate synchronously: a single function each, returning nothing.
    const validateResource = policy.validateResource as (
      a: ResourceValidationArgs,
      r: ReportViolation,
    ) => void;
    validateResource(args, report);
    return reported;
  }

  it("fits @pulumi/policy's PolicyPack as they are", () => {
    // A type check (npm run typecheck): the subpath's own types are assignable to the SDK's.
    const asSdkPolicies: Policies = brokerPolicies();
    expect(asSdkPolicies).toHaveLength(6);
  });

  it("has one policy per rule, each with its default enforcement level", () => {
    expect(policies.map((p) => [p.name, p.enforcementLevel])).toEqual([
      [BROKER_POLICY_NAMES.allEventPaths, "mandatory"],
      [BROKER_POLICY_NAMES.topLevelWildcards, "advisory"],
      [BROKER_POLICY_NAMES.accountKeys, "advisory"],
      [BROKER_POLICY_NAMES.sendAndReceiveWildcard, "advisory"],
      [BROKER_POLICY_NAMES.namePatterns, "advisory"],
      [BROKER_POLICY_NAMES.keysPerWorkspace, "advisory"],
    ]);
  });

  it("reads native and dynamic broker resources alike, and nothing else", () => {
    const props = { type: "SERVICE", ...permissions(["*"]) };
    expect(validate(BROKER_POLICY_NAMES.allEventPaths, "broker:index:AccessKey", props)).toHaveLength(1);
    expect(
      validate(BROKER_POLICY_NAMES.allEventPaths, "pulumi-nodejs:dynamic/broker:AccessKey", props),
    ).toHaveLength(1);
    expect(validate(BROKER_POLICY_NAMES.allEventPaths, "pulumi-nodejs:dynamic:Resource", props)).toEqual([]);
  });

  it("takes allowedPaths and the name patterns from the policy's config, with defaults without it", () => {
    const props = { name: "Orders", ...permissions(["orders/*"]) };
    const type = "broker:index:AccessKey";
    expect(validate(BROKER_POLICY_NAMES.topLevelWildcards, type, props)).toHaveLength(1);
    expect(
      validate(BROKER_POLICY_NAMES.topLevelWildcards, type, props, { allowedPaths: ["orders/*"] }),
    ).toEqual([]);
    expect(validate(BROKER_POLICY_NAMES.namePatterns, type, props)).toHaveLength(1);
    expect(validate(BROKER_POLICY_NAMES.namePatterns, type, props, { keyNamePattern: "^O" })).toEqual([]);
  });

  it("declares a JSON schema with defaults for every setting", () => {
    const schemas = Object.fromEntries(policies.map((p) => [p.name, p.configSchema?.properties]));
    expect(schemas[BROKER_POLICY_NAMES.topLevelWildcards]).toMatchObject({
      allowedPaths: { type: "array", default: [] },
    });
    expect(schemas[BROKER_POLICY_NAMES.namePatterns]).toMatchObject({
      workspaceNamePattern: { type: "string", default: DEFAULT_NAME_PATTERN },
      keyNamePattern: { type: "string", default: DEFAULT_NAME_PATTERN },
    });
    expect(schemas[BROKER_POLICY_NAMES.keysPerWorkspace]).toMatchObject({
      maxKeys: { type: "integer", minimum: 1, default: 20 },
    });
  });

  it("counts a stack's keys per workspace with maxKeys from the config", async () => {
    const policy = byName.get(BROKER_POLICY_NAMES.keysPerWorkspace) as StackValidationPolicy;
    const workspace = { type: "broker:index:Workspace", name: "orders", urn: "urn:orders" } as PolicyResource;
    const keys = ["a", "b"].map(
      (name) =>
        ({
          type: "pulumi-nodejs:dynamic/broker:AccessKey",
          name,
          urn: `urn:${name}`,
          parent: workspace,
        }) as PolicyResource,
    );
    const run = async (config: Record<string, unknown>): Promise<string[]> => {
      const reported: string[] = [];
      const args = {
        resources: [workspace, ...keys],
        getConfig: () => config,
      } as unknown as StackValidationArgs;
      const validateStack = policy.validateStack;
      await validateStack(args, (m) => {
        reported.push(m);
      });
      return reported;
    };
    expect(await run({})).toEqual([]);
    expect(await run({ maxKeys: 1 })).toEqual([expect.stringContaining('Workspace "orders" holds')]);
  });
});

describe("the shipped pack", () => {
  it("is versioned with the package (the CLI reads the pack's version from policy-pack/package.json)", () => {
    const read = (file: string) =>
      (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, file), "utf8")) as { version: string }).version;
    expect(read("policy-pack/package.json")).toBe(read("package.json"));
  });

  it("is in the package's files, beside dist/ whose policy subpath it loads", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
      files: string[];
    };
    expect(manifest.files).toEqual(expect.arrayContaining(["dist", "policy-pack"]));
    expect(fs.readFileSync(path.join(REPO_ROOT, "policy-pack", "index.js"), "utf8")).toContain(
      'require("../dist/policy")',
    );
  });
});
