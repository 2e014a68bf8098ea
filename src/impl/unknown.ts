/**
 * During `pulumi preview`, values that are not known yet (the outputs of resources still to be
 * created) reach `check` and `diff` as this sentinel string, even where an array or object is
 * expected.
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** True when `value` is the preview sentinel for a value not known yet. */
export function isUnknown(value: unknown): boolean {
  return value === UNKNOWN;
}

/** True when `value` or anything nested in it is not known yet. */
export function containsUnknown(value: unknown): boolean {
  if (isUnknown(value)) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value !== null && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}
