/**
 * The wire format of the provider protocol, decoded once at the edge.
 *
 * The engine sends resource properties as a `google.protobuf.Struct` in which secrets, values not
 * known yet and other special values are ordinary JSON with magic markers. This module turns such a
 * Struct into a typed {@link PropertyValue} tree (so no code after it confuses a secret with an
 * object), gives the core plain values ({@link toCore}), and encodes the core's results back,
 * wrapping secrets again ({@link fromCore}).
 */
import { Struct, type JavaScriptValue } from "google-protobuf/google/protobuf/struct_pb";
import { BrokerError } from "../client/errors";

/** The key that marks a special value in the wire format. */
export const SIGNATURE_KEY = "4dabf18193072939515e22adb298388d";
/** The signature of a secret: `{[SIGNATURE_KEY]: SECRET_SIGNATURE, value}`. */
export const SECRET_SIGNATURE = "1b47061264138c4ac30d75fd1eb44270";
/** The signature of an output value: `{[SIGNATURE_KEY]: OUTPUT_SIGNATURE, value?, secret?, dependencies?}`. */
export const OUTPUT_SIGNATURE = "d0e6a833031e9bbcd3f4e8bde6ca49a4";
/**
 * The string the engine sends for a value that is not known yet (during preview). The core uses the
 * same string as its `UNKNOWN` sentinel, so {@link toCore} passes it through as it is.
 */
export const UNKNOWN_VALUE = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** The names of the other signatures, for a clear error when one arrives. */
const UNSUPPORTED_SIGNATURES: Readonly<Record<string, string>> = {
  "5cf8f73096256a8f31e491e813e4eb8e": "a resource reference",
  c44067f5952c0a294b673a41bacd8c17: "an asset",
  "0def7320c3a5731c473e5ecbe6d01bc7": "an archive",
};

/** A property value with its secrets and unknowns made explicit. */
export type PropertyValue =
  | { readonly kind: "null" }
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "number"; readonly value: number }
  | { readonly kind: "bool"; readonly value: boolean }
  | { readonly kind: "array"; readonly items: readonly PropertyValue[] }
  | { readonly kind: "object"; readonly fields: PropertyMap }
  | { readonly kind: "secret"; readonly value: PropertyValue }
  | { readonly kind: "computed" };

/** The properties of a resource or of a nested object, by name. */
export type PropertyMap = Readonly<Record<string, PropertyValue>>;

/** One step of a property path: an object key or an array index. */
export type PathSegment = string | number;

/** Thrown when the engine sends a value this provider cannot take, such as an asset. */
export class CodecError extends BrokerError {
  /** Where in the properties the value sits, such as `permissions.send[1]`. */
  readonly path: string;

  constructor(path: string, message: string) {
    super("BROKER_PROPERTY_INVALID", `Property ${path === "" ? "(top level)" : path}: ${message}`);
    this.name = "CodecError";
    this.path = path;
  }
}

/** Builders for {@link PropertyValue}s, so that tests and adapters read like the values they build. */
export const pv = {
  null: (): PropertyValue => ({ kind: "null" }),
  string: (value: string): PropertyValue => ({ kind: "string", value }),
  number: (value: number): PropertyValue => ({ kind: "number", value }),
  bool: (value: boolean): PropertyValue => ({ kind: "bool", value }),
  array: (items: readonly PropertyValue[]): PropertyValue => ({ kind: "array", items }),
  object: (fields: PropertyMap): PropertyValue => ({ kind: "object", fields }),
  /** A secret; a secret inside a secret is one secret. */
  secret: (value: PropertyValue): PropertyValue =>
    value.kind === "secret" ? value : { kind: "secret", value },
  computed: (): PropertyValue => ({ kind: "computed" }),
} as const;

/**
 * Formats a property path the way the engine does: `permissions.send[1]`; keys that are not plain
 * identifiers are quoted, as in `rotationTriggers["quarter.q4"]`.
 */
export function formatPath(path: readonly PathSegment[]): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(segment)) text += text === "" ? segment : `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Decodes one plain JSON value of the wire format. */
export function decodeValue(value: unknown, path: readonly PathSegment[] = []): PropertyValue {
  if (value === null || value === undefined) return pv.null();
  if (typeof value === "string") return value === UNKNOWN_VALUE ? pv.computed() : pv.string(value);
  if (typeof value === "number") return pv.number(value);
  if (typeof value === "boolean") return pv.bool(value);
  if (Array.isArray(value)) return pv.array(value.map((item, i) => decodeValue(item, [...path, i])));
  if (!isRecord(value)) throw new CodecError(formatPath(path), `unexpected value of type ${typeof value}`);
  const signature = value[SIGNATURE_KEY];
  if (signature === undefined) return pv.object(decodeFields(value, path));
  if (signature === SECRET_SIGNATURE) return pv.secret(decodeValue(value["value"], path));
  if (signature === OUTPUT_SIGNATURE) {
    // An output value: unknown when it carries no value; its dependencies are the engine's business.
    const inner = "value" in value ? decodeValue(value["value"], path) : pv.computed();
    return value["secret"] === true ? pv.secret(inner) : inner;
  }
  const what = typeof signature === "string" ? UNSUPPORTED_SIGNATURES[signature] : undefined;
  throw new CodecError(
    formatPath(path),
    `${what ?? "a special value"} is not supported by the broker provider; pass a plain value`,
  );
}

function decodeFields(value: Record<string, unknown>, path: readonly PathSegment[]): PropertyMap {
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, decodeValue(v, [...path, key])]));
}

/** Decodes a Struct of the wire format (absent: no properties) into a {@link PropertyMap}. */
export function decodeStruct(struct: Struct | undefined): PropertyMap {
  if (struct === undefined) return {};
  return decodeFields(struct.toJavaScript(), []);
}

/**
 * What a secret at `path` becomes in plain JSON; `content` converts what it holds (called at most
 * once, after whatever the caller does first, so that secrets are met outermost first).
 */
type SecretConversion = (path: readonly PathSegment[], content: () => JavaScriptValue) => JavaScriptValue;

/** `value` as plain JSON: secrets as `onSecret` says, values not known yet as {@link UNKNOWN_VALUE}. */
function toJson(
  value: PropertyValue,
  path: readonly PathSegment[],
  onSecret: SecretConversion,
): JavaScriptValue {
  switch (value.kind) {
    case "null":
      return null;
    case "string":
    case "number":
    case "bool":
      return value.value;
    case "array":
      return value.items.map((item, i) => toJson(item, [...path, i], onSecret));
    case "object":
      return fieldsToJson(value.fields, path, onSecret);
    case "secret":
      return onSecret(path, () => toJson(value.value, path, onSecret));
    case "computed":
      return UNKNOWN_VALUE;
  }
}

function fieldsToJson(
  fields: PropertyMap,
  path: readonly PathSegment[],
  onSecret: SecretConversion,
): Record<string, JavaScriptValue> {
  return Object.fromEntries(
    Object.entries(fields).map(([key, v]) => [key, toJson(v, [...path, key], onSecret)]),
  );
}

/** The wire format keeps a secret as a signed object around its value. */
const wireSecret: SecretConversion = (_path, content) => ({
  [SIGNATURE_KEY]: SECRET_SIGNATURE,
  value: content(),
});

/** Encodes one value into the plain JSON of the wire format. */
export function encodeValue(value: PropertyValue): JavaScriptValue {
  return toJson(value, [], wireSecret);
}

function encodeFields(fields: PropertyMap): Record<string, JavaScriptValue> {
  return fieldsToJson(fields, [], wireSecret);
}

/** Encodes a {@link PropertyMap} into a Struct of the wire format. */
export function encodeStruct(map: PropertyMap): Struct {
  return Struct.fromJavaScript(encodeFields(map));
}

/** A secret that {@link toCore} unwrapped: where it was. */
export interface SecretAt {
  /** The path of the secret, such as `["permissions", "send", 1]`. */
  readonly path: readonly PathSegment[];
}

/** What the core receives: plain values, plus where the secrets were. */
export interface CoreValues {
  /** The properties with secrets unwrapped and unknown values as the core's `UNKNOWN` string. */
  readonly values: Record<string, unknown>;
  /** Every secret that was unwrapped, outermost first. */
  readonly secrets: readonly SecretAt[];
}

/**
 * The plain values the core works with: secrets unwrapped (their paths recorded, so that
 * {@link fromCore} can wrap them again) and values not known yet as the core's `UNKNOWN` string.
 * Top-level keys starting with `__` are the engine's (such as `__provider` in state written by the
 * dynamic provider) and are left out.
 */
export function toCore(map: PropertyMap): CoreValues {
  const secrets: SecretAt[] = [];
  const kept = Object.fromEntries(Object.entries(map).filter(([key]) => !key.startsWith("__")));
  const unwrap: SecretConversion = (path, content) => {
    secrets.push({ path });
    return content();
  };
  return { values: fieldsToJson(kept, [], unwrap), secrets };
}

/** How {@link fromCore} encodes the core's values. */
export interface EncodeOptions {
  /**
   * Secrets of the inputs the values came from (from {@link toCore}). Each stays a secret in the
   * result: at its own path when the core returned that top-level property unchanged, else the
   * whole top-level property becomes secret (the core may have reordered or rebuilt it, and a
   * secret must never come out in plain text at a neighbouring position).
   */
  readonly secrets?: readonly SecretAt[];
  /** The plain inputs {@link EncodeOptions.secrets} refer to, to tell whether a property is unchanged. */
  readonly inputs?: Record<string, unknown>;
  /** Top-level properties that are always secret, such as the schema's `secret: true` outputs. */
  readonly alwaysSecret?: Iterable<string>;
  /**
   * Whether the core's `UNKNOWN` string may stand for a value not known yet (a preview). When false,
   * an unknown value is a defect of the provider and fails with a clear error.
   * @default false
   */
  readonly allowUnknowns?: boolean;
}

function fromPlain(value: unknown, path: readonly PathSegment[], allowUnknowns: boolean): PropertyValue {
  if (value === null) return pv.null();
  if (typeof value === "string") {
    if (value !== UNKNOWN_VALUE) return pv.string(value);
    if (allowUnknowns) return pv.computed();
    throw new CodecError(
      formatPath(path),
      "the provider returned a value that is not known yet outside a preview; please report this to the provider's authors",
    );
  }
  if (typeof value === "number") {
    if (Number.isFinite(value)) return pv.number(value);
    throw new CodecError(formatPath(path), `${value} is not a number the engine can store`);
  }
  if (typeof value === "boolean") return pv.bool(value);
  if (Array.isArray(value))
    return pv.array(value.map((item, i) => fromPlain(item, [...path, i], allowUnknowns)));
  if (isRecord(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return pv.object(
      Object.fromEntries(entries.map(([k, v]) => [k, fromPlain(v, [...path, k], allowUnknowns)])),
    );
  }
  throw new CodecError(formatPath(path), `a value of type ${typeof value} cannot be stored`);
}

/** Wraps the value at `path` (below the top level) in a secret; a path that no longer exists is skipped. */
function wrapAt(value: PropertyValue, path: readonly PathSegment[]): PropertyValue {
  if (path.length === 0) return pv.secret(value);
  if (value.kind === "secret") return pv.secret(wrapAt(value.value, path));
  const [head, ...rest] = path;
  if (value.kind === "array" && typeof head === "number") {
    const item = value.items[head];
    if (item === undefined) return value;
    return pv.array(value.items.map((v, i) => (i === head ? wrapAt(item, rest) : v)));
  }
  if (value.kind === "object" && typeof head === "string") {
    const field = value.fields[head];
    if (field === undefined) return value;
    return pv.object({ ...value.fields, [head]: wrapAt(field, rest) });
  }
  return value;
}

/** Structural equality of plain JSON-like values (key order does not matter). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, i) => sameValue(item, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a).filter((k) => a[k] !== undefined);
    const otherKeys = Object.keys(b).filter((k) => b[k] !== undefined);
    return keys.length === otherKeys.length && keys.every((k) => sameValue(a[k], b[k]));
  }
  return false;
}

/**
 * Encodes the core's plain values into a {@link PropertyMap}: `undefined` values are left out, the
 * `UNKNOWN` string becomes a value not known yet (when allowed), and secrets are wrapped again (see
 * {@link EncodeOptions}).
 */
export function fromCore(values: Record<string, unknown>, options: EncodeOptions = {}): PropertyMap {
  const allowUnknowns = options.allowUnknowns ?? false;
  // A Map, not an object: a key such as `__proto__` must stay an ordinary property.
  const result = new Map<string, PropertyValue>();
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined) result.set(key, fromPlain(value, [key], allowUnknowns));
  }
  for (const { path } of options.secrets ?? []) {
    const [top, ...rest] = path;
    if (typeof top !== "string") continue;
    const current = result.get(top);
    if (current === undefined) continue;
    const unchanged = options.inputs !== undefined && sameValue(options.inputs[top], values[top]);
    result.set(top, unchanged ? wrapAt(current, rest) : pv.secret(current));
  }
  for (const key of options.alwaysSecret ?? []) {
    const current = result.get(key);
    if (current !== undefined) result.set(key, pv.secret(current));
  }
  return Object.fromEntries(result);
}

/** True when `value` or anything in it is not known yet. */
export function containsComputed(value: PropertyValue): boolean {
  switch (value.kind) {
    case "computed":
      return true;
    case "secret":
      return containsComputed(value.value);
    case "array":
      return value.items.some(containsComputed);
    case "object":
      return Object.values(value.fields).some(containsComputed);
    default:
      return false;
  }
}
