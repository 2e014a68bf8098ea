/**
 * The Registry documentation of each resource and function beyond its one-paragraph `doc`: an
 * `## Example Usage` program in TypeScript, Python, Go and YAML, and for each resource an `## Import`
 * section. `package-schema.ts` and `function-schema.ts` append them to the descriptions in
 * `schema.json`, in the `{{% examples %}}`/`{{% example %}}` form Pulumi's docs generator and SDK
 * generators read (each SDK keeps its own language's block in its doc comments).
 *
 * Every program here is a whole program a user can paste, put together from snippets so that each
 * piece of program has one text. test/integration/schema-examples.test.ts extracts them from
 * `schema.json` and runs the TypeScript (against the native SDK), the Go (against sdk/go/broker) and
 * the Python under Pulumi's mocks, the first two checked against what the YAML program shows;
 * test/e2e/yaml-examples.test.ts runs the YAML through the real CLI against the emulator.
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

/** Code as the examples carry it: trimmed, with one final newline. */
function code(text: string): string {
  return `${text.trim()}\n`;
}

/** The sections of a Pulumi YAML program, in the order a program lists them. */
const YAML_SECTIONS = ["config", "variables", "resources", "outputs"] as const;

/**
 * One piece of an example, in every language: what it declares and the stack outputs it exports.
 * Examples are put together from pieces, so a piece two examples show (the SERVICE key a key pair is
 * made for) has one text, and the examples cannot drift apart.
 */
interface Snippet {
  /** TypeScript statements, after the imports. */
  readonly typescript: Code;
  /** Python statements, after the imports. */
  readonly python: Code;
  /** Go statements inside `pulumi.Run`'s function, before its `return nil`. */
  readonly go: Code;
  /** The snippet's entries of each YAML section, indented as they stand in the program. */
  readonly yaml: Partial<Record<(typeof YAML_SECTIONS)[number], string>>;
  /** What the snippet needs imported beyond the package: whole TypeScript lines, Go import paths. */
  readonly imports?: { readonly typescript?: readonly string[]; readonly go?: readonly string[] };
}

/** A piece of code in one language: its declarations, and the stack outputs it exports. */
interface Code {
  readonly body: string;
  readonly exports?: string;
}

/** `text` without its leading and trailing blank lines (and with no final newline). */
function lines(text: string): string {
  return text.replace(/^\s*\n/u, "").trimEnd();
}

/**
 * The bodies of `snippets` and then their exports: after a blank line in TypeScript and Python, on the
 * next line in Go, where each body ends with its error check.
 */
function statements(snippets: readonly Snippet[], language: "typescript" | "python" | "go"): string {
  const bodies = snippets.map((s) => lines(s[language].body)).join("\n");
  const exports = snippets.flatMap((s) =>
    s[language].exports === undefined ? [] : [lines(s[language].exports)],
  );
  const gap = language === "go" ? "\n" : "\n\n";
  return exports.length === 0 ? bodies : `${bodies}${gap}${exports.join("\n")}`;
}

/** The Go program around `body`: the imports every example needs and `extraImports`, and `pulumi.Run`. */
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

/** The example `title`: one program per language made of `snippets`, in their order. */
function example(title: string, ...snippets: readonly Snippet[]): ExamplePrograms {
  const imports = (language: "typescript" | "go"): string[] => [
    ...new Set(snippets.flatMap((s) => s.imports?.[language] ?? [])),
  ];
  const typescriptImports = [
    ...imports("typescript"),
    'import * as broker from "pulumi-broker-config/native";',
  ];
  const yaml = YAML_SECTIONS.flatMap((section) => {
    const entries = snippets.flatMap((s) => (s.yaml[section] === undefined ? [] : [lines(s.yaml[section])]));
    return entries.length === 0 ? [] : [`${section}:\n${entries.join("\n")}`];
  });
  return {
    title,
    typescript: code(`${typescriptImports.join("\n")}\n\n${statements(snippets, "typescript")}`),
    python: code(`import pulumi\nimport pulumi_broker as broker\n\n${statements(snippets, "python")}`),
    go: goProgram(statements(snippets, "go"), imports("go")),
    yaml: code(yaml.join("\n")),
  };
}

/** A workspace and one under it. */
const WORKSPACE_TREE: Snippet = {
  typescript: {
    body: `
const platform = new broker.Workspace("platform", { name: "platform" });
const orders = new broker.Workspace("orders", {
    name: "orders",
    parentId: platform.workspaceId,
});
`,
    exports: `export const ordersPath = orders.path;`,
  },
  python: {
    body: `
platform = broker.Workspace("platform", name="platform")
orders = broker.Workspace("orders", name="orders", parent_id=platform.workspace_id)
`,
    exports: `pulumi.export("ordersPath", orders.path)`,
  },
  go: {
    body: `
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
`,
    exports: `ctx.Export("ordersPath", orders.Path)`,
  },
  yaml: {
    resources: `
  platform:
    type: broker:index:Workspace
    properties:
      name: platform
  orders:
    type: broker:index:Workspace
    properties:
      name: orders
      parentId: \${platform.workspaceId}
`,
    outputs: `  ordersPath: \${orders.path}`,
  },
};

/** A SERVICE key with its permissions: the key the key pair example is made for. */
const ORDERS_SERVICE_KEY: Snippet = {
  typescript: {
    body: `
const ordersService = new broker.AccessKey("orders-service", {
    name: "orders-service",
    type: broker.AccessKeyType.Service,
    permissions: {
        send: ["orders/created"],
        receive: ["payments/*"],
    },
});
`,
    exports: `
export const ordersServiceId = ordersService.accessKeyId;
export const ordersKey = ordersService.accessKey; // a secret
`,
  },
  python: {
    body: `
orders_service = broker.AccessKey(
    "orders-service",
    name="orders-service",
    type=broker.AccessKeyType.SERVICE,
    permissions=broker.PermissionsArgs(
        send=["orders/created"],
        receive=["payments/*"],
    ),
)
`,
    exports: `
pulumi.export("ordersServiceId", orders_service.access_key_id)
pulumi.export("ordersKey", orders_service.access_key)  # a secret
`,
  },
  go: {
    body: `
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
`,
    exports: `
ctx.Export("ordersServiceId", ordersService.AccessKeyId)
ctx.Export("ordersKey", ordersService.AccessKey) // a secret
`,
  },
  yaml: {
    resources: `
  ordersService:
    type: broker:index:AccessKey
    properties:
      name: orders-service
      type: SERVICE
      permissions:
        send: ["orders/created"]
        receive: ["payments/*"]
`,
    outputs: `
  ordersServiceId: \${ordersService.accessKeyId}
  ordersKey: \${ordersService.accessKey}
`,
  },
};

/** The key pair of {@link ORDERS_SERVICE_KEY}, rotated by a trigger. */
const ORDERS_KEY_PAIR: Snippet = {
  typescript: {
    body: `
// Change the trigger's value to give the key a new pair.
const ordersPair = new broker.ServiceKeyPair("orders-pair", {
    accessKey: ordersService.accessKey,
    rotationTriggers: { generation: "1" },
});
`,
    exports: `
export const ordersPublicKey = ordersPair.publicKey;
export const ordersPrivateKey = ordersPair.privateKey; // a secret
`,
  },
  python: {
    body: `
# Change the trigger's value to give the key a new pair.
orders_pair = broker.ServiceKeyPair(
    "orders-pair",
    access_key=orders_service.access_key,
    rotation_triggers={"generation": "1"},
)
`,
    exports: `
pulumi.export("ordersPublicKey", orders_pair.public_key)
pulumi.export("ordersPrivateKey", orders_pair.private_key)  # a secret
`,
  },
  go: {
    body: `
// Change the trigger's value to give the key a new pair.
ordersPair, err := broker.NewServiceKeyPair(ctx, "orders-pair", &broker.ServiceKeyPairArgs{
	AccessKey:        ordersService.AccessKey,
	RotationTriggers: pulumi.StringMap{"generation": pulumi.String("1")},
})
if err != nil {
	return err
}
`,
    exports: `
ctx.Export("ordersPublicKey", ordersPair.PublicKey)
ctx.Export("ordersPrivateKey", ordersPair.PrivateKey) // a secret
`,
  },
  yaml: {
    resources: `
  # Change the trigger's value to give the key a new pair.
  ordersPair:
    type: broker:index:ServiceKeyPair
    properties:
      accessKey: \${ordersService.accessKey}
      rotationTriggers:
        generation: "1"
`,
    outputs: `
  ordersPublicKey: \${ordersPair.publicKey}
  ordersPrivateKey: \${ordersPair.privateKey}
`,
  },
};

const WORKSPACE_DOCS: RegistryDocs = {
  examples: [example("A workspace tree", WORKSPACE_TREE)],
  import: `A workspace is imported by its numeric id on the broker (its \`workspaceId\`, which \`getWorkspace\` or \`broker-config export\` shows). Pulumi reads its name and parent from the broker and prints the inputs to declare:

\`\`\`sh
$ pulumi import broker:index:Workspace orders 42
\`\`\`
`,
};

const ACCESS_KEY_DOCS: RegistryDocs = {
  examples: [example("A SERVICE key with its permissions", ORDERS_SERVICE_KEY)],
  import: `An access key is imported by its numeric id on the broker (its \`accessKeyId\`, which \`getAccessKeys\` or \`broker-config export\` shows). Pulumi reads its name, type and permissions from the broker and prints the inputs to declare; the key's value becomes its \`accessKey\` output, a secret:

\`\`\`sh
$ pulumi import broker:index:AccessKey orders-service 34
\`\`\`
`,
};

const SERVICE_KEY_PAIR_DOCS: RegistryDocs = {
  examples: [
    example("The key pair of a SERVICE key, rotated on demand", ORDERS_SERVICE_KEY, ORDERS_KEY_PAIR),
  ],
  import: `A ServiceKeyPair cannot be imported: the broker returns a pair's private key only once, when it makes the pair, so no id can give it back (\`pulumi import\` fails with a message saying so). Declare a ServiceKeyPair for the SERVICE key instead: creating it gives the key a new pair.
`,
};

const GET_WORKSPACE_DOCS: RegistryDocs = {
  examples: [
    example("A workspace under one made elsewhere", {
      typescript: {
        body: `
const platform = broker.getWorkspaceOutput({ path: "/platform" });
const billing = new broker.Workspace("billing", {
    name: "billing",
    parentId: platform.id,
});
`,
        exports: `export const billingPath = billing.path;`,
      },
      python: {
        body: `
platform = broker.get_workspace_output(path="/platform")
billing = broker.Workspace("billing", name="billing", parent_id=platform.id)
`,
        exports: `pulumi.export("billingPath", billing.path)`,
      },
      go: {
        body: `
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
`,
        exports: `ctx.Export("billingPath", billing.Path)`,
      },
      yaml: {
        variables: `
  platform:
    fn::invoke:
      function: broker:index:getWorkspace
      arguments:
        path: /platform
`,
        resources: `
  billing:
    type: broker:index:Workspace
    properties:
      name: billing
      parentId: \${platform.id}
`,
        outputs: `  billingPath: \${billing.path}`,
      },
    }),
  ],
};

const GET_WORKSPACES_DOCS: RegistryDocs = {
  examples: [
    example("Every workspace of a name", {
      typescript: {
        body: `const orders = broker.getWorkspacesOutput({ name: "orders" });`,
        exports: `export const ordersPaths = orders.workspaces.apply((workspaces) => workspaces.map((w) => w.path));`,
      },
      python: {
        body: `orders = broker.get_workspaces_output(name="orders")`,
        exports: `pulumi.export("ordersPaths", orders.workspaces.apply(lambda workspaces: [w.path for w in workspaces]))`,
      },
      go: {
        body: `
orders := broker.GetWorkspacesOutput(ctx, broker.GetWorkspacesOutputArgs{
	Name: pulumi.String("orders"),
})
`,
        exports: `
ctx.Export("ordersPaths", orders.Workspaces().ApplyT(func(workspaces []broker.WorkspaceInfo) []string {
	paths := make([]string, len(workspaces))
	for i, w := range workspaces {
		paths[i] = w.Path
	}
	return paths
}))
`,
      },
      yaml: {
        variables: `
  orders:
    fn::invoke:
      function: broker:index:getWorkspaces
      arguments:
        name: orders
`,
        outputs: `  ordersWorkspaces: \${orders.workspaces}`,
      },
    }),
  ],
};

const GET_ACCESS_KEY_DOCS: RegistryDocs = {
  examples: [
    example("A key made by another program", {
      typescript: {
        body: `const billing = broker.getAccessKeyOutput({ name: "billing-service", type: broker.AccessKeyType.Service });`,
        exports: `
export const billingKeyId = billing.id;
export const billingKey = billing.accessKey; // a secret
`,
      },
      python: {
        body: `billing = broker.get_access_key_output(name="billing-service", type=broker.AccessKeyType.SERVICE)`,
        exports: `
pulumi.export("billingKeyId", billing.id)
pulumi.export("billingKey", billing.access_key)  # a secret
`,
      },
      go: {
        body: `
billing := broker.LookupAccessKeyOutput(ctx, broker.LookupAccessKeyOutputArgs{
	Name: pulumi.String("billing-service"),
	Type: broker.AccessKeyTypeSERVICE,
})
`,
        exports: `
ctx.Export("billingKeyId", billing.Id())
ctx.Export("billingKey", billing.AccessKey()) // a secret
`,
      },
      yaml: {
        variables: `
  billing:
    fn::invoke:
      function: broker:index:getAccessKey
      arguments:
        name: billing-service
        type: SERVICE
`,
        outputs: `
  billingKeyId: \${billing.id}
  billingKey: \${billing.accessKey}
`,
      },
    }),
  ],
};

const GET_ACCESS_KEYS_DOCS: RegistryDocs = {
  examples: [
    example("The SERVICE keys that touch orders", {
      typescript: {
        body: `
const ordersKeys = broker.getAccessKeysOutput({
    type: broker.AccessKeyType.Service,
    eventPathPrefix: "orders/",
});
`,
        exports: `export const ordersKeyNames = ordersKeys.accessKeys.apply((keys) => keys.map((k) => k.name));`,
      },
      python: {
        body: `orders_keys = broker.get_access_keys_output(type=broker.AccessKeyType.SERVICE, event_path_prefix="orders/")`,
        exports: `pulumi.export("ordersKeyNames", orders_keys.access_keys.apply(lambda keys: [k.name for k in keys]))`,
      },
      go: {
        body: `
ordersKeys := broker.GetAccessKeysOutput(ctx, broker.GetAccessKeysOutputArgs{
	Type:            broker.AccessKeyTypeSERVICE,
	EventPathPrefix: pulumi.String("orders/"),
})
`,
        exports: `
ctx.Export("ordersKeyNames", ordersKeys.AccessKeys().ApplyT(func(keys []broker.AccessKeyInfo) []string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Name
	}
	return names
}))
`,
      },
      yaml: {
        variables: `
  ordersKeys:
    fn::invoke:
      function: broker:index:getAccessKeys
      arguments:
        type: SERVICE
        eventPathPrefix: orders/
`,
        outputs: `  ordersKeys: \${ordersKeys.accessKeys}`,
      },
    }),
  ],
};

const VERIFY_ACCESS_KEY_DOCS: RegistryDocs = {
  examples: [
    example("Check a key handed over in stack config", {
      imports: {
        typescript: ['import * as pulumi from "@pulumi/pulumi";'],
        go: ['"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"'],
      },
      typescript: {
        body: `
const config = new pulumi.Config();
const partnerKey = broker.verifyAccessKeyOutput({ accessKey: config.requireSecret("partnerKey") });
`,
        exports: `export const partnerKeyValid = partnerKey.valid;`,
      },
      python: {
        body: `
config = pulumi.Config()
partner_key = broker.verify_access_key_output(access_key=config.require_secret("partnerKey"))
`,
        exports: `pulumi.export("partnerKeyValid", partner_key.valid)`,
      },
      go: {
        body: `
partnerKey := broker.VerifyAccessKeyOutput(ctx, broker.VerifyAccessKeyOutputArgs{
	AccessKey: config.RequireSecret(ctx, "partnerKey"),
})
`,
        exports: `ctx.Export("partnerKeyValid", partnerKey.Valid())`,
      },
      yaml: {
        config: `
  partnerKey:
    type: string
    secret: true
`,
        variables: `
  partnerCheck:
    fn::invoke:
      function: broker:index:verifyAccessKey
      arguments:
        accessKey: \${partnerKey}
`,
        outputs: `  partnerKeyValid: \${partnerCheck.valid}`,
      },
    }),
  ],
};

/**
 * The files the examples read from beside the program, by name: the Environment example's
 * `broker.yaml`, as `broker-config export` writes it. The tests write them beside every example
 * program they run, so the examples read their file as users' programs do.
 */
export const EXAMPLE_FILES: Readonly<Record<string, string>> = {
  "broker.yaml": `version: 1
adopt: true
workspaces:
  - name: shop
    children:
      - name: checkout
accessKeys:
  - name: checkout-svc
    type: SERVICE
    permissions:
      send: [checkout/completed]
      receive: [payments/*]
`,
};

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

# broker.yaml: what \`broker-config export\` wrote from another environment.
with open("broker.yaml", encoding="utf-8") as file:
    document = file.read()
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
  import: `An Environment is a component: it is not imported itself. Its children are ordinary resources: to take over an environment that already exists, set \`adopt: true\` in the document (what \`broker-config export\` writes), and each Workspace and AccessKey of it is adopted on the first \`pulumi up\` instead of created again; a destroy then leaves what was adopted as it was found (set \`onDelete: revoke\` to revoke adopted keys). To import one object by its id, declare it as a Workspace or AccessKey of its own and import that.
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
