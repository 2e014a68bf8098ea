import * as pulumi from "@pulumi/pulumi";
import { ACCESS_KEY, DYNAMIC_MODULE, secretFields } from "../../core/declarations";
import * as accessKeyProvider from "../providers/access-key";
import { dynamicProps, type DeclaredInput, type DeclaredOutput } from "./outputs";
import { withSecretOutputs } from "./secret-outputs";

export type { AccessKeyInputs, AccessKeyOutputs, OnDelete } from "../impl/access-key";

/** Event-path permissions of an {@link AccessKey}. Lists compare as sets: order and repeats don't matter. */
export interface PermissionsArgs {
  /**
   * Event paths the key may publish to: `/`-separated segments such as `orders/created`, with `*`
   * allowed only as the whole last segment (`orders/*`).
   * @default []
   */
  send?: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * Event paths the key may subscribe to, in the same form as `send`.
   * @default []
   */
  receive?: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * Resource-specific permissions, passed to the API as they are (a plain object).
   * @default {}
   */
  resources?: pulumi.Input<Record<string, unknown>>;
}

/** The arguments of an {@link AccessKey}. */
export interface AccessKeyArgs {
  /** The key's name. Changing it replaces the key (the API cannot rename keys). */
  name: DeclaredInput<typeof ACCESS_KEY, "name">;
  /**
   * `"SERVICE"` for keys that connect clients to the broker, `"ACCOUNT"` for keys that call the
   * configuration API. Changing it replaces the key.
   */
  type: DeclaredInput<typeof ACCESS_KEY, "type">;
  /**
   * What the key may publish and subscribe to. Changes are applied in place, read back and verified.
   * @default { send: [], receive: [], resources: {} }
   */
  permissions?: DeclaredInput<typeof ACCESS_KEY, "permissions">;
  /**
   * Take over an existing key with the same name and type instead of creating a new one; its
   * permissions are then set to `permissions`. `pulumi import` does not work for dynamic resources.
   * An adopted SERVICE key has no `publicKey`/`privateKey` output (the API cannot read a pair back);
   * add a {@link ServiceKeyPair} to get a known pair.
   * @default false
   */
  adopt?: DeclaredInput<typeof ACCESS_KEY, "adopt">;
  /**
   * What destroy (or a replacement) does with the key, which the API cannot delete: `"revoke"`
   * empties its `send`, `receive` and `resources` permissions; `"retain"` leaves it as it is.
   * @default "revoke"
   */
  onDelete?: DeclaredInput<typeof ACCESS_KEY, "onDelete">;
  /**
   * Allow this resource to move to a different `broker:baseUrl` than the one it was created at.
   * @default false
   */
  allowEndpointChange?: DeclaredInput<typeof ACCESS_KEY, "allowEndpointChange">;
}

/** Outputs of {@link AccessKey} that hold credentials and are always stored as Pulumi secrets. */
export const ACCESS_KEY_SECRET_OUTPUTS: readonly string[] = secretFields(ACCESS_KEY);

/**
 * An access key of the broker, with its `send`/`receive` permissions.
 *
 * The generated key value (`accessKey`) and, for SERVICE keys, the `privateKey` of the key pair
 * returned at creation are secret outputs. The resource id is the numeric key id, never the value.
 * Permissions update in place; `name` or `type` changes replace the key. Refresh detects changed
 * permissions (the next `pulumi up` restores them) and removed keys. Destroy revokes the key's
 * permissions by default (see `onDelete`): the API cannot delete keys.
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
export class AccessKey extends pulumi.dynamic.Resource {
  /** The access key value (SECRET). */
  declare readonly accessKey: DeclaredOutput<typeof ACCESS_KEY, "accessKey">;
  /** The numeric id of the key. */
  declare readonly accessKeyId: DeclaredOutput<typeof ACCESS_KEY, "accessKeyId">;
  /** The key's name. */
  declare readonly name: DeclaredOutput<typeof ACCESS_KEY, "name">;
  /** `SERVICE` or `ACCOUNT`. */
  declare readonly type: DeclaredOutput<typeof ACCESS_KEY, "type">;
  /** The permissions the server holds, normalised: lists sorted, without repeats. */
  declare readonly permissions: DeclaredOutput<typeof ACCESS_KEY, "permissions">;
  /** When the broker created the key (ISO 8601 UTC). */
  declare readonly createdAt: DeclaredOutput<typeof ACCESS_KEY, "createdAt">;
  /** For a SERVICE key created by this stack: the public key of the pair returned at creation (base64). */
  declare readonly publicKey: DeclaredOutput<typeof ACCESS_KEY, "publicKey">;
  /** For a SERVICE key created by this stack: the private key of that pair (base64, SECRET). */
  declare readonly privateKey: DeclaredOutput<typeof ACCESS_KEY, "privateKey">;
  /** True when this stack adopted an existing key instead of creating it. */
  declare readonly adopted: DeclaredOutput<typeof ACCESS_KEY, "adopted">;
  /** The API endpoint the key lives at. */
  declare readonly baseUrl: DeclaredOutput<typeof ACCESS_KEY, "baseUrl">;

  /**
   * @param name The unique name of the resource in the stack.
   * @param args The key's arguments.
   * @param opts Resource options; `additionalSecretOutputs` you pass are kept and extended.
   */
  constructor(name: string, args: AccessKeyArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      accessKeyProvider,
      name,
      dynamicProps(ACCESS_KEY, args),
      withSecretOutputs(opts, ACCESS_KEY_SECRET_OUTPUTS),
      DYNAMIC_MODULE,
      ACCESS_KEY.name,
    );
  }
}
