/**
 * Which resources the policy pack reads: the broker's, through either door. The analyzer sees a
 * resource's type token, not the language or class that made it: the native plugin's resources are
 * `broker:index:<Type>`, the dynamic resources `pulumi-nodejs:dynamic/broker:<Type>` (the module and
 * type name our classes pass to `dynamic.Resource`). The engine does not show an analyzer the
 * dynamic resources' `__provider` input (it hides `__`-prefixed keys), so the type token is what
 * tells ours apart from other dynamic resources; it is also a contract with every stack's state, so
 * it cannot drift.
 */
import { brokerResourceOfType } from "../core/declarations";

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
