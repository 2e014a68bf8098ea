/**
 * The outputs a deployed document gives, the same for the dynamic door's `BrokerConfig` and the
 * native `Environment`: workspace ids by path, key ids, (secret) key values and (secret) SERVICE keys'
 * private keys by key name. Apart
 * from `index.ts` because it needs `@pulumi/pulumi`, which the `broker-config` CLI does not load.
 */
import * as pulumi from "@pulumi/pulumi";
import type { DeclaredPlan } from "./plan";

/** The outputs of a deployed document. */
export interface BrokerConfigOutputs {
  /** Workspace ids by path, such as `{ "/platform": 1, "/platform/orders": 2 }`. */
  workspaces: pulumi.Output<Record<string, number>>;
  /** Access key ids by key name. */
  accessKeys: pulumi.Output<Record<string, number>>;
  /** Access key values by key name: always a secret. */
  accessKeyValues: pulumi.Output<Record<string, string>>;
  /**
   * The private key of each SERVICE key's encryption key pair, as the broker made it with the key,
   * by key name (base64 text): always a secret. ACCOUNT keys have no pair and no entry.
   */
  privateKeys: pulumi.Output<Record<string, string>>;
}

/**
 * The outputs of the resources `declarePlan` (`plan.ts`) declared: the workspaces' ids through the
 * accessor `declarePlan` was given, the keys' values through `pick` (one door's resource classes).
 */
export function brokerConfigOutputs<W, K>(
  declared: DeclaredPlan<W, K, pulumi.Output<number>>,
  pick: {
    accessKeyId(key: K): pulumi.Output<number>;
    accessKey(key: K): pulumi.Output<string>;
    privateKey(key: K): pulumi.Output<string | undefined>;
  },
): BrokerConfigOutputs {
  return {
    workspaces: collect(declared.workspaces, (w) => declared.workspaceId(w)),
    accessKeys: collect(declared.accessKeys, (k) => pick.accessKeyId(k)),
    // Already secret through the AccessKey's secret outputs; said again so that this output stays
    // secret even if that ever changes.
    accessKeyValues: pulumi.secret(collect(declared.accessKeys, (k) => pick.accessKey(k))),
    privateKeys: pulumi.secret(collect(declared.accessKeys, (k) => pick.privateKey(k)).apply(withoutAbsent)),
  };
}

/** One output holding a map of every resource's value; it is secret when any value is. */
function collect<R, T>(
  resources: Record<string, R>,
  pick: (resource: R) => pulumi.Output<T>,
): pulumi.Output<Record<string, T>> {
  const outputs = Object.fromEntries(Object.entries(resources).map(([key, r]) => [key, pick(r)]));
  return pulumi.output(outputs) as pulumi.Output<Record<string, T>>;
}

/** `values` without the entries that have no value (an ACCOUNT key's private key). */
function withoutAbsent(values: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}
