/**
 * Decoding the engine's property bags (inputs and recorded state) into typed values.
 *
 * Every resource decodes its bags with one function written against a {@link PropertyReader}: with
 * {@link knownReader} for values that must be known (create, update, recorded state), with
 * {@link proposalReader} for inputs that may hold values not known yet (check and diff during a
 * preview). Absent properties take their defaults, so state written by earlier versions of the
 * package (which left out properties added since) still decodes.
 */
import type { Permissions } from "../client/types";
import { normalizePermissions } from "../model";
import { describe, isPlainObject } from "./validation";
import { NOT_KNOWN, containsUnknown, type NotKnown } from "./unknown";
import { BrokerError } from "../client/errors";

/** A property bag as the engine sends it: plain JSON values, possibly with the preview sentinel. */
export type PropertyBag = Record<string, unknown>;

/**
 * A recorded or given property does not have the shape this version of the package expects. It
 * names the resource and the property path.
 */
export class StateDecodeError extends BrokerError {
  /** The property path, such as `permissions.send[1]`. */
  readonly property: string;

  constructor(what: string, property: string, problem: string) {
    super(
      "BROKER_STATE_INVALID",
      `${what}: property \`${property}\` ${problem}. The stack's state or inputs for it are not what this version of pulumi-broker-config expects; check the resource's inputs, or run \`pulumi refresh\`.`,
    );
    this.name = "StateDecodeError";
    this.property = property;
  }
}

/**
 * Reads typed properties from one bag. `U` is what a value not known yet becomes: `never` when every
 * value must be known (the reader throws), {@link NotKnown} for inputs during a preview.
 */
export interface PropertyReader<U> {
  /** Whether the bag holds `key` (`null` counts as absent: JSON has no undefined). */
  present(key: string): boolean;
  /** A required string. */
  string(key: string): string | U;
  /** A string, or `undefined` when absent. */
  optionalString(key: string): string | U | undefined;
  /** A non-negative integer (a string of digits, as some older state holds ids, is accepted). */
  integer(key: string, fallback?: number): number | U;
  /** A boolean, `fallback` when absent. */
  boolean(key: string, fallback: boolean): boolean | U;
  /** One of `allowed`, `fallback` when absent (required when no fallback is given). */
  oneOf<T extends string>(key: string, allowed: readonly T[], fallback?: T): T | U;
  /** Permissions, normalised (lists sorted, without repeats); absent fields (or all of it) empty. */
  permissions(key: string): Permissions | U;
  /** A map of strings, `{}` when absent. */
  stringMap(key: string): Record<string, string> | U;
}

class BagReader<U> implements PropertyReader<U> {
  constructor(
    private readonly bag: PropertyBag,
    private readonly what: string,
    private readonly notKnown: (key: string) => U,
  ) {}

  private fail(property: string, problem: string): never {
    throw new StateDecodeError(this.what, property, problem);
  }

  /** The raw value, or `undefined` when absent; `null` counts as absent (JSON has no undefined). */
  private raw(key: string): unknown {
    const value = this.bag[key];
    return value === null ? undefined : value;
  }

  present(key: string): boolean {
    return this.raw(key) !== undefined;
  }

  private read<T>(key: string, decode: (value: unknown) => T): T | U {
    const value = this.raw(key);
    if (containsUnknown(value)) return this.notKnown(key);
    return decode(value);
  }

  string(key: string): string | U {
    return this.read(key, (value) => {
      if (typeof value !== "string") this.fail(key, `must be a string, got ${describe(value)}`);
      return value;
    });
  }

  optionalString(key: string): string | U | undefined {
    return this.raw(key) === undefined ? undefined : this.string(key);
  }

  integer(key: string, fallback?: number): number | U {
    return this.read(key, (value) => {
      if (value === undefined && fallback !== undefined) return fallback;
      const number = typeof value === "string" && /^\d+$/u.test(value) ? Number(value) : value;
      if (typeof number !== "number" || !Number.isSafeInteger(number) || number < 0)
        this.fail(key, `must be a non-negative integer, got ${describe(value)}`);
      return number;
    });
  }

  boolean(key: string, fallback: boolean): boolean | U {
    return this.read(key, (value) => {
      if (value === undefined) return fallback;
      if (typeof value !== "boolean") this.fail(key, `must be true or false, got ${describe(value)}`);
      return value;
    });
  }

  oneOf<T extends string>(key: string, allowed: readonly T[], fallback?: T): T | U {
    return this.read(key, (value) => {
      if (value === undefined && fallback !== undefined) return fallback;
      const match = allowed.find((candidate) => candidate === value);
      if (match === undefined)
        this.fail(key, `must be one of ${allowed.map((a) => `"${a}"`).join(", ")}, got ${describe(value)}`);
      return match;
    });
  }

  permissions(key: string): Permissions | U {
    return this.read(key, (value) =>
      decodePermissions(value, key, (path, problem) => this.fail(path, problem)),
    );
  }

  stringMap(key: string): Record<string, string> | U {
    return this.read(key, (value) => {
      if (value === undefined) return {};
      if (!isPlainObject(value)) this.fail(key, `must be a map of strings, got ${describe(value)}`);
      const map: Record<string, string> = {};
      for (const [name, entry] of Object.entries(value)) {
        if (typeof entry !== "string")
          this.fail(`${key}.${name}`, `must be a string, got ${describe(entry)}`);
        map[name] = entry;
      }
      return map;
    });
  }
}

function decodePermissions(
  value: unknown,
  key: string,
  fail: (property: string, problem: string) => never,
): Permissions {
  if (value === undefined) return normalizePermissions(undefined);
  if (!isPlainObject(value))
    fail(key, `must be an object with 'send', 'receive' and 'resources', got ${describe(value)}`);
  const list = (field: "send" | "receive"): string[] | undefined => {
    const paths = value[field];
    if (paths === undefined || paths === null) return undefined;
    if (!Array.isArray(paths))
      fail(`${key}.${field}`, `must be a list of event paths, got ${describe(paths)}`);
    return paths.map((path: unknown, index) => {
      if (typeof path !== "string")
        fail(`${key}.${field}[${index}]`, `must be an event path string, got ${describe(path)}`);
      return path;
    });
  };
  const resources = value["resources"];
  if (resources !== undefined && resources !== null && !isPlainObject(resources))
    fail(`${key}.resources`, `must be a plain object, got ${describe(resources)}`);
  return normalizePermissions({
    send: list("send"),
    receive: list("receive"),
    resources: resources ?? undefined,
  });
}

/** A reader for values that must all be known; a value not known yet fails, naming it. */
export function knownReader(bag: PropertyBag, what: string): PropertyReader<never> {
  return new BagReader<never>(bag, what, (key) => {
    throw new StateDecodeError(what, key, "is not known yet, but this operation needs its value");
  });
}

/** A reader for inputs during a preview: a value with anything not known yet decodes as {@link NOT_KNOWN}. */
export function proposalReader(bag: PropertyBag, what: string): PropertyReader<NotKnown> {
  return new BagReader<NotKnown>(bag, what, () => NOT_KNOWN);
}

/** True when the engine sent no recorded state at all (only, perhaps, the dynamic provider's `__provider`). */
export function isEmptyState(bag: PropertyBag | undefined): boolean {
  return bag === undefined || Object.keys(bag).every((key) => key === "__provider");
}

/**
 * A typed value (inputs or outputs) as a property bag for the engine. Properties not known yet are
 * left out: the caller keeps the engine's own representation of them.
 */
export function toPropertyBag(value: object): PropertyBag {
  const bag: PropertyBag = {};
  for (const [key, entry] of Object.entries(value))
    if (entry !== NOT_KNOWN && entry !== undefined) bag[key] = entry;
  return bag;
}

/** The two ways a resource's inputs are decoded, from its one decoder. */
export interface InputsDecoders<K, P> {
  /** Inputs that must be known (create, update, or the inputs part of recorded state). */
  readonly known: (bag: PropertyBag) => K;
  /** Inputs that may hold values not known yet (a preview's check or diff). */
  readonly proposed: (bag: PropertyBag) => P;
}

/**
 * Both decoders of a resource's inputs, from its one decoder written against a
 * {@link PropertyReader} (given twice, instantiated for known and for proposed values).
 * @param what names the resource in decode errors.
 */
export function inputsDecoders<K, P>(
  what: string,
  known: (r: PropertyReader<never>) => K,
  proposed: (r: PropertyReader<NotKnown>) => P,
): InputsDecoders<K, P> {
  return {
    known: (bag) => known(knownReader(bag, what)),
    proposed: (bag) => proposed(proposalReader(bag, what)),
  };
}
