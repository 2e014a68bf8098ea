import * as pulumi from "@pulumi/pulumi";
import { SERVICE_KEY_PAIR, DYNAMIC_MODULE, secretFields } from "../../core/declarations";
import * as serviceKeyPairProvider from "../providers/service-key-pair";
import { dynamicProps } from "./outputs";
import { withSecretOutputs } from "./secret-outputs";

export type { ServiceKeyPairInputs, ServiceKeyPairOutputs } from "../impl/service-key-pair";

/** The arguments of a {@link ServiceKeyPair}. */
export interface ServiceKeyPairArgs {
  /**
   * The value of a SERVICE access key, e.g. an {@link AccessKey}'s `accessKey` output. It is always
   * stored as a secret, even when passed as a plain string. Changing it replaces this resource. An ACCOUNT key is rejected with a clear error.
   */
  accessKey: pulumi.Input<string>;
  /**
   * Any change to this map rotates the pair in place, e.g. `{ quarter: "2026-Q4" }`.
   * @default {}
   */
  rotationTriggers?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /**
   * Allow this resource to move to a different `broker:baseUrl` than the one it was created at.
   * @default false
   */
  allowEndpointChange?: pulumi.Input<boolean>;
}

/** Outputs of {@link ServiceKeyPair} that hold credentials and are always stored as Pulumi secrets. */
export const SERVICE_KEY_PAIR_SECRET_OUTPUTS: readonly string[] = secretFields(SERVICE_KEY_PAIR);

/**
 * The encryption key pair of a SERVICE access key, managed by rotation.
 *
 * Creating the resource, and every change of `rotationTriggers`, replaces the key's pair on the
 * broker (`PUT /access/service-key-pair`) and records the new one; `privateKey` is a secret output.
 * Refresh checks that the key still exists (the API cannot read a pair back). Destroy leaves the
 * current pair in place, with a note.
 *
 * @example
 * ```ts
 * const pair = new ServiceKeyPair("orders-pair", {
 *   accessKey: orders.accessKey,
 *   rotationTriggers: { quarter: "2026-Q4" },
 * });
 * ```
 */
export class ServiceKeyPair extends pulumi.dynamic.Resource {
  /** The public key (base64 text), for encryption. */
  declare readonly publicKey: pulumi.Output<string>;
  /** The private key (base64 text), for decryption (SECRET). */
  declare readonly privateKey: pulumi.Output<string>;
  /** The numeric id of the SERVICE key the pair belongs to. */
  declare readonly accessKeyId: pulumi.Output<number>;
  /** When this stack last rotated the pair (ISO 8601 UTC). */
  declare readonly rotatedAt: pulumi.Output<string>;
  /** The API endpoint the key lives at. */
  declare readonly baseUrl: pulumi.Output<string>;

  /**
   * @param name The unique name of the resource in the stack.
   * @param args The pair's arguments.
   * @param opts Resource options; `additionalSecretOutputs` you pass are kept and extended.
   */
  constructor(name: string, args: ServiceKeyPairArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      serviceKeyPairProvider,
      name,
      // The key value is a credential however the caller got it (plain config, a literal, an
      // unsecret'ed output): made secret here, it is encrypted in the state's inputs as well as its
      // outputs, where additionalSecretOutputs alone would leave the inputs in plain text.
      dynamicProps(SERVICE_KEY_PAIR, { ...args, accessKey: pulumi.secret(args.accessKey) }, name),
      withSecretOutputs(opts, SERVICE_KEY_PAIR_SECRET_OUTPUTS),
      DYNAMIC_MODULE,
      SERVICE_KEY_PAIR.name,
    );
  }
}
