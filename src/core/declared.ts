/**
 * A resource's plain fields, handled once from its declaration (`./declarations`): the TypeScript
 * types of its inputs, outputs and facts (mapped from the declaration's literal type), and the
 * decoding, defaults, type checks, diff and output building that follow from a field's type alone.
 *
 * A resource module keeps only what is a real rule: names and the permission grammar (as check
 * rules), a diff that is more than "the value changed", what the API returns, partial failures.
 * The endpoint fields (`allowEndpointChange`, `baseUrl`) are `./endpoint.ts`'s, for every resource.
 */
import { ACCESS_KEY_TYPES, ON_DELETE_VALUES } from "../model";
import {
  ACCESS_KEY_TYPE,
  ON_DELETE,
  PERMISSIONS,
  type FieldDeclaration,
  type PropertyType,
  type ResourceDeclaration,
  type SharedTypeValues,
} from "./declarations";
import { DiffBuilder, changeKind, mapChanges, valueChanged } from "./diff";
import type { CheckResult, DiffResult, PropertyChange } from "./results";
import { inputsDecoders, knownReader, type PropertyBag, type PropertyReader } from "./state";
import { NOT_KNOWN, isUnknown, type NotKnown } from "./unknown";
import { CheckFailures, checkPermissions, describe, isPlainObject } from "./validation";

/** The fields `./endpoint.ts` adds to every resource; the rest are the resource's own. */
type EndpointField = "allowEndpointChange" | "baseUrl";
const ENDPOINT_FIELDS: readonly string[] = ["allowEndpointChange", "baseUrl"] satisfies EndpointField[];

type Fields<D extends ResourceDeclaration> = D["fields"];
type OwnKey<D extends ResourceDeclaration> = Exclude<keyof Fields<D>, EndpointField> & string;
type KeyOfKind<D extends ResourceDeclaration, Kind> = {
  [K in OwnKey<D>]: Fields<D>[K] extends { readonly kind: Kind } ? K : never;
}[OwnKey<D>];
type InputKey<D extends ResourceDeclaration> = KeyOfKind<D, "input">;
type FromRecordKey<D extends ResourceDeclaration> = {
  [K in OwnKey<D>]: Fields<D>[K] extends { readonly fromRecord: true } ? K : never;
}[OwnKey<D>];
type StackOnlyKey<D extends ResourceDeclaration> = {
  [K in InputKey<D>]: Fields<D>[K] extends { readonly stackOnly: true } ? K : never;
}[InputKey<D>];

/** The TypeScript type of a value of the declared property type `T`. */
export type ValueOf<T> = T extends { readonly type: "string" }
  ? string
  : T extends { readonly type: "integer" | "number" }
    ? number
    : T extends { readonly type: "boolean" }
      ? boolean
      : T extends { readonly type: "array"; readonly items: infer I }
        ? ValueOf<I>[]
        : T extends { readonly type: "object"; readonly additionalProperties: infer V }
          ? Record<string, ValueOf<V>>
          : T extends { readonly $ref: `#/types/${infer K extends keyof SharedTypeValues}` }
            ? SharedTypeValues[K]
            : unknown;

type PermissionsRef = `#/types/${typeof PERMISSIONS.token}`;

/** Whether an absent input of type `T` decodes as an empty value (a map, a list, permissions). */
type HasEmpty<T> = T extends { readonly type: "object" | "array" }
  ? true
  : T extends { readonly $ref: PermissionsRef }
    ? true
    : false;

/** Whether decoded inputs always hold the field: it is required, has a default or an empty value. */
type Filled<F> = F extends { readonly required: true }
  ? true
  : F extends { readonly autonamed: true }
    ? true
    : F extends { readonly default: string | number | boolean }
      ? true
      : F extends { readonly type: infer T }
        ? HasEmpty<T>
        : false;

/** Whether every recorded state holds the field. */
type Recorded<F> = F extends { readonly kind: "input" }
  ? F extends { readonly outputOptional: true }
    ? false
    : Filled<F>
  : F extends { readonly optional: true }
    ? false
    : true;

type Flatten<T> = { -readonly [K in keyof T]: T[K] } & {};
type TypeOf<F> = F extends { readonly type: infer T } ? ValueOf<T> : never;

/** Whether field `F` is always there: in decoded `"inputs"`, or in recorded `"outputs"`. */
type Always<F, In> = In extends "inputs" ? Filled<F> : Recorded<F>;

/** `K` when field `K` of `D` is always there in `In` exactly when `Want` says so. */
type When<D extends ResourceDeclaration, K extends keyof Fields<D>, In, Want> =
  Always<Fields<D>[K], In> extends Want ? K : never;

/** Properties `Keys` of `D` as they stand in `In`: always there, or optional; `U` joins each value. */
type PropertiesOf<D extends ResourceDeclaration, Keys extends OwnKey<D>, In, U> = Flatten<
  { [K in Keys as When<D, K, In, true>]: TypeOf<Fields<D>[K]> | U } & {
    [K in Keys as When<D, K, In, false>]?: TypeOf<Fields<D>[K]> | U;
  }
>;

/** A resource's own inputs once decoded (defaults filled in); `U` is what a value not known yet becomes. */
export type InputsOf<D extends ResourceDeclaration, U = never> = PropertiesOf<D, InputKey<D>, "inputs", U>;

/** A resource's own recorded outputs: its inputs' recorded values and its computed outputs. */
export type OutputsOf<D extends ResourceDeclaration> = PropertiesOf<D, OwnKey<D>, "outputs", never>;

/** The inputs only the stack holds (`stackOnly`): the API knows nothing of them. */
export type SettingsOf<D extends ResourceDeclaration> = PropertiesOf<D, StackOnlyKey<D>, "inputs", never>;

/** What the server says about an object, or what we know of it: its outputs without the stack's settings. */
export type FactsOf<D extends ResourceDeclaration> = Omit<OutputsOf<D>, StackOnlyKey<D>>;

/** The outputs the broker returns in an object's record (`fromRecord`), as the record holds them. */
export type RecordFactsOf<D extends ResourceDeclaration> = {
  [K in FromRecordKey<D>]?: TypeOf<Fields<D>[K]>;
};

/** A hand-written check of one input, in place of the check of its type. */
export type CheckRule = (failures: CheckFailures, property: string, value: unknown) => void;

/** A hand-written diff of one input, in place of "the value changed". */
export type DiffRule<T> = (
  old: T,
  now: T | NotKnown,
) => { changed: boolean; replace: boolean; details?: readonly PropertyChange[] };

/** The plain-field operations of one resource, derived from its declaration. */
export interface Declared<D extends ResourceDeclaration> {
  /** How decode errors name the resource, such as `Access key`. */
  readonly what: string;
  /** Decodes inputs that must be known, filling defaults. */
  readonly decodeInputs: (bag: PropertyBag) => InputsOf<D>;
  /** Decodes inputs that may hold values not known yet (a preview). */
  readonly decodeProposedInputs: (bag: PropertyBag) => InputsOf<D, NotKnown>;
  /**
   * Decodes recorded outputs, as this or any earlier version of the package wrote them.
   * @param fallbacks stand in for outputs an older state lacks.
   */
  decodeOutputs(
    bag: PropertyBag,
    fallbacks?: { [K in keyof OutputsOf<D>]?: OutputsOf<D>[K] | undefined },
  ): OutputsOf<D>;
  /**
   * Checks every own input against its declared type, or against `rules` for the inputs they name,
   * in declaration order; then decodes the inputs as proposed. Makes no request.
   */
  check(
    news: PropertyBag,
    rules?: Partial<Record<InputKey<D>, CheckRule>>,
  ): CheckResult<InputsOf<D, NotKnown>>;
  /**
   * Compares every own input in declaration order: a change replaces the resource when the field is
   * `replaceOnChange`; a string map changes key by key; `rules` decide for the inputs they name.
   */
  diff(
    old: InputsOf<D>,
    news: InputsOf<D, NotKnown>,
    rules?: { [K in InputKey<D>]?: DiffRule<TypeOf<Fields<D>[K]>> },
  ): DiffResult;
  /** The `fromRecord` outputs that `record` (an object as the client decoded it) holds. */
  fromRecord(record: object): RecordFactsOf<D>;
  /** The outputs in declaration order, from `values` (other properties and `undefined` left out). */
  outputs(values: OutputsOf<D>): OutputsOf<D>;
  /** The inputs that would produce `outputs`. */
  inputsOf(outputs: OutputsOf<D>): InputsOf<D>;
  /**
   * The stack-only settings held by `values` (inputs or recorded outputs), or their defaults where
   * it holds none (an import passes `undefined`).
   */
  settingsOf(values: object | undefined): SettingsOf<D>;
}

const ENUM_VALUES: Readonly<Record<string, readonly string[]>> = {
  [ACCESS_KEY_TYPE.token]: ACCESS_KEY_TYPES,
  [ON_DELETE.token]: ON_DELETE_VALUES,
};

/** What a declared property type is, for decoding and checking. */
type Shape =
  | { kind: "string" | "integer" | "boolean" | "permissions" | "stringMap" }
  | { kind: "enum"; values: readonly string[] };

function shapeOf(type: PropertyType): Shape {
  if ("$ref" in type) {
    const token = type.$ref.replace(/^#\/types\//u, "");
    if (token === PERMISSIONS.token) return { kind: "permissions" };
    const values = ENUM_VALUES[token];
    if (values !== undefined) return { kind: "enum", values };
  } else if (type.type === "string" || type.type === "integer" || type.type === "boolean") {
    return { kind: type.type };
  } else if ("additionalProperties" in type && "type" in type.additionalProperties) {
    if (type.additionalProperties.type === "string") return { kind: "stringMap" };
  }
  throw new Error(
    `The core cannot decode a field of type ${JSON.stringify(type)}; teach src/core/declared.ts.`,
  );
}

/** Whether an absent input of this shape decodes as an empty value. */
function hasEmpty(shape: Shape): boolean {
  return shape.kind === "permissions" || shape.kind === "stringMap";
}

interface OwnField {
  readonly name: string;
  readonly field: FieldDeclaration;
  readonly shape: Shape;
}

function decodeValue<U>(r: PropertyReader<U>, { name, field, shape }: OwnField): unknown {
  const fallback = field.kind === "input" ? field.default : undefined;
  switch (shape.kind) {
    case "string":
      return fallback !== undefined && !r.present(name) ? fallback : r.string(name);
    case "integer":
      return r.integer(name, typeof fallback === "number" ? fallback : undefined);
    case "boolean":
      // An output older states lack (say `adopted`) is false.
      return r.boolean(name, typeof fallback === "boolean" ? fallback : false);
    case "enum":
      return r.oneOf(name, shape.values, typeof fallback === "string" ? fallback : undefined);
    case "permissions":
      return r.permissions(name);
    case "stringMap":
      return r.stringMap(name);
  }
}

/** Whether a value (known or not) of this shape is of the type; `undefined` when it is, else the problem. */
function typeProblem(shape: Shape, value: unknown): string | undefined {
  switch (shape.kind) {
    case "string":
      return typeof value === "string" ? undefined : `must be a string, got ${describe(value)}`;
    case "integer":
      return typeof value === "number" && Number.isSafeInteger(value) && value >= 0
        ? undefined
        : `must be a non-negative integer, got ${describe(value)}`;
    case "boolean":
      return typeof value === "boolean" ? undefined : `must be true or false, got ${describe(value)}`;
    case "enum":
      return typeof value === "string" && shape.values.includes(value)
        ? undefined
        : `must be one of ${shape.values.map((a) => `"${a}"`).join(", ")}, got ${describe(value)}`;
    case "permissions":
    case "stringMap":
      return undefined; // checked member by member, see checkField
  }
}

function checkField(failures: CheckFailures, { name, shape }: OwnField, value: unknown): void {
  if (shape.kind === "permissions") {
    checkPermissions(failures, name, value);
    return;
  }
  if (shape.kind === "stringMap") {
    if (!isPlainObject(value)) {
      failures.add(name, `must be a map of strings, got ${describe(value)}`);
      return;
    }
    for (const [key, entry] of Object.entries(value))
      if (!isUnknown(entry) && typeof entry !== "string")
        failures.add(`${name}.${key}`, `must be a string, got ${describe(entry)}`);
    return;
  }
  const problem = typeProblem(shape, value);
  if (problem !== undefined) failures.add(name, problem);
}

/**
 * The plain-field operations of `declaration`'s resource.
 * @param what names the resource in decode errors, such as `Access key`.
 */
export function declared<D extends ResourceDeclaration>(declaration: D, what: string): Declared<D> {
  const own: OwnField[] = Object.entries(declaration.fields)
    .filter(([name]) => !ENDPOINT_FIELDS.includes(name))
    .map(([name, field]) => ({ name, field, shape: shapeOf(field.type) }));
  const inputs = own.filter(({ field }) => field.kind === "input");
  const recordFields = own.filter(({ field }) => field.kind === "output" && field.fromRecord === true);
  // Checked inputs always hold it: the user gives it, or (autonamed) `check` chooses it.
  const alwaysHeld = (field: FieldDeclaration): boolean =>
    field.kind === "input" && (field.required === true || field.autonamed === true);
  const filled = ({ field, shape }: OwnField): boolean =>
    alwaysHeld(field) || (field.kind === "input" && (field.default !== undefined || hasEmpty(shape)));
  const recorded = (entry: OwnField): boolean =>
    entry.field.kind === "input"
      ? entry.field.outputOptional !== true && filled(entry)
      : entry.field.optional !== true;

  function decodeFields<U>(
    r: PropertyReader<U>,
    fields: readonly OwnField[],
    present: (f: OwnField) => boolean,
  ) {
    const values: Record<string, unknown> = {};
    for (const entry of fields)
      if (present(entry) || r.present(entry.name)) values[entry.name] = decodeValue(r, entry);
    return values;
  }
  const decodeInputs = <U>(r: PropertyReader<U>): InputsOf<D, U> =>
    decodeFields(r, inputs, filled) as InputsOf<D, U>;
  const decoders = inputsDecoders(what, decodeInputs<never>, decodeInputs<NotKnown>);

  const outputs = (values: OutputsOf<D>): OutputsOf<D> => {
    const source = values as Record<string, unknown>;
    const result: Record<string, unknown> = {};
    for (const { name } of own) if (source[name] !== undefined) result[name] = source[name];
    return result as OutputsOf<D>;
  };

  return {
    what,
    decodeInputs: decoders.known,
    decodeProposedInputs: decoders.proposed,
    decodeOutputs(bag, fallbacks = {}) {
      const withFallbacks = { ...bag };
      for (const [name, value] of Object.entries(fallbacks))
        if (value !== undefined && (bag[name] === undefined || bag[name] === null))
          withFallbacks[name] = value;
      return decodeFields(knownReader(withFallbacks, what), own, recorded) as OutputsOf<D>;
    },
    check(news, rules = {}) {
      const failures = new CheckFailures();
      const ruleOf = rules as Partial<Record<string, CheckRule>>;
      for (const entry of inputs) {
        const rule = ruleOf[entry.name];
        const value = news[entry.name];
        if (rule !== undefined) rule(failures, entry.name, value);
        else if (isUnknown(value)) continue;
        // Absent: fine unless required. A map given as `null` is an empty one; any other `null` is
        // checked (and refused) like a value.
        else if (value === undefined || (value === null && entry.shape.kind === "stringMap")) {
          if (alwaysHeld(entry.field)) checkField(failures, entry, undefined);
        } else checkField(failures, entry, value);
      }
      if (failures.list.length > 0) return { inputs: undefined, failures: failures.list };
      return { inputs: decoders.proposed(news), failures: [] };
    },
    diff(old, news, rules = {}) {
      const before = old as Record<string, unknown>;
      const after = news as Record<string, unknown>;
      const ruleOf = rules as Partial<Record<string, DiffRule<unknown>>>;
      const builder = new DiffBuilder();
      for (const { name, field, shape } of inputs) {
        const replace = field.kind === "input" && field.replaceOnChange === true;
        const rule = ruleOf[name];
        const a = before[name];
        const b = after[name];
        if (rule !== undefined) {
          const { changed, ...options } = rule(a, b);
          builder.property(name, changed, options);
        } else if (shape.kind === "stringMap" && b !== NOT_KNOWN) {
          const details = mapChanges(
            name,
            (a ?? {}) as Record<string, string>,
            (b ?? {}) as Record<string, string>,
            replace,
          );
          builder.property(name, details.length > 0, { replace, details });
        } else {
          builder.property(name, valueChanged(a, b), { replace, kind: changeKind(a, b) });
        }
      }
      return builder.build();
    },
    fromRecord(record) {
      const source = record as Record<string, unknown>;
      const facts: Record<string, unknown> = {};
      for (const { name } of recordFields) if (source[name] !== undefined) facts[name] = source[name];
      return facts as RecordFactsOf<D>;
    },
    outputs,
    inputsOf: (recordedOutputs) => decoders.known(recordedOutputs),
    settingsOf(old) {
      const settings: Record<string, unknown> = {};
      const source = (old ?? {}) as Record<string, unknown>;
      for (const { name, field, shape } of inputs)
        if (field.kind === "input" && field.stackOnly === true)
          settings[name] = source[name] ?? field.default ?? (shape.kind === "stringMap" ? {} : undefined);
      return settings as SettingsOf<D>;
    },
  };
}
