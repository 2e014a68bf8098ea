import * as pulumi from "@pulumi/pulumi";
import { documentInput, loadBrokerConfig } from "../../config-as-data/load";
import { brokerConfigOutputs } from "../../config-as-data/outputs";
import { declarePlan, planBrokerConfig } from "../../config-as-data/plan";
import type { BrokerConfigDocument } from "../../config-as-data/types";
import { AccessKey } from "./access-key";
import { Workspace } from "./workspace";

/**
 * The arguments of a {@link BrokerConfig}: exactly one of `file` and `config`. Plain values, not
 * `pulumi.Input`s: the document decides which resources exist, so it must be known when the program runs.
 */
export interface BrokerConfigArgs {
  /**
   * A YAML (`.yaml`, `.yml`) or JSON (`.json`) file holding the document, relative to the working
   * directory of the program (the Pulumi project's directory), e.g. the output of `broker-config export`.
   */
  file?: string;
  /** The document as an object. */
  config?: BrokerConfigDocument;
}

/**
 * A whole broker configuration declared as data: the workspace tree and the access keys of a YAML or
 * JSON document (or an object), deployed as one {@link Workspace} per tree node and one
 * {@link AccessKey} per key, all children of this component. The connection comes from the stack
 * config (`broker:baseUrl`, `broker:apiKey`) as for the resources themselves.
 *
 * The document is validated before anything is declared (JSON Schema `broker-config.schema.json`,
 * event paths, unique names); an invalid one fails the program with every problem listed, each as
 * `file:line:column path: message`.
 *
 * Resource names derive from the workspace path and the key name (`<name>:workspace:/platform/orders`,
 * `<name>:access-key:orders-svc`): renaming a workspace or key in the document, or moving a
 * workspace to another parent, replaces it. Removing a key from the document revokes it on the next
 * `pulumi up` (unless `onDelete: retain`); a removed workspace is only forgotten (the API cannot
 * delete workspaces). `adopt: true` (what `broker-config export` writes) takes over objects that
 * already exist instead of creating them again; a destroy leaves an adopted key as it was found
 * unless `onDelete: revoke` is given.
 *
 * @example
 * ```ts
 * const broker = new BrokerConfig("prod", { file: "broker.yaml" });
 * export const workspaceIds = broker.workspaces;
 * export const keyValues = broker.accessKeyValues; // a secret
 * ```
 */
export class BrokerConfig extends pulumi.ComponentResource {
  /** Workspace ids by path, such as `{ "/platform": 1, "/platform/orders": 2 }`. */
  readonly workspaces: pulumi.Output<Record<string, number>>;
  /** Access key ids by key name. */
  readonly accessKeys: pulumi.Output<Record<string, number>>;
  /** Access key values by key name (SECRET). */
  readonly accessKeyValues: pulumi.Output<Record<string, string>>;
  /** The private key of each SERVICE key's encryption key pair, by key name (SECRET); ACCOUNT keys have none. */
  readonly privateKeys: pulumi.Output<Record<string, string>>;
  /** The Workspace resources by path, e.g. for `dependsOn`. */
  readonly workspaceResources: Readonly<Record<string, Workspace>>;
  /** The AccessKey resources by key name, e.g. to give one a {@link ServiceKeyPair}. */
  readonly accessKeyResources: Readonly<Record<string, AccessKey>>;

  /**
   * @param name The component's name: the prefix of every child resource's name.
   * @param args Exactly one of `file` and `config`.
   * @param opts Component options; the children inherit them (provider, protect, …) as children do.
   * @throws BrokerConfigDocumentError when the document is invalid, listing every problem.
   */
  constructor(name: string, args: BrokerConfigArgs, opts?: pulumi.ComponentResourceOptions) {
    super("broker:index:BrokerConfig", name, {}, opts);
    const given = documentInput(
      "BrokerConfig",
      { name: "file", description: "a YAML or JSON file", value: args.file },
      { name: "config", description: "an object", value: args.config },
    );
    const plan = planBrokerConfig(loadBrokerConfig(given.value), name);
    const declared = declarePlan<Workspace, AccessKey, pulumi.Output<number>>(plan, {
      workspace: (planned, inputs) => new Workspace(planned.resourceName, inputs, { parent: this }),
      accessKey: (planned, inputs) => new AccessKey(planned.resourceName, inputs, { parent: this }),
      workspaceId: (workspace) => workspace.workspaceId,
    });
    const outputs = brokerConfigOutputs(declared, {
      accessKeyId: (k) => k.accessKeyId,
      accessKey: (k) => k.accessKey,
      privateKey: (k) => k.privateKey,
    });

    this.workspaceResources = declared.workspaces;
    this.accessKeyResources = declared.accessKeys;
    this.workspaces = outputs.workspaces;
    this.accessKeys = outputs.accessKeys;
    this.accessKeyValues = outputs.accessKeyValues;
    this.privateKeys = outputs.privateKeys;
    this.registerOutputs(outputs);
  }
}
