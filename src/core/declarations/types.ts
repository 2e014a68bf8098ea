/** The types shared by fields of the package's resources: the permissions object and the enums. */
import type { AccessKeyType, OnDelete, Permissions } from "../../model";
import { ANY, arrayOf, mapOf, STRING, type EnumTypeDeclaration, type ObjectTypeDeclaration } from "./fields";

/** `broker:index:Permissions`: an access key's `send`/`receive` event paths and resource permissions. */
export const PERMISSIONS = {
  kind: "object",
  token: "broker:index:Permissions",
  doc: "Event-path permissions of an access key. Lists compare as sets: order and repeats don't matter.",
  members: {
    send: {
      type: arrayOf(STRING),
      doc: "Event paths the key may publish to: `/`-separated segments such as `orders/created`, with `*` allowed only as the whole last segment (`orders/*`).",
    },
    receive: {
      type: arrayOf(STRING),
      doc: "Event paths the key may subscribe to, in the same form as `send`.",
    },
    resources: {
      type: mapOf(ANY),
      doc: "Resource-specific permissions, passed to the API as they are (a plain object).",
    },
  },
} as const satisfies ObjectTypeDeclaration;

// Keyed by value, so that a value the model adds and the declaration lacks fails to compile.
const ACCESS_KEY_TYPE_DOCS: Readonly<Record<AccessKeyType, { name: string; doc: string }>> = {
  SERVICE: { name: "Service", doc: "Connects clients to the broker." },
  ACCOUNT: { name: "Account", doc: "Calls the configuration API." },
};

const ON_DELETE_DOCS: Readonly<Record<OnDelete, { name: string; doc: string }>> = {
  revoke: { name: "Revoke", doc: "Empty the key's permissions." },
  retain: { name: "Retain", doc: "Leave the key as it is." },
};

function enumValues<V extends string>(docs: Readonly<Record<V, { name: string; doc: string }>>) {
  return (Object.entries(docs) as [V, { name: string; doc: string }][]).map(([value, { name, doc }]) => ({
    name,
    value,
    doc,
  }));
}

/** `broker:index:AccessKeyType`: `SERVICE` or `ACCOUNT`. */
export const ACCESS_KEY_TYPE = {
  kind: "enum",
  token: "broker:index:AccessKeyType",
  doc: "The kind of an access key.",
  values: enumValues(ACCESS_KEY_TYPE_DOCS),
} as const satisfies EnumTypeDeclaration;

/** `broker:index:OnDelete`: what destroy does with an access key. */
export const ON_DELETE = {
  kind: "enum",
  token: "broker:index:OnDelete",
  doc: "What destroy does with an access key, which the API cannot delete.",
  values: enumValues(ON_DELETE_DOCS),
} as const satisfies EnumTypeDeclaration;

/** Every shared type, in the order the schema lists them. */
export const SHARED_TYPES = [PERMISSIONS, ACCESS_KEY_TYPE, ON_DELETE] as const;

/**
 * The TypeScript type of each shared type's values, by token: what a field typed
 * `typeRef(<token>)` holds in the core (see `src/core/declared.ts`).
 */
export interface SharedTypeValues {
  [PERMISSIONS.token]: Permissions;
  [ACCESS_KEY_TYPE.token]: AccessKeyType;
  [ON_DELETE.token]: OnDelete;
}
