/**
 * The domain model: the rules of the API's objects (names, event paths, permissions, access key
 * types, defaults), in one place. Pure functions and constants; it depends on nothing else in the
 * package, so the resources, the configuration documents, the export and the tests all ask it.
 */
export { DEFAULT_ADOPT } from "./adoption";
export {
  ACCESS_KEY_TYPES,
  accountKeyNotAllowedMessage,
  DEFAULT_ON_DELETE,
  DEFAULT_ON_DELETE_ADOPTED,
  effectiveOnDelete,
  isAccessKeyType,
  isOnDelete,
  ON_DELETE_VALUES,
  type AccessKeyType,
  type OnDelete,
} from "./access-keys";
export {
  EVENT_PATH_HINT,
  EVENT_PATH_PATTERN,
  eventPathMessage,
  eventPathProblem,
  eventPathCovers,
  eventPathScope,
  MAX_EVENT_PATH_LENGTH,
  sameEventPathCoverage,
  uncoveredEventPaths,
  type EventPathScope,
} from "./event-paths";
export {
  apiNameProblems,
  autoname,
  AUTONAME_RANDOM_LENGTH,
  MAX_NAME_LENGTH,
  nameProblems,
  WORKSPACE_SLASH_PROBLEM,
  type NameKind,
} from "./names";
export {
  describePermissionDifference,
  emptyPermissions,
  normalizePermissions,
  PERMISSION_FIELDS,
  samePermissions,
  type Permissions,
  type PermissionsInput,
} from "./permissions";
export {
  CLOCK_SKEW_MARGIN_MS,
  createdBefore,
  isCreatedBy,
  newestFirst,
  notBeforeOf,
  type CreatedByRule,
  type CreatedCandidate,
  type CreateRequested,
} from "./created-by";
export { codePointLength } from "./text";
export { describeValue, isPlainObject } from "./values";
export { isParentId, TOP_LEVEL_PARENT_ID, workspacePath } from "./workspaces";
export { WORKSPACE_PATH_HINT, workspacePathNames, workspacePathProblem } from "./workspace-paths";
export {
  ACCESS_DIRECTIONS,
  combineVerdicts,
  compareKeyGrants,
  type AccessDirection,
  type AccessVerdict,
  type KeyGrant,
  type KeyGrantComparison,
} from "./access";
