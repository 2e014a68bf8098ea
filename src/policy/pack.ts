/**
 * The broker rules (`./rules.ts`) as `@pulumi/policy` policies: names, descriptions, default
 * enforcement levels and configuration schemas. The shipped pack (`policy-pack/` of the package)
 * serves them; a team's own pack can list them beside its other policies.
 *
 * Nothing here imports `@pulumi/policy`, not even its types: the package does not depend on it, and
 * its declaration files do not type-check without `skipLibCheck` (which `pulumi new typescript`
 * leaves off), so this subpath's types describe the policies structurally. They are assignable to
 * `@pulumi/policy`'s `Policies` (test/unit/policy-rules.test.ts checks that).
 */
import {
  accountKeyViolations,
  allEventPathsViolations,
  DEFAULT_NAME_PATTERN,
  keysPerWorkspaceViolations,
  namePatternViolations,
  sendAndReceiveWildcardViolations,
  topLevelWildcardViolations,
  type BrokerResourceView,
  type StackResourceView,
} from "./rules";
import { brokerResourceType, documentComponentOf } from "./resources";

/** Reports a violation, as `@pulumi/policy`'s `ReportViolation` does (`urn`: the resource it is about). */
export type BrokerReportViolation = (message: string, urn?: string) => void;

/** What `@pulumi/policy` passes a resource policy: the fields the broker policies read. */
export interface BrokerResourceArgs {
  /** The resource's type token. */
  type: string;
  /** Its logical name. */
  name: string;
  /** Its URN. */
  urn: string;
  /** Its inputs. */
  props: Record<string, unknown>;
  /** The policy's settings from the policy config file. */
  getConfig(): object;
}

/** What `@pulumi/policy` passes a stack policy: the fields the broker policies read. */
export interface BrokerStackArgs {
  /** Every resource of the stack, with its Pulumi parent. */
  resources: { type: string; name: string; urn: string; parent?: { urn: string } | undefined }[];
  /** The policy's settings from the policy config file. */
  getConfig(): object;
}

/** The JSON schema of one setting of a broker policy. */
export interface BrokerPolicySettingSchema {
  type: "string" | "integer" | "array";
  description: string;
  items?: { type: "string"; pattern?: string };
  minimum?: number;
  default: string | number | string[];
}

/** What every broker policy has. */
export interface BrokerPolicyBase {
  /** The policy's name: its key in a policy config file. */
  name: string;
  /** What it asks for. */
  description: string;
  /** Its level when the policy config file sets none. */
  enforcementLevel: "advisory" | "mandatory";
  /** The JSON schema of its settings, with their defaults. */
  configSchema?: { properties: Record<string, BrokerPolicySettingSchema> };
}

/** A broker policy that reads one resource at a time. */
export interface BrokerResourcePolicy extends BrokerPolicyBase {
  validateResource: (args: BrokerResourceArgs, reportViolation: BrokerReportViolation) => void;
}

/** A broker policy that reads the whole stack. */
export interface BrokerStackPolicy extends BrokerPolicyBase {
  validateStack: (args: BrokerStackArgs, reportViolation: BrokerReportViolation) => void;
}

/** The name of the shipped policy pack (what `pulumi preview` prints in its Policies section). */
export const BROKER_POLICY_PACK_NAME = "pulumi-broker-config";

/** The names of the pack's policies: the keys of its sections in a policy config file. */
export const BROKER_POLICY_NAMES = {
  allEventPaths: "broker-no-all-event-paths",
  topLevelWildcards: "broker-no-top-level-wildcards",
  accountKeys: "broker-no-account-keys",
  sendAndReceiveWildcard: "broker-no-send-and-receive-wildcard",
  namePatterns: "broker-names-match-pattern",
  keysPerWorkspace: "broker-max-keys-per-workspace",
} as const;

/** The most access keys per workspace when the policy config sets no `maxKeys`. */
export const DEFAULT_MAX_KEYS_PER_WORKSPACE = 20;

/** The view of a resource the rules read, or `undefined` when it is not a broker resource. */
function viewOf(args: {
  type: string;
  name: string;
  urn: string;
  props: Record<string, unknown>;
}): BrokerResourceView | undefined {
  const type = brokerResourceType(args.type);
  if (type === undefined) return undefined;
  const component = documentComponentOf(args.urn);
  return {
    kind: type.kind,
    resourceName: args.name,
    props: args.props,
    ...(component === undefined ? {} : { component }),
  };
}

/** A resource policy that reports every message `rule` returns for a broker resource. */
function resourcePolicy(
  name: string,
  description: string,
  enforcementLevel: BrokerPolicyBase["enforcementLevel"],
  rule: (resource: BrokerResourceView, config: Record<string, unknown>) => string[],
  configSchema?: BrokerPolicyBase["configSchema"],
): BrokerResourcePolicy {
  return {
    name,
    description,
    enforcementLevel,
    ...(configSchema === undefined ? {} : { configSchema }),
    validateResource: (args, reportViolation) => {
      const resource = viewOf(args);
      if (resource === undefined) return;
      for (const message of rule(resource, args.getConfig() as Record<string, unknown>))
        reportViolation(message, args.urn);
    },
  };
}

/** `value` when it is a list of strings, else `fallback` (the engine validated the config already). */
function stringList(value: unknown, fallback: readonly string[]): readonly string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string") ? value : fallback;
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === "string" ? value : fallback;
}

/** Every resource of the stack counts for the parent chains, broker's or not. */
function stackView(resource: BrokerStackArgs["resources"][number]): StackResourceView {
  const parentUrn = resource.parent?.urn;
  return {
    kind: brokerResourceType(resource.type)?.kind,
    resourceName: resource.name,
    urn: resource.urn,
    ...(parentUrn === undefined ? {} : { parentUrn }),
  };
}

/**
 * The broker policies, ready for a `PolicyPack`:
 *
 * | policy | default | what it reports | config |
 * |---|---|---|---|
 * | `broker-no-all-event-paths` | mandatory | a key that may `send` or `receive` `*` | — |
 * | `broker-no-top-level-wildcards` | advisory | a wildcard directly under the root (`orders/*`) | `allowedPaths` |
 * | `broker-no-account-keys` | advisory | an ACCOUNT key the stack creates, or any declared through a document | — |
 * | `broker-no-send-and-receive-wildcard` | advisory | a key that may both send and receive one wildcard | — |
 * | `broker-names-match-pattern` | advisory | workspace or key names not matching a pattern | `workspaceNamePattern`, `keyNamePattern` |
 * | `broker-max-keys-per-workspace` | advisory | more than `maxKeys` keys in one workspace | `maxKeys` |
 *
 * Every policy's enforcement level is set in Pulumi's policy config file
 * (`pulumi preview --policy-pack <dir> --policy-pack-config <file>`), e.g.
 * `{ "broker-no-account-keys": "mandatory", "broker-no-top-level-wildcards": { "allowedPaths": ["audit/*"] } }`.
 *
 * @example A team's own pack with the broker policies and its own:
 * ```ts
 * import { PolicyPack } from "@pulumi/policy";
 * import { brokerPolicies } from "pulumi-broker-config/policy";
 *
 * new PolicyPack("platform", { policies: [...brokerPolicies(), ...ourPolicies] });
 * ```
 */
export function brokerPolicies(): (BrokerResourcePolicy | BrokerStackPolicy)[] {
  const names = BROKER_POLICY_NAMES;
  const keysPerWorkspace: BrokerStackPolicy = {
    name: names.keysPerWorkspace,
    description:
      "A workspace holds at most maxKeys access keys (a key belongs to the nearest Workspace among its Pulumi parents; keys with none count as the stack's).",
    enforcementLevel: "advisory",
    configSchema: {
      properties: {
        maxKeys: {
          type: "integer",
          description: "The most access keys one workspace may hold.",
          minimum: 1,
          default: DEFAULT_MAX_KEYS_PER_WORKSPACE,
        },
      },
    },
    validateStack: (args, reportViolation) => {
      const views = args.resources.map(stackView);
      const config = args.getConfig() as Record<string, unknown>;
      const maxKeys =
        typeof config["maxKeys"] === "number" ? config["maxKeys"] : DEFAULT_MAX_KEYS_PER_WORKSPACE;
      for (const message of keysPerWorkspaceViolations(views, { maxKeys })) reportViolation(message);
    },
  };
  return [
    resourcePolicy(
      names.allEventPaths,
      "An access key may not send or receive `*`, every event path of the broker.",
      "mandatory",
      (resource) => allEventPathsViolations(resource),
    ),
    resourcePolicy(
      names.topLevelWildcards,
      "An access key's wildcards sit below a top-level path (orders/eu/*, not orders/*), unless listed in allowedPaths.",
      "advisory",
      (resource, config) =>
        topLevelWildcardViolations(resource, { allowedPaths: stringList(config["allowedPaths"], []) }),
      {
        properties: {
          allowedPaths: {
            type: "array",
            description: "Top-level wildcards that are allowed, such as audit/*.",
            items: { type: "string", pattern: "^[^/*]+/\\*$" },
            default: [],
          },
        },
      },
    ),
    resourcePolicy(
      names.accountKeys,
      "A stack creates no ACCOUNT keys (they may change the whole broker configuration).",
      "advisory",
      (resource) => accountKeyViolations(resource),
    ),
    resourcePolicy(
      names.sendAndReceiveWildcard,
      "An access key does not both send and receive the same wildcard.",
      "advisory",
      (resource) => sendAndReceiveWildcardViolations(resource),
    ),
    resourcePolicy(
      names.namePatterns,
      "Workspace and access key names match the team's patterns (regular expressions).",
      "advisory",
      (resource, config) =>
        namePatternViolations(resource, {
          workspaceNamePattern: stringOr(config["workspaceNamePattern"], DEFAULT_NAME_PATTERN),
          keyNamePattern: stringOr(config["keyNamePattern"], DEFAULT_NAME_PATTERN),
        }),
      {
        properties: {
          workspaceNamePattern: {
            type: "string",
            description: "The regular expression (ECMAScript) every Workspace name must match.",
            default: DEFAULT_NAME_PATTERN,
          },
          keyNamePattern: {
            type: "string",
            description: "The regular expression (ECMAScript) every AccessKey name must match.",
            default: DEFAULT_NAME_PATTERN,
          },
        },
      },
    ),
    keysPerWorkspace,
  ];
}
