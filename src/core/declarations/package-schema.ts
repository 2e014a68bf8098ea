/**
 * The Pulumi package schema of the `broker` package, rendered from the declarations of its
 * resources, shared types and provider settings. `schema.json` at the package root is this object,
 * written by `npm run gen:schema` (CI checks that it is current); the plugin serves it at
 * `GetSchema`, and Pulumi's generators make every SDK from it.
 */
import { SETTINGS, type SettingDeclaration } from "../../settings/declarations";
import { ACCESS_KEY } from "./access-key";
import { ENVIRONMENT } from "./environment";
import { registryDescription } from "./examples";
import { renderFunctions, renderResultTypes } from "./function-schema";
import {
  propertyTypeSchema,
  type ComponentDeclaration,
  type FieldDeclaration,
  type PropertyType,
  type ResourceDeclaration,
  type TypeDeclaration,
} from "./fields";
import { SERVICE_KEY_PAIR } from "./service-key-pair";
import { SHARED_TYPES } from "./types";
import { WORKSPACE } from "./workspace";

/** Every resource of the package, in the order the schema lists them. */
export const RESOURCES: readonly ResourceDeclaration[] = [WORKSPACE, ACCESS_KEY, SERVICE_KEY_PAIR];

/**
 * Every component of the package (served by the plugin's `Construct`), listed in the schema after the
 * resources. Kept apart from {@link RESOURCES}: a component has no provider operations, no dynamic
 * class and no state of its own to migrate or recover.
 */
export const COMPONENTS: readonly ComponentDeclaration[] = [ENVIRONMENT];

/** A JSON value, as the schema is made of. */
type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/**
 * Where the Pulumi CLI downloads the `broker` plugin when a program needs it and it is not installed:
 * the project's release page, by tag. The CLI puts the plugin's version where `${VERSION}` stands and
 * appends `/pulumi-resource-broker-v<version>-<os>-<arch>.tar.gz`. The generated SDKs carry it;
 * `npm run release -- --plugin-download-url <url>` makes SDK artifacts with another (a company
 * mirror), and users override it with `pulumi plugin install resource broker <v> --server <url>`.
 */
export const DEFAULT_PLUGIN_DOWNLOAD_URL =
  "https://github.com/pulumi-broker-config/pulumi-broker-config/releases/download/v${VERSION}";

/** The project's repository: the schema's `repository` and `homepage`, where the Registry links. */
export const REPOSITORY = "https://github.com/pulumi-broker-config/pulumi-broker-config";

/**
 * The package's logo in the Registry: `docs/logo.svg` of the repository's main branch, served by
 * GitHub as raw content (the Registry shows the image at this address; it must stay reachable).
 */
export const LOGO_URL = `https://raw.githubusercontent.com/pulumi-broker-config/pulumi-broker-config/main/docs/logo.svg`;

/** The package's identity and language settings: what no declaration of a resource says. */
const PACKAGE = {
  name: "broker",
  displayName: "Broker configuration",
  description:
    "The broker package: workspaces, access keys and service key pairs of the message-broker configuration API, managed with Pulumi.",
  keywords: ["pulumi", "broker", "messaging", "category/cloud", "kind/native"],
  homepage: REPOSITORY,
  repository: REPOSITORY,
  logoUrl: LOGO_URL,
  license: "Apache-2.0",
  publisher: "pulumi-broker-config",
  pluginDownloadURL: DEFAULT_PLUGIN_DOWNLOAD_URL,
  meta: { moduleFormat: "(.*)", supportPack: true },
} satisfies JsonObject;

const LANGUAGE = {
  nodejs: {
    packageName: "pulumi-broker-config",
    packageDescription:
      "The broker Pulumi package: workspaces, access keys and service key pairs of the message-broker configuration API.",
    respectSchemaVersion: true,
    dependencies: { "@pulumi/pulumi": "^3.139.0" },
  },
  python: {
    packageName: "pulumi_broker",
    respectSchemaVersion: true,
    pyproject: { enabled: true },
    requires: { pulumi: ">=3.139.0,<4.0.0" },
  },
  go: {
    importBasePath: "github.com/pulumi-broker-config/pulumi-broker-config/sdk/go/broker",
    generateResourceContainerTypes: true,
    respectSchemaVersion: true,
  },
} satisfies JsonObject;

const PROVIDER_DOC =
  "The provider of the `broker` package: which configuration API to talk to and with which key. Several providers let one program manage several environments.";

function typeSpec(type: PropertyType): JsonObject {
  return propertyTypeSchema(type);
}

function inputProperty(field: FieldDeclaration & { kind: "input" }): JsonObject {
  return {
    ...typeSpec(field.type),
    description: field.doc,
    ...(field.secret === true ? { secret: true } : {}),
    ...(field.default === undefined ? {} : { default: field.default }),
    ...(field.replaceOnChange === true ? { replaceOnChanges: true, willReplaceOnChanges: true } : {}),
  };
}

function outputProperty(field: FieldDeclaration): JsonObject {
  return {
    ...typeSpec(field.type),
    description: field.kind === "input" ? (field.outputDoc ?? field.doc) : field.doc,
    ...(field.secret === true ? { secret: true } : {}),
  };
}

function resourceSchema(resource: ResourceDeclaration): JsonObject {
  const fields = Object.entries(resource.fields);
  const inputs = fields.filter((entry): entry is [string, FieldDeclaration & { kind: "input" }] => {
    return entry[1].kind === "input";
  });
  return {
    description: registryDescription(resource.token, resource.doc),
    inputProperties: Object.fromEntries(inputs.map(([name, field]) => [name, inputProperty(field)])),
    requiredInputs: inputs.filter(([, field]) => field.required === true).map(([name]) => name),
    properties: Object.fromEntries(fields.map(([name, field]) => [name, outputProperty(field)])),
    required: fields
      .filter(([, field]) => field.kind === "input" || field.optional !== true)
      .map(([name]) => name),
  };
}

function componentSchema(component: ComponentDeclaration): JsonObject {
  const inputs = Object.entries(component.inputs);
  const outputs = Object.entries(component.outputs);
  return {
    isComponent: true,
    description: registryDescription(component.token, component.doc),
    inputProperties: Object.fromEntries(inputs.map(([name, field]) => [name, inputProperty(field)])),
    requiredInputs: inputs.filter(([, field]) => field.required === true).map(([name]) => name),
    properties: Object.fromEntries(outputs.map(([name, field]) => [name, outputProperty(field)])),
    required: outputs.filter(([, field]) => field.optional !== true).map(([name]) => name),
  };
}

function typeSchema(type: TypeDeclaration): JsonObject {
  if (type.kind === "enum") {
    return {
      type: "string",
      description: type.doc,
      enum: type.values.map((v) => ({ name: v.name, value: v.value, description: v.doc })),
    };
  }
  return {
    type: "object",
    description: type.doc,
    properties: Object.fromEntries(
      Object.entries(type.members).map(([name, member]) => [
        name,
        { ...typeSpec(member.type), description: member.doc },
      ]),
    ),
  };
}

function settingSchema(setting: SettingDeclaration): JsonObject {
  return {
    type: setting.type,
    description: setting.doc,
    ...(setting.secret === true ? { secret: true } : {}),
    ...(setting.default === undefined ? {} : { default: setting.default }),
    ...(setting.env === undefined ? {} : { defaultInfo: { environment: [setting.env] } }),
  };
}

/** The package schema, without `version` (the plugin adds the package's own at `GetSchema`). */
export function renderPackageSchema(): JsonObject {
  const settings = Object.fromEntries(SETTINGS.map((s) => [s.name, settingSchema(s)]));
  return {
    ...PACKAGE,
    config: { variables: settings },
    provider: {
      description: PROVIDER_DOC,
      inputProperties: settings,
      // A provider resource's outputs: its identity, the settings no client can do without.
      properties: Object.fromEntries(
        SETTINGS.filter((s) => "required" in s).map((s) => [s.name, settingSchema(s)]),
      ),
    },
    types: {
      ...Object.fromEntries(SHARED_TYPES.map((t) => [t.token, typeSchema(t)])),
      ...renderResultTypes(),
    },
    resources: {
      ...Object.fromEntries(RESOURCES.map((r) => [r.token, resourceSchema(r)])),
      ...Object.fromEntries(COMPONENTS.map((c) => [c.token, componentSchema(c)])),
    },
    functions: renderFunctions(),
    language: LANGUAGE,
  };
}
