/**
 * Values not known yet.
 *
 * During `pulumi preview`, values that are not known yet (the outputs of resources still to be
 * created) reach `check` and `diff` as the string {@link UNKNOWN}, even where an array or object is
 * expected, in the dynamic provider host and in a native provider's property structs alike. The core
 * decodes such a value into {@link NOT_KNOWN}, a symbol no real value can be confused with.
 */

/** The engine's sentinel for a value not known yet. */
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

/** What a decoded property holds while its value (or part of it) is not known yet. */
export const NOT_KNOWN: unique symbol = Symbol("not known yet");

/** The type of {@link NOT_KNOWN}. */
export type NotKnown = typeof NOT_KNOWN;

/** True when a decoded property is known. */
export function isKnown<T>(value: T | NotKnown): value is T {
  return value !== NOT_KNOWN;
}
