/**
 * The Registry documentation of each resource and function beyond its one-paragraph `doc`: an
 * `## Example Usage` program in TypeScript, Python, Go and YAML, and for each resource an `## Import`
 * section. `package-schema.ts` and `function-schema.ts` append them to the descriptions in
 * `schema.json`, in the `{{% examples %}}`/`{{% example %}}` form Pulumi's docs generator and SDK
 * generators read (each SDK keeps its own language's block in its doc comments).
 *
 * Every program here is a whole program a user can paste: test/integration/schema-examples.test.ts
 * extracts them from `schema.json`, type-checks the TypeScript against the native SDK, builds the Go
 * against sdk/go/broker, runs the Python with the generated SDK under Pulumi's mocks, and checks the
 * YAML's types, properties and function arguments against the schema.
 */

/** One example program in each language the Registry shows. */
export interface ExamplePrograms {
  /** The example's heading, such as "A workspace tree". */
  readonly title: string;
  readonly typescript: string;
  readonly python: string;
  readonly go: string;
  readonly yaml: string;
}

/** What the Registry shows of a resource or function besides its `doc`. */
export interface RegistryDocs {
  readonly examples: readonly ExamplePrograms[];
  /** Resources only: the `## Import` section's text, without its heading. */
  readonly import?: string;
}

/** The Go program around `body`: the imports every example needs, and `pulumi.Run`. */
function goProgram(body: string, extraImports: readonly string[] = []): string {
  const imports = [
    '"github.com/pulumi-broker-config/pulumi-broker-config/sdk/go/broker"',
    '"github.com/pulumi/pulumi/sdk/v3/go/pulumi"',
    ...extraImports,
  ];
  const indented = body
    .trim()
    .split("\n")
    .map((line) => (line === "" ? "" : `\t\t${line}`))
    .join("\n");
  return `package main

import (
${imports.map((i) => `\t${i}`).join("\n")}
)

func main() {
\tpulumi.Run(func(ctx *pulumi.Context) error {
${indented}
\t\treturn nil
\t})
}
`;
}

/** Code as the examples carry it: trimmed, with one final newline. */
function code(text: string): string {
  return `${text.trim()}\n`;
}

const WORKSPACE_DOCS: RegistryDocs = {
  examples: [
    {
      title: "A workspace tree",
      typescript: code(`
import * as broker from "pulumi-broker-config/native";

const platform = new broker.Workspace("platform", { name: "platform" });
const orders = new broker.Workspace("orders", {
    name: "orders",
    parentId: platform.workspaceId,
});

export const ordersPath = orders.path;
`),
      python: code(`
import pulumi
import pulumi_broker as broker

platform = broker.Workspace("platform", name="platform")
orders = broker.Workspace("orders", name="orders", parent_id=platform.workspace_id)

pulumi.export("ordersPath", orders.path)
`),
      go: goProgram(`
platform, err := broker.NewWorkspace(ctx, "platform", &broker.WorkspaceArgs{
	Name: pulumi.String("platform"),
})
if err != nil {
	return err
}
orders, err := broker.NewWorkspace(ctx, "orders", &broker.WorkspaceArgs{
	Name:     pulumi.String("orders"),
	ParentId: platform.WorkspaceId,
})
if err != nil {
	return err
}
ctx.Export("ordersPath", orders.Path)
`),
      yaml: code(`
resources:
  platform:
    type: broker:index:Workspace
    properties:
      name: platform
  orders:
    type: broker:index:Workspace
    properties:
      name: orders
      parentId: \${platform.workspaceId}
outputs:
  ordersPath: \${orders.path}
`),
    },
  ],
  import: `A workspace is imported by its numeric id on the broker (its \`workspaceId\`, which \`getWorkspace\` or \`broker-config export\` shows). Pulumi reads its name and parent from the broker and prints the inputs to declare:

\`\`\`sh
$ pulumi import broker:index:Workspace orders 42
\`\`\`
`,
};

const ACCESS_KEY_DOCS: RegistryDocs = {
  examples: [
    {
      title: "A SERVICE key with its permissions",
      typescript: code(`
import * as broker from "pulumi-broker-config/native";

const ordersService = new broker.AccessKey("orders-service", {
    name: "orders-service",
    type: broker.AccessKeyType.Service,
    permissions: {
        send: ["orders/created"],
        receive: ["payments/*"],
    },
});

export const ordersServiceId = ordersService.accessKeyId;
export const ordersKey = ordersService.accessKey; // a secret
`),
      python: code(`
import pulumi
import pulumi_broker as broker

orders_service = broker.AccessKey(
    "orders-service",
    name="orders-service",
    type=broker.AccessKeyType.SERVICE,
    permissions=broker.PermissionsArgs(
        send=["orders/created"],
        receive=["payments/*"],
    ),
)

pulumi.export("ordersServiceId", orders_service.access_key_id)
pulumi.export("ordersKey", orders_service.access_key)  # a secret
`),
      go: goProgram(`
ordersService, err := broker.NewAccessKey(ctx, "orders-service", &broker.AccessKeyArgs{
	Name: pulumi.String("orders-service"),
	Type: broker.AccessKeyTypeSERVICE,
	Permissions: &broker.PermissionsArgs{
		Send:    pulumi.StringArray{pulumi.String("orders/created")},
		Receive: pulumi.StringArray{pulumi.String("payments/*")},
	},
})
if err != nil {
	return err
}
ctx.Export("ordersServiceId", ordersService.AccessKeyId)
ctx.Export("ordersKey", ordersService.AccessKey) // a secret
`),
      yaml: code(`
resources:
  ordersService:
    type: broker:index:AccessKey
    properties:
      name: orders-service
      type: SERVICE
      permissions:
        send: ["orders/created"]
        receive: ["payments/*"]
outputs:
  ordersServiceId: \${ordersService.accessKeyId}
  ordersKey: \${ordersService.accessKey}
`),
    },
  ],
  import: `An access key is imported by its numeric id on the broker (its \`accessKeyId\`, which \`getAccessKeys\` or \`broker-config export\` shows). Pulumi reads its name, type and permissions from the broker and prints the inputs to declare; the key's value becomes its \`accessKey\` output, a secret:

\`\`\`sh
$ pulumi import broker:index:AccessKey orders-service 34
\`\`\`
`,
};

const SERVICE_KEY_PAIR_DOCS: RegistryDocs = {
  examples: [
    {
      title: "The key pair of a SERVICE key, rotated on demand",
      typescript: code(`
import * as broker from "pulumi-broker-config/native";

const ordersService = new broker.AccessKey("orders-service", {
    name: "orders-service",
    type: broker.AccessKeyType.Service,
    permissions: { send: ["orders/created"] },
});
// Change the trigger's value to give the key a new pair.
const ordersPair = new broker.ServiceKeyPair("orders-pair", {
    accessKey: ordersService.accessKey,
    rotationTriggers: { generation: "1" },
});

export const ordersPublicKey = ordersPair.publicKey;
export const ordersPrivateKey = ordersPair.privateKey; // a secret
`),
      python: code(`
import pulumi
import pulumi_broker as broker

orders_service = broker.AccessKey(
    "orders-service",
    name="orders-service",
    type=broker.AccessKeyType.SERVICE,
    permissions=broker.PermissionsArgs(send=["orders/created"]),
)
# Change the trigger's value to give the key a new pair.
orders_pair = broker.ServiceKeyPair(
    "orders-pair",
    access_key=orders_service.access_key,
    rotation_triggers={"generation": "1"},
)

pulumi.export("ordersPublicKey", orders_pair.public_key)
pulumi.export("ordersPrivateKey", orders_pair.private_key)  # a secret
`),
      go: goProgram(`
ordersService, err := broker.NewAccessKey(ctx, "orders-service", &broker.AccessKeyArgs{
	Name: pulumi.String("orders-service"),
	Type: broker.AccessKeyTypeSERVICE,
	Permissions: &broker.PermissionsArgs{
		Send: pulumi.StringArray{pulumi.String("orders/created")},
	},
})
if err != nil {
	return err
}
// Change the trigger's value to give the key a new pair.
ordersPair, err := broker.NewServiceKeyPair(ctx, "orders-pair", &broker.ServiceKeyPairArgs{
	AccessKey:        ordersService.AccessKey,
	RotationTriggers: pulumi.StringMap{"generation": pulumi.String("1")},
})
if err != nil {
	return err
}
ctx.Export("ordersPublicKey", ordersPair.PublicKey)
ctx.Export("ordersPrivateKey", ordersPair.PrivateKey) // a secret
`),
      yaml: code(`
resources:
  ordersService:
    type: broker:index:AccessKey
    properties:
      name: orders-service
      type: SERVICE
      permissions:
        send: ["orders/created"]
  # Change the trigger's value to give the key a new pair.
  ordersPair:
    type: broker:index:ServiceKeyPair
    properties:
      accessKey: \${ordersService.accessKey}
      rotationTriggers:
        generation: "1"
outputs:
  ordersPublicKey: \${ordersPair.publicKey}
  ordersPrivateKey: \${ordersPair.privateKey}
`),
    },
  ],
  import: `A ServiceKeyPair cannot be imported: the broker returns a pair's private key only once, when it makes the pair, so no id can give it back (\`pulumi import\` fails with a message saying so). Declare a ServiceKeyPair for the SERVICE key instead: creating it gives the key a new pair.
`,
};

const GET_WORKSPACE_DOCS: RegistryDocs = {
  examples: [
    {
      title: "A workspace under one made elsewhere",
      typescript: code(`
import * as broker from "pulumi-broker-config/native";

const platform = broker.getWorkspaceOutput({ path: "/platform" });
const billing = new broker.Workspace("billing", {
    name: "billing",
    parentId: platform.id,
});

export const billingPath = billing.path;
`),
      python: code(`
import pulumi
import pulumi_broker as broker

platform = broker.get_workspace_output(path="/platform")
billing = broker.Workspace("billing", name="billing", parent_id=platform.id)

pulumi.export("billingPath", billing.path)
`),
      go: goProgram(`
platform := broker.LookupWorkspaceOutput(ctx, broker.LookupWorkspaceOutputArgs{
	Path: pulumi.String("/platform"),
})
billing, err := broker.NewWorkspace(ctx, "billing", &broker.WorkspaceArgs{
	Name:     pulumi.String("billing"),
	ParentId: platform.Id(),
})
if err != nil {
	return err
}
ctx.Export("billingPath", billing.Path)
`),
      yaml: code(`
variables:
  platform:
    fn::invoke:
      function: broker:index:getWorkspace
      arguments:
        path: /platform
resources:
  billing:
    type: broker:index:Workspace
    properties:
      name: billing
      parentId: \${platform.id}
outputs:
  billingPath: \${billing.path}
`),
    },
  ],
};

const GET_WORKSPACES_DOCS: RegistryDocs = {
  examples: [
    {
      title: "Every workspace of a name",
      typescript: code(`
import * as broker from "pulumi-broker-config/native";

const orders = broker.getWorkspacesOutput({ name: "orders" });

export const ordersPaths = orders.workspaces.apply((workspaces) => workspaces.map((w) => w.path));
`),
      python: code(`
import pulumi
import pulumi_broker as broker

orders = broker.get_workspaces_output(name="orders")

pulumi.export("ordersPaths", orders.workspaces.apply(lambda workspaces: [w.path for w in workspaces]))
`),
      go: goProgram(`
orders := broker.GetWorkspacesOutput(ctx, broker.GetWorkspacesOutputArgs{
	Name: pulumi.String("orders"),
})
ctx.Export("ordersPaths", orders.Workspaces().ApplyT(func(workspaces []broker.WorkspaceInfo) []string {
	paths := make([]string, len(workspaces))
	for i, w := range workspaces {
		paths[i] = w.Path
	}
	return paths
}))
`),
      yaml: code(`
variables:
  orders:
    fn::invoke:
      function: broker:index:getWorkspaces
      arguments:
        name: orders
outputs:
  ordersWorkspaces: \${orders.workspaces}
`),
    },
  ],
};

const GET_ACCESS_KEY_DOCS: RegistryDocs = {
  examples: [
    {
      title: "A key made by another program",
      typescript: code(`
import * as broker from "pulumi-broker-config/native";

const billing = broker.getAccessKeyOutput({ name: "billing-service", type: broker.AccessKeyType.Service });

export const billingKeyId = billing.id;
export const billingKey = billing.accessKey; // a secret
`),
      python: code(`
import pulumi
import pulumi_broker as broker

billing = broker.get_access_key_output(name="billing-service", type=broker.AccessKeyType.SERVICE)

pulumi.export("billingKeyId", billing.id)
pulumi.export("billingKey", billing.access_key)  # a secret
`),
      go: goProgram(`
billing := broker.LookupAccessKeyOutput(ctx, broker.LookupAccessKeyOutputArgs{
	Name: pulumi.String("billing-service"),
	Type: broker.AccessKeyTypeSERVICE,
})
ctx.Export("billingKeyId", billing.Id())
ctx.Export("billingKey", billing.AccessKey()) // a secret
`),
      yaml: code(`
variables:
  billing:
    fn::invoke:
      function: broker:index:getAccessKey
      arguments:
        name: billing-service
        type: SERVICE
outputs:
  billingKeyId: \${billing.id}
  billingKey: \${billing.accessKey}
`),
    },
  ],
};

const GET_ACCESS_KEYS_DOCS: RegistryDocs = {
  examples: [
    {
      title: "The SERVICE keys that touch orders",
      typescript: code(`
import * as broker from "pulumi-broker-config/native";

const ordersKeys = broker.getAccessKeysOutput({
    type: broker.AccessKeyType.Service,
    eventPathPrefix: "orders/",
});

export const ordersKeyNames = ordersKeys.accessKeys.apply((keys) => keys.map((k) => k.name));
`),
      python: code(`
import pulumi
import pulumi_broker as broker

orders_keys = broker.get_access_keys_output(type=broker.AccessKeyType.SERVICE, event_path_prefix="orders/")

pulumi.export("ordersKeyNames", orders_keys.access_keys.apply(lambda keys: [k.name for k in keys]))
`),
      go: goProgram(`
ordersKeys := broker.GetAccessKeysOutput(ctx, broker.GetAccessKeysOutputArgs{
	Type:            broker.AccessKeyTypeSERVICE,
	EventPathPrefix: pulumi.String("orders/"),
})
ctx.Export("ordersKeyNames", ordersKeys.AccessKeys().ApplyT(func(keys []broker.AccessKeyInfo) []string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Name
	}
	return names
}))
`),
      yaml: code(`
variables:
  ordersKeys:
    fn::invoke:
      function: broker:index:getAccessKeys
      arguments:
        type: SERVICE
        eventPathPrefix: orders/
outputs:
  ordersKeys: \${ordersKeys.accessKeys}
`),
    },
  ],
};

const VERIFY_ACCESS_KEY_DOCS: RegistryDocs = {
  examples: [
    {
      title: "Check a key handed over in stack config",
      typescript: code(`
import * as pulumi from "@pulumi/pulumi";
import * as broker from "pulumi-broker-config/native";

const config = new pulumi.Config();
const partnerKey = broker.verifyAccessKeyOutput({ accessKey: config.requireSecret("partnerKey") });

export const partnerKeyValid = partnerKey.valid;
`),
      python: code(`
import pulumi
import pulumi_broker as broker

config = pulumi.Config()
partner_key = broker.verify_access_key_output(access_key=config.require_secret("partnerKey"))

pulumi.export("partnerKeyValid", partner_key.valid)
`),
      go: goProgram(
        `
partnerKey := broker.VerifyAccessKeyOutput(ctx, broker.VerifyAccessKeyOutputArgs{
	AccessKey: config.RequireSecret(ctx, "partnerKey"),
})
ctx.Export("partnerKeyValid", partnerKey.Valid())
`,
        ['"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"'],
      ),
      yaml: code(`
config:
  partnerKey:
    type: string
    secret: true
variables:
  partnerCheck:
    fn::invoke:
      function: broker:index:verifyAccessKey
      arguments:
        accessKey: \${partnerKey}
outputs:
  partnerKeyValid: \${partnerCheck.valid}
`),
    },
  ],
};

/**
 * The document of the Python Environment example, written out: that example runs under Pulumi's mocks
 * in the tests, where no file is beside it. The other languages read the file, as users do.
 */
const ENVIRONMENT_DOCUMENT = `version: 1
adopt: true
workspaces:
  - name: platform
    children:
      - name: orders
accessKeys:
  - name: orders-svc
    type: SERVICE
    permissions:
      send: [orders/created]
      receive: [payments/*]
`;

const ENVIRONMENT_DOCS: RegistryDocs = {
  examples: [
    {
      title: "An environment from the document another one exported",
      typescript: code(`
import * as fs from "fs";
import * as broker from "pulumi-broker-config/native";

// broker.yaml: what \`broker-config export\` wrote from another environment.
const prod = new broker.Environment("prod", {
    document: fs.readFileSync("broker.yaml", "utf8"),
    documentName: "broker.yaml",
});

export const workspaceIds = prod.workspaces;
export const keyIds = prod.accessKeys;
export const keyValues = prod.accessKeyValues; // a secret
`),
      python: code(`
import pulumi
import pulumi_broker as broker

# What \`broker-config export\` wrote from another environment; usually read from its file:
# document = open("broker.yaml", encoding="utf-8").read()
document = """
${ENVIRONMENT_DOCUMENT}"""
prod = broker.Environment("prod", document=document, document_name="broker.yaml")

pulumi.export("workspaceIds", prod.workspaces)
pulumi.export("keyIds", prod.access_keys)
pulumi.export("keyValues", prod.access_key_values)  # a secret
`),
      go: goProgram(
        `
// broker.yaml: what \`broker-config export\` wrote from another environment.
document, err := os.ReadFile("broker.yaml")
if err != nil {
	return err
}
prod, err := broker.NewEnvironment(ctx, "prod", &broker.EnvironmentArgs{
	Document:     pulumi.String(string(document)),
	DocumentName: pulumi.String("broker.yaml"),
})
if err != nil {
	return err
}
ctx.Export("workspaceIds", prod.Workspaces)
ctx.Export("keyIds", prod.AccessKeys)
ctx.Export("keyValues", prod.AccessKeyValues) // a secret
`,
        ['"os"'],
      ),
      yaml: code(`
resources:
  # broker.yaml: what \`broker-config export\` wrote from another environment.
  prod:
    type: broker:index:Environment
    properties:
      document:
        fn::readFile: ./broker.yaml
      documentName: broker.yaml
outputs:
  workspaceIds: \${prod.workspaces}
  keyIds: \${prod.accessKeys}
  keyValues: \${prod.accessKeyValues}
`),
    },
  ],
  import: `An Environment is a component: it is not imported itself. Its children are ordinary resources: to take over an environment that already exists, set \`adopt: true\` in the document (what \`broker-config export\` writes), and each Workspace and AccessKey of it is adopted on the first \`pulumi up\` instead of created again. To import one object by its id, declare it as a Workspace or AccessKey of its own and import that.
`,
};

/** The Registry documentation of each resource and function, by token. */
export const REGISTRY_DOCS: Readonly<Record<string, RegistryDocs>> = {
  "broker:index:Workspace": WORKSPACE_DOCS,
  "broker:index:AccessKey": ACCESS_KEY_DOCS,
  "broker:index:ServiceKeyPair": SERVICE_KEY_PAIR_DOCS,
  "broker:index:getWorkspace": GET_WORKSPACE_DOCS,
  "broker:index:getWorkspaces": GET_WORKSPACES_DOCS,
  "broker:index:getAccessKey": GET_ACCESS_KEY_DOCS,
  "broker:index:getAccessKeys": GET_ACCESS_KEYS_DOCS,
  "broker:index:verifyAccessKey": VERIFY_ACCESS_KEY_DOCS,
  "broker:index:Environment": ENVIRONMENT_DOCS,
};

/** The languages of each example, in the order the Registry's tabs list them. */
export const EXAMPLE_LANGUAGES = ["typescript", "python", "go", "yaml"] as const;

/**
 * The schema description of the resource or function `token`: its `doc`, then its examples in the
 * `{{% examples %}}` form and, for a resource, its `## Import` section.
 * @throws when `token` has no entry in {@link REGISTRY_DOCS}: every resource and function has one.
 */
export function registryDescription(token: string, doc: string): string {
  const docs = REGISTRY_DOCS[token];
  if (docs === undefined) throw new Error(`no Registry documentation (examples) declared for ${token}`);
  const examples = docs.examples
    .map((example) => {
      const blocks = EXAMPLE_LANGUAGES.map((language) => `\`\`\`${language}\n${example[language]}\`\`\``);
      return `{{% example %}}\n### ${example.title}\n\n${blocks.join("\n")}\n{{% /example %}}`;
    })
    .join("\n");
  const parts = [doc, `{{% examples %}}\n## Example Usage\n\n${examples}\n{{% /examples %}}`];
  if (docs.import !== undefined) parts.push(`## Import\n\n${docs.import}`);
  return parts.join("\n\n");
}
