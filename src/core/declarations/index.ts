/**
 * The declarations of the package's resources and shared types: each resource's fields said once.
 * Derived from them: `schema.json` (`package-schema.ts`; through it the plugin and every generated
 * SDK), the dynamic resources' type names and secret outputs, and `migrate-state`'s type map.
 * @packageDocumentation
 */
import type { ResourceDeclaration } from "./fields";
import { RESOURCES } from "./package-schema";

export * from "./fields";
export { ACCESS_KEY } from "./access-key";
export { COMPONENTS, RESOURCES, renderPackageSchema } from "./package-schema";
export { DEFAULT_DOCUMENT_NAME, ENVIRONMENT } from "./environment";
export { SERVICE_KEY_PAIR } from "./service-key-pair";
export { ACCESS_KEY_TYPE, ON_DELETE, PERMISSIONS, SHARED_TYPES, type SharedTypeValues } from "./types";
export { WORKSPACE } from "./workspace";

/** The module of the dynamic resources' type names: `pulumi-nodejs:dynamic/<module>:<name>`. */
export const DYNAMIC_MODULE = "broker";

/**
 * The input by which a dynamic resource class tells its provider its logical name, when the program
 * gives it no `name`: the dynamic provider host passes `check` no URN, and the name is chosen there
 * (`src/core/autoname.ts`). `__` keeps it out of the engine's displays; `check` drops it from the
 * inputs it records.
 */
export const DYNAMIC_LOGICAL_NAME_INPUT = "__logicalName";

/**
 * The input by which a dynamic resource class that creates objects tells its provider its URN: the
 * dynamic provider host passes `create` no URN, and the create's intent is recorded under it
 * (`src/core/intents.ts`). `check` keeps it in the inputs it records, so `create` receives it; the
 * core reads no field of that name, so it never shows in a diff.
 */
export const DYNAMIC_URN_INPUT = "__urn";

/** The type token the engine records for the dynamic resource of `resource`. */
export function dynamicTypeToken(resource: ResourceDeclaration): string {
  return `pulumi-nodejs:dynamic/${DYNAMIC_MODULE}:${resource.name}`;
}
export {
  FUNCTIONS,
  RESULT_TYPES,
  secretOutputs,
  type FunctionDeclaration,
  type FunctionProperty,
  type ResultTypeDeclaration,
} from "./functions";

/** A broker resource's kind and the door that made it, as a type token tells them. */
export interface BrokerResourceType {
  /** The resource's name: `Workspace`, `AccessKey` or `ServiceKeyPair`. */
  readonly kind: "Workspace" | "AccessKey" | "ServiceKeyPair";
  /** `native` for the plugin's `broker:index:<Type>`, `dynamic` for `pulumi-nodejs:dynamic/broker:<Type>`. */
  readonly door: "native" | "dynamic";
}

let tokenTable: Map<string, BrokerResourceType> | undefined;

/**
 * The broker resource a Pulumi type token names, through either door, or `undefined` for any other
 * resource: the one place that recognises our resources in what the engine shows (an analyzer's
 * resources, a preview's steps). The dynamic token is a contract with every stack's state
 * ({@link dynamicTypeToken}), so recognising by token cannot drift.
 *
 * @example
 * ```ts
 * brokerResourceOfType("broker:index:AccessKey");                 // { kind: "AccessKey", door: "native" }
 * brokerResourceOfType("pulumi-nodejs:dynamic/broker:Workspace"); // { kind: "Workspace", door: "dynamic" }
 * brokerResourceOfType("aws:s3/bucket:Bucket");                   // undefined
 * ```
 */
export function brokerResourceOfType(type: string): BrokerResourceType | undefined {
  tokenTable ??= new Map(
    RESOURCES.flatMap((resource): [string, BrokerResourceType][] => {
      const kind = resource.name as BrokerResourceType["kind"];
      return [
        [resource.token, { kind, door: "native" }],
        [dynamicTypeToken(resource), { kind, door: "dynamic" }],
      ];
    }),
  );
  return tokenTable.get(type);
}
