/** Permission normalisation lives in the domain model; re-exported for the resource implementations. */
export {
  describePermissionDifference,
  emptyPermissions,
  normalizePermissions,
  samePermissions,
  type PermissionsInput,
} from "../model";
