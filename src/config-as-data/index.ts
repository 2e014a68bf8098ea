/**
 * Configuration as data: a broker configuration document (YAML, JSON or an object), its published
 * JSON Schema, validation with located problems, and the plan of the resources that deploy it.
 */
export { BROKER_CONFIG_SCHEMA } from "./schema";
export { BrokerConfigDocumentError, formatProblem, isBrokerConfigDocumentError } from "./errors";
export { loadBrokerConfig } from "./load";
export { validateBrokerConfig } from "./validate";
export {
  accessKeyResourceName,
  planBrokerConfig,
  workspaceResourceName,
  type BrokerConfigPlan,
  type PlannedAccessKey,
  type PlannedWorkspace,
} from "./plan";
export {
  BROKER_CONFIG_VERSION,
  type AccessKeySpec,
  type BrokerConfigDocument,
  type BrokerConfigProblem,
  type BrokerConfigSource,
  type PermissionsSpec,
  type WorkspaceSpec,
} from "./types";
