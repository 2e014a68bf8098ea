/** `broker:index:AccessKey`, declared once: see `fields.ts` for what is derived from it. */
import { DEFAULT_ADOPT } from "../../model";
import { ALLOW_ENDPOINT_CHANGE, BASE_URL } from "./endpoint-fields";
import { BOOLEAN, INTEGER, mapOf, STRING, typeRef, type ResourceDeclaration } from "./fields";
import { ACCESS_KEY_TYPE, ON_DELETE, PERMISSIONS } from "./types";

/** An access key with its permissions; a SERVICE key's pair from its creation. */
export const ACCESS_KEY = {
  token: "broker:index:AccessKey",
  name: "AccessKey",
  doc: "An access key of the broker, with its `send`/`receive` permissions. The key value (`accessKey`) and, for SERVICE keys, the `privateKey` of the pair returned at creation are secret outputs. The resource id is the numeric key id. Permissions update in place; `name`, `type` or `rotationTriggers` changes replace the key, creating the new key before the old one is revoked. The API cannot delete keys: destroy revokes the permissions of a key the stack created and leaves a key it adopted as it was found (see `onDelete`).",
  fields: {
    name: {
      kind: "input",
      type: STRING,
      doc: "The key's name. Changing it replaces the key (the API cannot rename keys). When absent, the key is named `<logical name>-<7 random characters>` (or as the stack's `pulumi:autonaming` configuration asks), chosen once and kept across updates; a replacement chooses a new one, so the new key is created before the old one is revoked.",
      autonamed: true,
      replaceOnChange: true,
    },
    type: {
      kind: "input",
      type: typeRef(ACCESS_KEY_TYPE.token),
      doc: "`SERVICE` for keys that connect clients to the broker, `ACCOUNT` for keys that call the configuration API. Changing it replaces the key.",
      required: true,
      replaceOnChange: true,
    },
    permissions: {
      kind: "input",
      type: typeRef(PERMISSIONS.token),
      doc: "What the key may publish and subscribe to. Changes are applied in place, read back and verified. Lists compare as sets: order and repeats are no change.",
      outputDoc: "The permissions the server holds, normalised: lists sorted, without repeats.",
      outputOptional: true,
    },
    adopt: {
      kind: "input",
      type: BOOLEAN,
      doc: "Take over an existing key with the same name and type instead of creating a new one; its permissions are then set to `permissions`.",
      default: DEFAULT_ADOPT,
      stackOnly: true,
    },
    onDelete: {
      kind: "input",
      type: typeRef(ON_DELETE.token),
      doc: "What destroy (or a replacement) does with the key, which the API cannot delete: `revoke` empties its `send`, `receive` and `resources` permissions; `retain` leaves it as it is. When not given: a key this stack created is revoked, a key it adopted (`adopt: true` found it) is left as it was found; set `revoke` to revoke an adopted key too. The provider never revokes the key it authenticates with.",
      stackOnly: true,
    },
    rotationTriggers: {
      kind: "input",
      type: mapOf(STRING),
      doc: 'Any change to this map rotates the key: a new key is created (with a new value, and with a new name when the name is generated), every resource that uses it is updated, and only then is the old key revoked (see `onDelete`), so a consumer reading the key from such a resource (a secret store entry) always holds a valid one. Stack outputs are written when the run ends, after the old key is revoked: a consumer reading `pulumi stack output` during the run can read the revoked key. For those, keep two keys, current and previous, and rotate only the older one each time (their `rotationTriggers` change in alternate runs): consumers use the current key, which no run revokes. E.g. `{ quarter: "2026-Q4" }`.',
      replaceOnChange: true,
      stackOnly: true,
    },
    allowEndpointChange: ALLOW_ENDPOINT_CHANGE,
    accessKey: { kind: "output", type: STRING, doc: "The access key value.", secret: true },
    accessKeyId: { kind: "output", type: INTEGER, doc: "The numeric id of the key." },
    createdAt: {
      kind: "output",
      type: STRING,
      doc: "When the broker created the key (ISO 8601 UTC).",
      optional: true,
      fromRecord: true,
    },
    publicKey: {
      kind: "output",
      type: STRING,
      doc: "For a SERVICE key created by this stack: the public key of the pair returned at creation (base64).",
      optional: true,
    },
    privateKey: {
      kind: "output",
      type: STRING,
      doc: "For a SERVICE key created by this stack: the private key of that pair (base64).",
      secret: true,
      optional: true,
    },
    adopted: {
      kind: "output",
      type: BOOLEAN,
      doc: "True when this stack adopted an existing key instead of creating it; such a key is left as it was found on destroy unless `onDelete` is `revoke`. States written before this output existed read as false (created).",
    },
    baseUrl: BASE_URL,
  },
} as const satisfies ResourceDeclaration;
