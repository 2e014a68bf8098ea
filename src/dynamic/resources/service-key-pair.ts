import * as pulumi from "@pulumi/pulumi";
import { SERVICE_KEY_PAIR, DYNAMIC_MODULE, secretFields } from "../../core/declarations";
import * as serviceKeyPairProvider from "../providers/service-key-pair";
// The args and outputs are generated from the declaration (`npm run gen:dynamic`); this file keeps
// the behaviour.
import { ServiceKeyPairBase } from "./generated/service-key-pair";
import type { ServiceKeyPairArgs } from "./generated/service-key-pair";
import { dynamicProps } from "./outputs";
import { withSecretOutputs } from "./secret-outputs";

export type { ServiceKeyPairInputs, ServiceKeyPairOutputs } from "../impl/service-key-pair";
export type { ServiceKeyPairArgs } from "./generated/service-key-pair";

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
 * The key value (`accessKey`) is always stored as a secret, in the inputs as in the outputs, even
 * when passed as a plain string.
 *
 * @example
 * ```ts
 * const pair = new ServiceKeyPair("orders-pair", {
 *   accessKey: orders.accessKey,
 *   rotationTriggers: { quarter: "2026-Q4" },
 * });
 * ```
 */
export class ServiceKeyPair extends ServiceKeyPairBase {
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
