/**
 * Which resources the policy pack reads: the broker's, through either door. The analyzer sees a
 * resource's type token, not the language or class that made it: the native plugin's resources are
 * `broker:index:<Type>`, the dynamic resources `pulumi-nodejs:dynamic/broker:<Type>` (the module and
 * type name our classes pass to `dynamic.Resource`). The engine does not show an analyzer the
 * dynamic resources' `__provider` input (it hides `__`-prefixed keys), so the type token is what
 * tells ours apart from other dynamic resources; it is also a contract with every stack's state, so
 * it cannot drift.
 */
import { brokerResourceOfType, ENVIRONMENT } from "../core/declarations";

/** The broker resources the rules know. */
export type BrokerResourceKind = "Workspace" | "AccessKey" | "ServiceKeyPair";

/** Which door made a resource. */
export type BrokerDoor = "native" | "dynamic";

/**
 * The broker resource kind and door of a Pulumi type token, or `undefined` for any other resource
 * (asked of the one recognition the access review shares, `brokerResourceOfType`).
 *
 * @example
 * ```ts
 * brokerResourceType("broker:index:AccessKey");                 // { kind: "AccessKey", door: "native" }
 * brokerResourceType("pulumi-nodejs:dynamic/broker:Workspace"); // { kind: "Workspace", door: "dynamic" }
 * brokerResourceType("aws:s3/bucket:Bucket");                   // undefined
 * ```
 */
export function brokerResourceType(type: string): { kind: BrokerResourceKind; door: BrokerDoor } | undefined {
  const found = brokerResourceOfType(type);
  return found === undefined ? undefined : { kind: found.kind, door: found.door };
}

/** The components that declare resources from a configuration document, by type token. */
const DOCUMENT_COMPONENTS = new Map<string, DocumentComponent>([
  [ENVIRONMENT.token, "Environment"],
  // The dynamic door's component (src/dynamic/resources/broker-config.ts registers this token).
  ["broker:index:BrokerConfig", "BrokerConfig"],
]);

/** A component that declares resources from a configuration document. */
export type DocumentComponent = "Environment" | "BrokerConfig";

/**
 * The document component a resource was declared through, read from its URN: a URN's type part
 * is the chain of its parents' types (`broker:index:Environment$broker:index:AccessKey`), and the
 * engine hides component inputs (the document) of a local component from analyzers, so the chain is
 * what the pack sees in both doors. `undefined` for a resource declared on its own.
 *
 * @example
 * ```ts
 * documentComponentOf("urn:pulumi:dev::app::broker:index:Environment$broker:index:AccessKey::prod:access-key:admin"); // "Environment"
 * ```
 */
export function documentComponentOf(urn: string): DocumentComponent | undefined {
  const types = (urn.split("::")[2] ?? "").split("$").slice(0, -1);
  for (const type of types.reverse()) {
    const component = DOCUMENT_COMPONENTS.get(type);
    if (component !== undefined) return component;
  }
  return undefined;
}
