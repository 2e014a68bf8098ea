/**
 * The look-up functions of the package, declared once: `schema.json`'s `functions` (and through it
 * the `getX`/`getXOutput` functions of every generated SDK and the plugin's `Invoke`), and which of
 * their results are secret in both doors, follow from these declarations. Their logic lives in
 * `src/core/lookups/`.
 */
import {
  GET_ACCESS_KEY,
  GET_ACCESS_KEYS,
  GET_WORKSPACE,
  GET_WORKSPACES,
  VERIFY_ACCESS_KEY,
} from "../lookups";
import { arrayOf, BOOLEAN, INTEGER, STRING, typeRef, type PropertyType } from "./fields";
import { ACCESS_KEY_TYPE, PERMISSIONS } from "./types";

/** One argument or result property of a function. */
export interface FunctionProperty {
  readonly type: PropertyType;
  /** For the user, in every SDK and the schema. */
  readonly doc: string;
  /** Arguments: the caller must give it. Results: every result has it. */
  readonly required?: boolean;
  /** The engine keeps it encrypted and masks it (results), or the caller's secret stays one (arguments). */
  readonly secret?: boolean;
}

/** A look-up function: its token, documentation, arguments and result. */
export interface FunctionDeclaration {
  /** `broker:index:<name>`: Pulumi's generators make `<name>` and `<name>Output` from it. */
  readonly token: string;
  /** For the user, in every SDK and the schema. */
  readonly doc: string;
  readonly inputs: Readonly<Record<string, FunctionProperty>>;
  readonly outputs: Readonly<Record<string, FunctionProperty>>;
}

/** An object type a function's result is made of (every member present unless said otherwise). */
export interface ResultTypeDeclaration {
  readonly token: string;
  readonly doc: string;
  readonly members: Readonly<Record<string, FunctionProperty>>;
}

const WORKSPACE_MEMBERS = {
  id: {
    type: INTEGER,
    doc: "The workspace's numeric id: pass it as a Workspace's `parentId`.",
    required: true,
  },
  name: { type: STRING, doc: "The workspace's name.", required: true },
  path: { type: STRING, doc: "The full path, such as `/platform/orders`.", required: true },
  parentId: { type: INTEGER, doc: "The parent workspace's id; 0 for a top-level workspace.", required: true },
  createdAt: { type: STRING, doc: "When the broker created the workspace (ISO 8601 UTC).", required: true },
  childIds: { type: arrayOf(INTEGER), doc: "The ids of its direct children, ascending.", required: true },
} satisfies Record<string, FunctionProperty>;

const ACCESS_KEY_MEMBERS = {
  id: { type: INTEGER, doc: "The key's numeric id.", required: true },
  name: { type: STRING, doc: "The key's name.", required: true },
  type: { type: typeRef(ACCESS_KEY_TYPE.token), doc: "`SERVICE` or `ACCOUNT`.", required: true },
  permissions: {
    type: typeRef(PERMISSIONS.token),
    doc: "The key's `send`/`receive` event paths and resource permissions, as the broker holds them.",
    required: true,
  },
  createdAt: { type: STRING, doc: "When the broker created the key (ISO 8601 UTC).", required: true },
} satisfies Record<string, FunctionProperty>;

/** `broker:index:WorkspaceInfo`: a workspace in `getWorkspaces`' result. */
export const WORKSPACE_INFO: ResultTypeDeclaration = {
  token: "broker:index:WorkspaceInfo",
  doc: "A workspace of the broker, as the look-up functions return it.",
  members: WORKSPACE_MEMBERS,
};

/** `broker:index:AccessKeyInfo`: an access key in `getAccessKeys`' result, without its value. */
export const ACCESS_KEY_INFO: ResultTypeDeclaration = {
  token: "broker:index:AccessKeyInfo",
  doc: "An access key of the broker as `getAccessKeys` lists it: everything but its value (look one key up with `getAccessKey` for that).",
  members: ACCESS_KEY_MEMBERS,
};

const NOT_FOUND_RULE =
  "Fails, naming what was looked up and the API base URL, when nothing matches (never an empty result). Like every function, it calls the API during `pulumi preview` too.";

/** `broker:index:getWorkspace`. */
export const GET_WORKSPACE_FUNCTION: FunctionDeclaration = {
  token: GET_WORKSPACE,
  doc: `Looks up one workspace, made by this or any other program, by \`id\` or by \`path\` (give exactly one). ${NOT_FOUND_RULE} Several workspaces with the same path fail with their ids: look the one you mean up by id.`,
  inputs: {
    id: { type: INTEGER, doc: "The workspace's numeric id." },
    path: {
      type: STRING,
      doc: "The workspace's full path: `/`-separated names from the top of the tree, such as `/platform` or `/platform/orders`.",
    },
  },
  outputs: WORKSPACE_MEMBERS,
};

/** `broker:index:getWorkspaces`. */
export const GET_WORKSPACES_FUNCTION: FunctionDeclaration = {
  token: GET_WORKSPACES,
  doc: "Lists workspaces, paging through every page of the API. Without filters, every workspace. An empty list when none matches. Calls the API during `pulumi preview` too.",
  inputs: { name: { type: STRING, doc: "Only workspaces with exactly this name." } },
  outputs: {
    workspaces: {
      type: arrayOf(typeRef(WORKSPACE_INFO.token)),
      doc: "The matching workspaces, oldest first.",
      required: true,
    },
  },
};

/** `broker:index:getAccessKey`. */
export const GET_ACCESS_KEY_FUNCTION: FunctionDeclaration = {
  token: GET_ACCESS_KEY,
  doc: `Looks up one access key, made by this or any other program, by \`id\` or by \`name\` (give exactly one), optionally of a \`type\`. Its value \`accessKey\` is a secret. ${NOT_FOUND_RULE} Names are not unique in the broker API: several keys with the name fail with their ids, so look the one you mean up by id.`,
  inputs: {
    id: { type: INTEGER, doc: "The key's numeric id." },
    name: { type: STRING, doc: "The key's name, exactly." },
    type: { type: typeRef(ACCESS_KEY_TYPE.token), doc: "Only a key of this type." },
  },
  outputs: {
    ...ACCESS_KEY_MEMBERS,
    accessKey: { type: STRING, doc: "The access key value.", required: true, secret: true },
  },
};

/** `broker:index:getAccessKeys`. */
export const GET_ACCESS_KEYS_FUNCTION: FunctionDeclaration = {
  token: GET_ACCESS_KEYS,
  doc: "Lists access keys, without their values, paging through every page of the API. Without filters, every key. An empty list when none matches. Calls the API during `pulumi preview` too.",
  inputs: {
    name: { type: STRING, doc: "Only keys with exactly this name." },
    type: { type: typeRef(ACCESS_KEY_TYPE.token), doc: "Only keys of this type." },
    eventPathPrefix: {
      type: STRING,
      doc: "Only keys with at least one `send` or `receive` event path starting with this text, such as `orders/`.",
    },
  },
  outputs: {
    accessKeys: {
      type: arrayOf(typeRef(ACCESS_KEY_INFO.token)),
      doc: "The matching keys, oldest first.",
      required: true,
    },
  },
};

/** `broker:index:verifyAccessKey`. */
export const VERIFY_ACCESS_KEY_FUNCTION: FunctionDeclaration = {
  token: VERIFY_ACCESS_KEY,
  doc: "Asks the broker whether an access key is valid: `true` when the broker accepts it, `false` when the broker answers that it is not valid or does not know it (an unknown or revoked key). Other failures (server errors, wrong credentials of the provider) fail the call. The key never appears in an error or a log. Calls the API during `pulumi preview` too.",
  inputs: {
    accessKey: {
      type: STRING,
      doc: "The access key value to verify, such as another stack's secret output.",
      required: true,
      secret: true,
    },
  },
  outputs: { valid: { type: BOOLEAN, doc: "Whether the broker accepts the key.", required: true } },
};

/** Every function of the package, in the order the schema lists them. */
export const FUNCTIONS: readonly FunctionDeclaration[] = [
  GET_WORKSPACE_FUNCTION,
  GET_WORKSPACES_FUNCTION,
  GET_ACCESS_KEY_FUNCTION,
  GET_ACCESS_KEYS_FUNCTION,
  VERIFY_ACCESS_KEY_FUNCTION,
];

/** The object types of the functions' results, in the order the schema lists them. */
export const RESULT_TYPES: readonly ResultTypeDeclaration[] = [WORKSPACE_INFO, ACCESS_KEY_INFO];

/** The result properties of `fn` that are secret. */
export function secretOutputs(fn: FunctionDeclaration): string[] {
  return Object.entries(fn.outputs)
    .filter(([, property]) => property.secret === true)
    .map(([name]) => name);
}
