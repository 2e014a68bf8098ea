/**
 * The broker rules (`./rules.ts`) as `@pulumi/policy` policies: names, descriptions, default
 * enforcement levels and configuration schemas. The shipped pack (`policy-pack/` of the package)
 * serves them; a team's own pack can list them beside its other policies.
 *
 * Only types come from `@pulumi/policy` here: the package does not depend on it, and a program that
 * never loads this subpath never needs it.
 */
import type {
  EnforcementLevel,
  Policies,
  PolicyResource,
  ReportViolation,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationArgs,
  StackValidationPolicy,
} from "@pulumi/policy";
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
import { brokerResourceType } from "./resources";

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
  props: Record<string, unknown>;
}): BrokerResourceView | undefined {
  const type = brokerResourceType(args.type);
  return type === undefined ? undefined : { kind: type.kind, resourceName: args.name, props: args.props };
}

/** A resource policy that reports every message `rule` returns for a broker resource. */
function resourcePolicy(
  name: string,
  description: string,
  enforcementLevel: EnforcementLevel,
  rule: (resource: BrokerResourceView, config: Record<string, unknown>) => string[],
  configSchema?: ResourceValidationPolicy["configSchema"],
): ResourceValidationPolicy {
  return {
    name,
    description,
    enforcementLevel,
    ...(configSchema === undefined ? {} : { configSchema }),
    validateResource: (args: ResourceValidationArgs, reportViolation: ReportViolation) => {
      const resource = viewOf(args);
      if (resource === undefined) return;
      for (const message of rule(resource, args.getConfig<Record<string, unknown>>()))
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
function stackView(resource: PolicyResource): StackResourceView {
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
 * | `broker-no-account-keys` | advisory | an ACCOUNT key the stack creates | — |
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
export function brokerPolicies(): Policies {
  const names = BROKER_POLICY_NAMES;
  const keysPerWorkspace: StackValidationPolicy = {
    name: names.keysPerWorkspace,
    description:
      "A workspace holds at most maxKeys access keys (a key belongs to the nearest Workspace among its Pulumi parents; keys with none count as the stack's).",
    enforcementLevel: "advisory",
    configSchema: {
      properties: {
        maxKeys: { type: "integer", minimum: 1, default: DEFAULT_MAX_KEYS_PER_WORKSPACE },
      },
    },
    validateStack: (args: StackValidationArgs, reportViolation: ReportViolation) => {
      const views = args.resources.map(stackView);
      const config = args.getConfig<Record<string, unknown>>();
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
          workspaceNamePattern: { type: "string", default: DEFAULT_NAME_PATTERN },
          keyNamePattern: { type: "string", default: DEFAULT_NAME_PATTERN },
        },
      },
    ),
    keysPerWorkspace,
  ];
}
