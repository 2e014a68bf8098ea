import type * as pulumi from "@pulumi/pulumi";

/**
 * Resource options with `names` added to `additionalSecretOutputs`, keeping any the user passed.
 *
 * Dynamic providers cannot return secrets themselves (the provider host accepts none), so generated
 * credentials are marked secret here, when the resource is registered.
 */
export function withSecretOutputs(
  opts: pulumi.CustomResourceOptions | undefined,
  names: readonly string[],
): pulumi.CustomResourceOptions {
  const merged = [...new Set([...(opts?.additionalSecretOutputs ?? []), ...names])];
  return { ...opts, additionalSecretOutputs: merged };
}
