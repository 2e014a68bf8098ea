/** `broker:index:ServiceKeyPair`, declared once: see `fields.ts` for what is derived from it. */
import { ALLOW_ENDPOINT_CHANGE, BASE_URL } from "./endpoint-fields";
import { INTEGER, mapOf, STRING, type ResourceDeclaration } from "./fields";

/** The encryption key pair of a SERVICE key, rotated on demand. */
export const SERVICE_KEY_PAIR = {
  token: "broker:index:ServiceKeyPair",
  name: "ServiceKeyPair",
  doc: "The encryption key pair of a SERVICE access key, managed by rotation. Creating the resource, and every change of `rotationTriggers`, replaces the key's pair on the broker and records the new one; `privateKey` is a secret output. Destroy leaves the current pair in place, with a note.",
  fields: {
    accessKey: {
      kind: "input",
      type: STRING,
      doc: "The value of a SERVICE access key, e.g. an AccessKey's `accessKey` output. It stays a secret. Changing it replaces this resource. An ACCOUNT key is rejected with a clear error.",
      required: true,
      secret: true,
      replaceOnChange: true,
    },
    rotationTriggers: {
      kind: "input",
      type: mapOf(STRING),
      doc: 'Any change to this map rotates the pair in place, e.g. `{ quarter: "2026-Q4" }`.',
    },
    allowEndpointChange: ALLOW_ENDPOINT_CHANGE,
    publicKey: { kind: "output", type: STRING, doc: "The public key (base64 text), for encryption." },
    privateKey: {
      kind: "output",
      type: STRING,
      doc: "The private key (base64 text), for decryption.",
      secret: true,
    },
    accessKeyId: {
      kind: "output",
      type: INTEGER,
      doc: "The numeric id of the SERVICE key the pair belongs to.",
    },
    rotatedAt: {
      kind: "output",
      type: STRING,
      doc: "When this stack last rotated the pair (ISO 8601 UTC).",
    },
    baseUrl: BASE_URL,
  },
} as const satisfies ResourceDeclaration;
