/**
 * Reading a look-up function's arguments: both doors hand the core a plain object (the native door
 * after unwrapping secrets, the dynamic door as the program passed it), and every check happens
 * here, before any request, with messages that name the function and the argument.
 */
import { apiNameProblems, isAccessKeyType, type AccessKeyType, type NameKind } from "../../model";
import { LookupArgumentError } from "./errors";

/** Raw arguments as a door received them. */
export type RawArgs = Readonly<Record<string, unknown>>;

/** How a look-up of one object finds it: by `id`, or another way (exactly one of them). */
export interface ById {
  /** The object's numeric id. */
  readonly id?: number | undefined;
}

/** What every object a look-up returns has. */
export interface ObjectInfo {
  /** The numeric id. */
  readonly id: number;
  readonly name: string;
  /** When the broker created it (ISO 8601 UTC). */
  readonly createdAt: string;
}

/** `args[key]` with `null` read as absent (the engine sends absent optional inputs as null). */
function given(args: RawArgs, key: string): unknown {
  const value = args[key];
  return value === null ? undefined : value;
}

/** Fails on any argument `fn` does not take, so that a misspelt filter is not silently ignored. */
export function rejectUnknownArgs(fn: string, args: RawArgs, known: readonly string[]): void {
  const unknown = Object.keys(args).filter((key) => !known.includes(key) && given(args, key) !== undefined);
  if (unknown.length > 0)
    throw new LookupArgumentError(fn, `unknown argument ${unknown.join(", ")}; it takes ${known.join(", ")}`);
}

/** An optional positive integer id. */
export function optionalId(fn: string, args: RawArgs, key: string): number | undefined {
  const value = given(args, key);
  if (value === undefined) return undefined;
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return value;
  throw new LookupArgumentError(fn, `${key} must be a positive whole number, not ${JSON.stringify(value)}`);
}

/** An optional string, as given (no trimming: names are compared exactly). */
export function optionalString(fn: string, args: RawArgs, key: string): string | undefined {
  const value = given(args, key);
  if (value === undefined || typeof value === "string") return value;
  throw new LookupArgumentError(fn, `${key} must be a string, not ${JSON.stringify(value)}`);
}

/** An optional name of a workspace or key, checked with the model's rules of what the API accepts. */
export function optionalName(fn: string, args: RawArgs, key: string, kind: NameKind): string | undefined {
  const name = optionalString(fn, args, key);
  if (name === undefined) return undefined;
  const problems = apiNameProblems(name, kind);
  if (problems.length > 0) throw new LookupArgumentError(fn, `${key} ${problems.join(", ")}`);
  return name;
}

/** An optional access key type, `ACCOUNT` or `SERVICE`. */
export function optionalKeyType(fn: string, args: RawArgs, key: string): AccessKeyType | undefined {
  const value = given(args, key);
  if (value === undefined || isAccessKeyType(value)) return value;
  throw new LookupArgumentError(fn, `${key} must be "ACCOUNT" or "SERVICE", not ${JSON.stringify(value)}`);
}

/** Exactly one of two ways to look something up, such as `id` or `path`. */
export function oneOf(fn: string, args: RawArgs, first: string, second: string): void {
  const has = (key: string) => given(args, key) !== undefined;
  if (has(first) && has(second))
    throw new LookupArgumentError(fn, `give either ${first} or ${second}, not both`);
  if (!has(first) && !has(second)) throw new LookupArgumentError(fn, `give ${first} or ${second}`);
}
