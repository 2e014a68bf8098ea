import type * as pulumi from "@pulumi/pulumi";
import { ACCESS_KEY, DYNAMIC_MODULE, secretFields } from "../../core/declarations";
import * as accessKeyProvider from "../providers/access-key";
// The args and outputs are generated from the declaration (`npm run gen:dynamic`); this file keeps
// the behaviour.
import { AccessKeyBase } from "./generated/access-key";
import type { AccessKeyArgs } from "./generated/access-key";
import { dynamicProps } from "./outputs";
import { withSecretOutputs } from "./secret-outputs";

export type { AccessKeyInputs, AccessKeyOutputs, OnDelete } from "../impl/access-key";
export type { AccessKeyArgs } from "./generated/access-key";
export type { PermissionsArgs } from "./generated/types";

/** Outputs of {@link AccessKey} that hold credentials and are always stored as Pulumi secrets. */
export const ACCESS_KEY_SECRET_OUTPUTS: readonly string[] = secretFields(ACCESS_KEY);

/**
 * An access key of the broker, with its `send`/`receive` permissions.
 *
 * The generated key value (`accessKey`) and, for SERVICE keys, the `privateKey` of the key pair
 * returned at creation are secret outputs. The resource id is the numeric key id, never the value.
 * Permissions update in place; `name`, `type` or `rotationTriggers` changes replace the key, the new
 * key created before the old one is revoked. Refresh detects changed
 * permissions (the next `pulumi up` restores them) and removed keys. The API cannot delete keys:
 * destroy revokes the permissions of a key the stack created and leaves a key it adopted as it was
 * found, unless `onDelete` says otherwise.
 *
 * `pulumi import` does not work for dynamic resources: `adopt` takes over an existing key instead.
 * An adopted SERVICE key has no `publicKey`/`privateKey` output (the API cannot read a pair back);
 * add a {@link ServiceKeyPair} to get a known pair.
 *
 * @example
 * ```ts
 * const orders = new AccessKey("orders-service", {
 *   name: "orders-service",
 *   type: "SERVICE",
 *   permissions: { send: ["orders/created"], receive: ["payments/*"] },
 * });
 * export const ordersKey = orders.accessKey; // a secret
 * ```
 */
export class AccessKey extends AccessKeyBase {
  /**
   * @param name The unique name of the resource in the stack.
   * @param args The key's arguments.
   * @param opts Resource options; `additionalSecretOutputs` you pass are kept and extended.
   */
  constructor(name: string, args: AccessKeyArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      accessKeyProvider,
      name,
      dynamicProps(ACCESS_KEY, args, name, opts ?? {}),
      withSecretOutputs(opts, ACCESS_KEY_SECRET_OUTPUTS),
      DYNAMIC_MODULE,
      ACCESS_KEY.name,
    );
  }
}
