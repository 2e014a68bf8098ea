/**
 * `pulumi-broker-config/policy`: the broker policy pack's policies, for `pulumi preview --policy-pack`
 * in pull-request checks. The package ships a ready pack (`node_modules/pulumi-broker-config/policy-pack`);
 * this subpath gives the same policies to a team that builds its own pack (`brokerPolicies()` fits
 * `@pulumi/policy`'s `PolicyPack` as it is; this subpath needs no `@pulumi/policy`, not even its
 * types). See docs/policy-pack.md.
 * @packageDocumentation
 */
export {
  BROKER_POLICY_NAMES,
  BROKER_POLICY_PACK_NAME,
  brokerPolicies,
  DEFAULT_MAX_KEYS_PER_WORKSPACE,
  type BrokerPolicyBase,
  type BrokerPolicySettingSchema,
  type BrokerReportViolation,
  type BrokerResourceArgs,
  type BrokerResourcePolicy,
  type BrokerStackArgs,
  type BrokerStackPolicy,
} from "./pack";
export {
  brokerResourceType,
  documentComponentOf,
  type BrokerDoor,
  type BrokerResourceKind,
  type DocumentComponent,
} from "./resources";
// Every rule and its config type: a team may build a pack of its own from them.
export * from "./rules";
