/**
 * The vocabulary of resource declarations: what a resource is made of, said once, from which the
 * package schema (`schema.json`, and through it every generated SDK and the plugin), the dynamic
 * resources' secret outputs and the migration's type map are derived.
 *
 * A declaration says what users see (types, documentation, defaults) and how the engine must treat
 * each field (secret, replaced on change, set by the program or computed). The rules of the values
 * themselves (names, event paths, permissions) stay in `src/model/`, and their checks in the core.
 */

/** A property's type, spelled as the Pulumi package schema spells it. */
export type PropertyType =
  | { readonly type: "string" | "integer" | "number" | "boolean" }
  | { readonly $ref: string }
  | { readonly type: "array"; readonly items: PropertyType }
  | { readonly type: "object"; readonly additionalProperties: PropertyType };

// The constants and builders keep their literal types (`as const`), so that the core's mapped types
// (`src/core/declared.ts`) read a field's TypeScript type from its declaration.

/** A string. */
export const STRING = { type: "string" } as const satisfies PropertyType;
/** A whole number. */
export const INTEGER = { type: "integer" } as const satisfies PropertyType;
/** Any number. */
export const NUMBER = { type: "number" } as const satisfies PropertyType;
/** `true` or `false`. */
export const BOOLEAN = { type: "boolean" } as const satisfies PropertyType;
/** Any value (a plain object's members, passed on as they are). */
export const ANY = { $ref: "pulumi.json#/Any" } as const satisfies PropertyType;

/** A list of `items`. */
export function arrayOf<const T extends PropertyType>(
  items: T,
): { readonly type: "array"; readonly items: T } {
  return { type: "array", items };
}

/** A map from strings to `values`. */
export function mapOf<const T extends PropertyType>(
  values: T,
): { readonly type: "object"; readonly additionalProperties: T } {
  return { type: "object", additionalProperties: values };
}

/** A property type as the package schema spells it, for the schema's JSON. */
export type PropertyTypeSchema =
  | { type: "string" | "integer" | "number" | "boolean" }
  | { $ref: string }
  | { type: "array"; items: PropertyTypeSchema }
  | { type: "object"; additionalProperties: PropertyTypeSchema };

/** `type` as a fresh JSON object of the schema (the declarations' objects are shared and frozen in spirit). */
export function propertyTypeSchema(type: PropertyType): PropertyTypeSchema {
  if ("$ref" in type) return { $ref: type.$ref };
  if ("items" in type) return { type: "array", items: propertyTypeSchema(type.items) };
  if ("additionalProperties" in type)
    return { type: "object", additionalProperties: propertyTypeSchema(type.additionalProperties) };
  return { type: type.type };
}

/** A reference to the shared type `token` (an object or enum type of the package). */
export function typeRef<const T extends string>(token: T): { readonly $ref: `#/types/${T}` } {
  return { $ref: `#/types/${token}` };
}

/** What the program sets: an input, recorded among the outputs as well. */
export interface InputField {
  readonly kind: "input";
  readonly type: PropertyType;
  /** For the user, in every SDK and the schema. */
  readonly doc: string;
  /** The output's documentation, where the recorded value means something else than the input. */
  readonly outputDoc?: string;
  /** The program must set it. */
  readonly required?: boolean;
  /**
   * The program may leave it out, and `check` chooses it (`<logical name>-<7 random characters>`, or
   * what the stack's `pulumi:autonaming` asks): the checked inputs always hold it, as if required.
   */
  readonly autonamed?: boolean;
  /** The engine keeps it encrypted and masks it in every output. */
  readonly secret?: boolean;
  /** A change replaces the resource. */
  readonly replaceOnChange?: boolean;
  /** The value an absent input takes. */
  readonly default?: string | number | boolean;
  /**
   * Only the stack holds it: the API knows nothing of it, so a read keeps the recorded value and an
   * import takes the default.
   */
  readonly stackOnly?: boolean;
  /**
   * The recorded output may be absent: a state that a partial failure left (the object exists, but
   * could not be read back; the next update completes it). The schema still lists the output as
   * always present, because every state a successful operation writes has it.
   */
  readonly outputOptional?: boolean;
}

/** What the provider computes: an output only. */
export interface OutputField {
  readonly kind: "output";
  readonly type: PropertyType;
  /** For the user, in every SDK and the schema. */
  readonly doc: string;
  /** The engine keeps it encrypted and masks it in every output. */
  readonly secret?: boolean;
  /** Absent in some states (say when in `doc`); otherwise every recorded state has it. */
  readonly optional?: boolean;
  /**
   * The broker returns it, under the same name, in the object's record (`src/client/types.ts`): the
   * core copies it from every record it reads, so a field the API returns needs no core code.
   */
  readonly fromRecord?: boolean;
}

/** One field of a resource. */
export type FieldDeclaration = InputField | OutputField;

/** A resource: its token, documentation and fields (in the order users read them: inputs first). */
export interface ResourceDeclaration {
  /** The type token of the native provider, `broker:index:<name>`. */
  readonly token: string;
  /** The type name, as both doors spell it (`AccessKey`). */
  readonly name: string;
  /** For the user, in every SDK and the schema. */
  readonly doc: string;
  readonly fields: Readonly<Record<string, FieldDeclaration>>;
}

/** An object type shared by several fields (`broker:index:Permissions`). */
export interface ObjectTypeDeclaration {
  readonly kind: "object";
  readonly token: string;
  readonly doc: string;
  /** Its members; none is required (the core fills in what is absent). */
  readonly members: Readonly<Record<string, { readonly type: PropertyType; readonly doc: string }>>;
}

/** A string enum (`broker:index:AccessKeyType`). */
export interface EnumTypeDeclaration {
  readonly kind: "enum";
  readonly token: string;
  readonly doc: string;
  /** Each value, with the name the SDKs give it and its documentation, in the order SDKs list them. */
  readonly values: readonly { readonly name: string; readonly value: string; readonly doc: string }[];
}

/** A type shared by fields of the package's resources. */
export type TypeDeclaration = ObjectTypeDeclaration | EnumTypeDeclaration;

/** The names of the fields of `resource` that the engine keeps secret, outputs and inputs alike. */
export function secretFields(resource: ResourceDeclaration): string[] {
  return Object.entries(resource.fields)
    .filter(([, field]) => field.secret === true)
    .map(([name]) => name);
}

/** The names of `resource`'s fields, inputs and outputs, in declaration order. */
export function fieldNames(resource: ResourceDeclaration): string[] {
  return Object.keys(resource.fields);
}

/**
 * A component resource the plugin serves through `Construct` (`isComponent` in the schema): it makes
 * resources of the package as its children, so it has no provider operations of its own. Its inputs
 * are what the program passes; its outputs are what it registers once its children are declared.
 */
export interface ComponentDeclaration {
  /** The type token, `broker:index:<name>`. */
  readonly token: string;
  /** The type name, as the SDKs spell it (`Environment`). */
  readonly name: string;
  /** For the user, in every SDK and the schema. */
  readonly doc: string;
  /** What the program passes. `required` marks the ones it must. */
  readonly inputs: Readonly<Record<string, InputField>>;
  /** What the component registers as its outputs; `secret` ones stay secret in every language. */
  readonly outputs: Readonly<Record<string, OutputField>>;
}
