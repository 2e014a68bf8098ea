import * as pulumi from "@pulumi/pulumi";
import { ACCESS_KEY, DYNAMIC_MODULE, secretFields } from "../../core/declarations";
import type { AccessKeyType } from "../../client/types";
import type { OnDelete } from "../impl/access-key";
import * as accessKeyProvider from "../providers/access-key";
import { dynamicProps } from "./outputs";
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
  /**
   * The key's name. Changing it replaces the key (the API cannot rename keys).
   *
   * When absent, the key is named `<logical name>-<7 random characters>`, chosen once and kept across
   * updates; a replacement chooses a new one, so the new key is created before the old one is revoked.
   */
  name?: pulumi.Input<string>;
  /**
   * `"SERVICE"` for keys that connect clients to the broker, `"ACCOUNT"` for keys that call the
   * configuration API. Changing it replaces the key.
   */
  type: pulumi.Input<AccessKeyType>;
  /**
   * What the key may publish and subscribe to. Changes are applied in place, read back and verified.
   * @default { send: [], receive: [], resources: {} }
   */
  permissions?: pulumi.Input<PermissionsArgs>;
  /**
   * Take over an existing key with the same name and type instead of creating a new one; its
   * permissions are then set to `permissions`. `pulumi import` does not work for dynamic resources.
   * An adopted SERVICE key has no `publicKey`/`privateKey` output (the API cannot read a pair back);
   * add a {@link ServiceKeyPair} to get a known pair.
   * @default false
   */
  adopt?: pulumi.Input<boolean>;
  /**
   * What destroy (or a replacement) does with the key, which the API cannot delete: `"revoke"`
   * empties its `send`, `receive` and `resources` permissions; `"retain"` leaves it as it is.
   * @default "revoke"
   */
  onDelete?: pulumi.Input<OnDelete>;
  /**
   * Any change to this map rotates the key: a new key is created (with a new value, and a new name
   * when the name is generated), everything that uses it is updated, and only then is the old key
   * revoked (see `onDelete`), so a consumer reading the key from stack outputs or a secret store
   * always holds a valid one. E.g. `{ quarter: "2026-Q4" }`.
   * @default {}
   */
  rotationTriggers?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /**
   * Allow this resource to move to a different `broker:baseUrl` than the one it was created at.
   * @default false
   */
  allowEndpointChange?: pulumi.Input<boolean>;
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
  declare readonly accessKey: pulumi.Output<string>;
  /** The numeric id of the key. */
  declare readonly accessKeyId: pulumi.Output<number>;
  /** The key's name. */
  declare readonly name: pulumi.Output<string>;
  /** `SERVICE` or `ACCOUNT`. */
  declare readonly type: pulumi.Output<AccessKeyType>;
  /** The permissions the server holds, normalised: lists sorted, without repeats. */
  declare readonly permissions: pulumi.Output<{
    send: string[];
    receive: string[];
    resources: Record<string, unknown>;
  }>;
  /** When the broker created the key (ISO 8601 UTC). */
  declare readonly createdAt: pulumi.Output<string | undefined>;
  /** For a SERVICE key created by this stack: the public key of the pair returned at creation (base64). */
  declare readonly publicKey: pulumi.Output<string | undefined>;
  /** For a SERVICE key created by this stack: the private key of that pair (base64, SECRET). */
  declare readonly privateKey: pulumi.Output<string | undefined>;
  /** True when this stack adopted an existing key instead of creating it. */
  declare readonly adopted: pulumi.Output<boolean>;
  /** The API endpoint the key lives at. */
  declare readonly baseUrl: pulumi.Output<string>;

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
