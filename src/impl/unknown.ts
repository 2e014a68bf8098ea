// The preview sentinel lives in the core; re-exported here for the validation helpers beside this file.
export { UNKNOWN, containsUnknown, isUnknown } from "../core/unknown";
