/**
 * Pulumi resources for the configuration API of the message broker: workspaces, access keys with
 * their permissions, and the encryption key pairs of SERVICE keys.
 *
 * Configure the stack with `broker:baseUrl` and the secret `broker:apiKey` (an ACCOUNT key), or the
 * `BROKER_BASE_URL` / `BROKER_API_KEY` environment variables.
 * @packageDocumentation
 */
export {
  Workspace,
  type WorkspaceArgs,
  type WorkspaceInputs,
  type WorkspaceOutputs,
} from "./dynamic/resources/workspace";
export {
  AccessKey,
  ACCESS_KEY_SECRET_OUTPUTS,
  type AccessKeyArgs,
  type AccessKeyInputs,
  type AccessKeyOutputs,
  type OnDelete,
  type PermissionsArgs,
} from "./dynamic/resources/access-key";
export {
  ServiceKeyPair,
  SERVICE_KEY_PAIR_SECRET_OUTPUTS,
  type ServiceKeyPairArgs,
  type ServiceKeyPairInputs,
  type ServiceKeyPairOutputs,
} from "./dynamic/resources/service-key-pair";
export { resolveConnection, type ConnectionSettings, type ConfigSource } from "./settings/connection";
export {
  BrokerError,
  BrokerApiError,
  BrokerSettingsError,
  // Kept for programs written against the earlier name.
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  BrokerConfigError,
  isBrokerError,
  isBrokerApiError,
  isBrokerSettingsError,
} from "./client/errors";
export type { AccessKeyType, Permissions } from "./client/types";
export { eventPathProblem } from "./model";
export { BrokerConfig, type BrokerConfigArgs } from "./dynamic/resources/broker-config";
export {
  BROKER_CONFIG_SCHEMA,
  BROKER_CONFIG_VERSION,
  BrokerConfigDocumentError,
  accessKeyResourceName,
  formatProblem,
  isBrokerConfigDocumentError,
  loadBrokerConfig,
  parseBrokerConfig,
  planBrokerConfig,
  validateBrokerConfig,
  workspaceResourceName,
  type AccessKeySpec,
  type BrokerConfigDocument,
  type BrokerConfigPlan,
  type BrokerConfigProblem,
  type BrokerConfigSource,
  type PermissionsSpec,
  type PlannedAccessKey,
  type PlannedWorkspace,
  type WorkspaceSpec,
} from "./config-as-data";
export {
  EXPORT_PROGRESS_EVERY,
  exportBrokerConfig,
  formatBrokerConfig,
  type BrokerConfigExport,
  type BrokerConfigFormat,
  type ExportOptions,
  type ExportProgress,
  type ExportSource,
} from "./export";
// The look-up functions of the dynamic door, with their argument and result types.
export * from "./dynamic/functions";
export { BrokerLookupError, isBrokerLookupError, type LookupErrorCode } from "./core/lookups";
