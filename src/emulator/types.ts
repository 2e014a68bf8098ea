/**
 * The emulator's own model of the broker configuration API.
 *
 * Deliberately duplicated from the product's wire types: the emulator imports nothing of the product,
 * so a bug in the product's types can never make the emulator agree with it by accident.
 */

/** The two kinds of access key. */
export type AccessKeyType = "ACCOUNT" | "SERVICE";

/** All access key types, in a stable order. */
export const ACCESS_KEY_TYPES: readonly AccessKeyType[] = ["ACCOUNT", "SERVICE"];

/** The send/receive permissions of an access key, as stored and as returned in records. */
export interface Permissions {
  /** Event paths the key may publish to. */
  send: string[];
  /** Event paths the key may subscribe to. */
  receive: string[];
  /** Resource-specific permissions: any JSON object. */
  resources: Record<string, unknown>;
}

/** Permissions as a request carries them: every field optional. */
export interface PermissionsInput {
  send?: string[];
  receive?: string[];
  resources?: Record<string, unknown>;
}

/** How `POST /access-key/{accessKey}/permissions` combines the submitted lists with the stored ones. */
export type PermissionsMode = "replace" | "merge";

/** An X25519 key pair as base64 DER text (public: SPKI, private: PKCS#8). */
export interface KeyPair {
  publicKey: string;
  privateKey: string;
}

/** An access key as the store keeps it: the API's record, and the key pair of a SERVICE key. */
export interface StoredAccessKey extends AccessKeyRecord {
  /** Present for SERVICE keys only. */
  keyPair?: KeyPair;
}

/** A workspace as the store keeps it: flat, the tree is computed on read. */
export interface StoredWorkspace {
  id: number;
  name: string;
  /** 0 for a top-level workspace. */
  parentId: number;
  createdAt: string;
}

/** A workspace as the API returns it. */
export interface WorkspaceRecord {
  id: number;
  name: string;
  /** `/a` for a top-level workspace, `/a/b` for its child; computed from the current names. */
  path: string;
  parentId: number;
  createdAt: string;
  children: WorkspaceRecord[];
}

/** An access key as the API returns it (no key pair). */
export interface AccessKeyRecord {
  id: number;
  name: string;
  /** The key value: a credential. */
  key: string;
  type: AccessKeyType;
  permissions: Permissions;
  /** ISO 8601 UTC with milliseconds. */
  createdAt: string;
}
