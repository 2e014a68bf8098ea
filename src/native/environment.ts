/**
 * `broker:index:Environment`, the component the plugin builds at `Construct`: a whole environment
 * from one configuration document, as native `Workspace` and `AccessKey` resources. The document is
 * read, checked and planned by the core's config-as-data (the dynamic door's `BrokerConfig` uses the
 * same plan, walk and outputs); this file only says how the native door declares each child.
 *
 * Loaded by `construct.ts` when the engine first asks for a component, never at plugin start: it
 * brings in the `@pulumi/pulumi` runtime, which the resource operations do not need.
 */
import * as pulumi from "@pulumi/pulumi";
import { BrokerConfigDocumentError } from "../config-as-data/errors";
import { documentInput, loadBrokerConfig, parseBrokerConfig } from "../config-as-data/load";
import { brokerConfigOutputs, type BrokerConfigOutputs } from "../config-as-data/outputs";
import { declarePlan, planBrokerConfig } from "../config-as-data/plan";
import type { BrokerConfigDocument } from "../config-as-data/types";
import {
  ACCESS_KEY,
  DEFAULT_DOCUMENT_NAME,
  ENVIRONMENT,
  fieldNames,
  secretFields,
  WORKSPACE,
  type ResourceDeclaration,
} from "../core/declarations";
import { packageVersion } from "./schema";

/** The inputs of an Environment once known (see `construct.ts`): exactly one of `document` and `config`. */
export interface EnvironmentInputs {
  /** The document as YAML or JSON text. */
  readonly document?: unknown;
  /** The name `document`'s problems are reported under. @default "document" */
  readonly documentName?: unknown;
  /** The document as an object. */
  readonly config?: unknown;
}

/**
 * The document of an Environment's inputs, validated.
 * @throws BrokerConfigDocumentError listing every problem, located in the text
 *   (`broker.yaml:14:9 accessKeys[1].type: …`) when the document is `document`.
 */
export function environmentDocument(inputs: EnvironmentInputs): BrokerConfigDocument {
  const given = documentInput(
    "Environment",
    { name: "document", description: "YAML or JSON text", value: inputs.document },
    { name: "config", description: "an object", value: inputs.config },
  );
  if (given.name === "config") return loadBrokerConfig(given.value as BrokerConfigDocument);
  if (typeof given.value !== "string") {
    throw new BrokerConfigDocumentError([
      {
        path: "",
        message: `Environment's \`document\` must be text (YAML or JSON), got ${typeof given.value}`,
      },
    ]);
  }
  const name =
    typeof inputs.documentName === "string" && inputs.documentName !== "" ? inputs.documentName : undefined;
  return parseBrokerConfig({ file: name ?? DEFAULT_DOCUMENT_NAME, text: given.value });
}

/**
 * A child of an Environment: a resource of the `broker` package, registered as the SDKs register it
 * (its token, its secret outputs, this plugin's version for the default provider), so that check,
 * diff, adoption and the endpoint guard are those of the resource declared on its own. The plugin
 * marks the secret outputs in its answers as well; the SDKs name them too, and so does this.
 */
class BrokerChild extends pulumi.CustomResource {
  constructor(
    resource: ResourceDeclaration,
    name: string,
    inputs: object,
    opts: pulumi.CustomResourceOptions,
  ) {
    // Every output is named in the props (undefined), so that the SDK resolves it on this object.
    const outputs = Object.fromEntries(
      fieldNames(resource)
        .filter((field) => !Object.hasOwn(inputs, field))
        .map((field) => [field, undefined]),
    );
    super(
      resource.token,
      name,
      { ...outputs, ...inputs },
      pulumi.mergeOptions(opts, {
        additionalSecretOutputs: secretFields(resource),
        version: packageVersion(),
      }),
    );
  }

  /** The output `field` of the resource's declaration. */
  output<T>(field: string): pulumi.Output<T> {
    return (this as unknown as Record<string, pulumi.Output<T>>)[field] as pulumi.Output<T>;
  }
}

/** The component itself: its children are declared in the constructor, its outputs registered. */
export class Environment extends pulumi.ComponentResource {
  /** What the component registers, the same outputs as the dynamic door's `BrokerConfig`. */
  readonly outputs: BrokerConfigOutputs;

  /**
   * @param name The component's name: the prefix of every child's name.
   * @param inputs The known inputs (see {@link environmentDocument}).
   * @param opts What the engine's `Construct` carries: parent, providers, protect, dependsOn, …; the
   *   children inherit them as children do, the explicit `broker` provider included.
   * @throws BrokerConfigDocumentError for a document with mistakes, before anything is registered.
   */
  constructor(name: string, inputs: EnvironmentInputs, opts: pulumi.ComponentResourceOptions) {
    // Checked before the component registers: a mistake fails the preview with nothing declared and
    // no request sent.
    const plan = planBrokerConfig(environmentDocument(inputs), name);
    super(ENVIRONMENT.token, name, {}, opts);
    const declared = declarePlan<BrokerChild, BrokerChild, pulumi.Output<number>>(plan, {
      workspace: (planned, childInputs) =>
        new BrokerChild(WORKSPACE, planned.resourceName, childInputs, { parent: this }),
      accessKey: (planned, childInputs) =>
        new BrokerChild(ACCESS_KEY, planned.resourceName, childInputs, { parent: this }),
      workspaceId: (workspace) => workspace.output<number>("workspaceId"),
    });
    this.outputs = brokerConfigOutputs(declared, {
      accessKeyId: (k) => k.output<number>("accessKeyId"),
      accessKey: (k) => k.output<string>("accessKey"),
      privateKey: (k) => k.output<string | undefined>("privateKey"),
    });
    this.registerOutputs(this.outputs);
  }
}

/** Builds an Environment for `Construct`: its URN and the state to answer. */
export function constructEnvironment(
  name: string,
  inputs: EnvironmentInputs,
  opts: pulumi.ComponentResourceOptions,
): { urn: pulumi.Output<string>; state: Record<string, unknown> } {
  const environment = new Environment(name, inputs, opts);
  return { urn: environment.urn, state: { ...environment.outputs } };
}
