/** `broker:index:Environment`, the multi-language component, declared once: see `fields.ts`. */
import { ANY, INTEGER, mapOf, STRING, type ComponentDeclaration } from "./fields";

/** The name problems of a `document` are reported under when `documentName` is absent. */
export const DEFAULT_DOCUMENT_NAME = "document";

/** A whole environment (workspace tree and access keys) from one configuration document. */
export const ENVIRONMENT = {
  token: "broker:index:Environment",
  name: "Environment",
  doc: "A whole broker environment from one configuration document: the workspace tree and the access keys of the YAML or JSON document `broker-config export` writes (the format the dynamic door's `BrokerConfig` reads), deployed as one `Workspace` per node of the tree and one `AccessKey` per key, all children of this component, with the same adoption, endpoint guard and provider as those resources have when declared one by one. Give exactly one of `document` (the text) and `config` (an object). The document is checked before any child is declared, so a mistake fails `pulumi preview` before any request, naming `<documentName>:line:column` and the path of every problem. Child names derive from the workspace path and the key name (`<name>:workspace:/platform/orders`, `<name>:access-key:orders-svc`): renaming or moving one in the document replaces it; removing a key revokes it on the next `pulumi up` (unless `onDelete: retain`, or the stack adopted it and `onDelete` is not `revoke`: an adopted key is left as it was found), removing a workspace only forgets it (the API cannot delete workspaces).",
  inputs: {
    document: {
      kind: "input",
      type: STRING,
      doc: "The configuration document as YAML or JSON text, such as the file `broker-config export` wrote (read it with your language's file functions, or `fn::readFile` in YAML). Exactly one of `document` and `config`. It must be known when the program runs (not the output of another resource): it decides which resources exist.",
    },
    documentName: {
      kind: "input",
      type: STRING,
      doc: "The name the document's problems are reported under, such as the file it was read from (`broker.yaml` gives `broker.yaml:14:9 accessKeys[1].type: …`).",
      default: DEFAULT_DOCUMENT_NAME,
    },
    config: {
      kind: "input",
      type: mapOf(ANY),
      doc: "The configuration document as an object (`version`, `adopt`, `onDelete`, `workspaces`, `accessKeys`), for a program that builds it. Exactly one of `document` and `config`; its problems name their path, such as `accessKeys[1].type`.",
    },
  },
  outputs: {
    workspaces: {
      kind: "output",
      type: mapOf(INTEGER),
      doc: 'The workspace ids by path, such as `{"/platform": 1, "/platform/orders": 2}`.',
    },
    accessKeys: {
      kind: "output",
      type: mapOf(INTEGER),
      doc: "The access key ids by key name.",
    },
    accessKeyValues: {
      kind: "output",
      type: mapOf(STRING),
      doc: "The access key values by key name (a secret).",
      secret: true,
    },
    privateKeys: {
      kind: "output",
      type: mapOf(STRING),
      doc: "The private key (base64 text) of each SERVICE key's encryption key pair, as the broker made it with the key, by key name (a secret). ACCOUNT keys have no pair and no entry; a `ServiceKeyPair` of its own rotates a key's pair.",
      secret: true,
    },
  },
} as const satisfies ComponentDeclaration;
