/**
 * Plain-value helpers the rules' messages share: what kind of value was given, described briefly.
 */

/** True for `{...}` objects (not arrays, not null, not class instances). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** A short description of a value for error messages (`"a list"`, `"number 3"`); never prints long strings in full. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string")
    return value.length > 60 ? `a ${value.length}-character string` : JSON.stringify(value);
  if (typeof value === "object") return "an object";
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return `${typeof value} ${value.toString()}`;
  return `a ${typeof value}`;
}
