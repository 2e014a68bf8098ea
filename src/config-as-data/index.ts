/**
 * Configuration as data: a broker configuration document (YAML, JSON or an object), its published
 * JSON Schema, validation with located problems, and the plan of the resources that deploy it.
 */
export { BROKER_CONFIG_SCHEMA } from "./schema";
export { BrokerConfigDocumentError, formatProblem, isBrokerConfigDocumentError } from "./errors";
export { loadBrokerConfig, parseBrokerConfig } from "./load";
export { validateBrokerConfig } from "./validate";
export {
  accessKeyResourceName,
  declarePlan,
  planBrokerConfig,
  workspaceResourceName,
  type BrokerConfigPlan,
  type DeclaredPlan,
  type PlanDeclarations,
  type PlannedAccessKey,
  type PlannedAccessKeyInputs,
  type PlannedWorkspace,
  type PlannedWorkspaceInputs,
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
