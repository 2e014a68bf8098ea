/**
 * `pulumi-broker-config/policy`: the broker policy pack's policies, for `pulumi preview --policy-pack`
 * in pull-request checks. The package ships a ready pack (`node_modules/pulumi-broker-config/policy-pack`);
 * this subpath gives the same policies to a team that builds its own pack. Needs `@pulumi/policy`
 * (a devDependency of the project that runs the pack). See docs/policy-pack.md.
 * @packageDocumentation
 */
export {
  BROKER_POLICY_NAMES,
  BROKER_POLICY_PACK_NAME,
  brokerPolicies,
  DEFAULT_MAX_KEYS_PER_WORKSPACE,
} from "./pack";
export { brokerResourceType, type BrokerDoor, type BrokerResourceKind } from "./resources";
export {
  accountKeyViolations,
  allEventPathsViolations,
  DEFAULT_NAME_PATTERN,
  keysPerWorkspaceViolations,
  namePatternViolations,
  sendAndReceiveWildcardViolations,
  topLevelWildcardViolations,
  type BrokerResourceView,
  type KeysPerWorkspaceConfig,
  type NamePatternConfig,
  type StackResourceView,
  type TopLevelWildcardConfig,
} from "./rules";
