/** The storage contract of the emulator: what the API and the controls need, nothing more. */
import type { KeyPair, Permissions, StoredAccessKey, StoredWorkspace } from "./types";

/** Names of the store's metadata entries. */
export const META_ADMIN_KEY_ID = "admin_access_key_id";

/**
 * Where the emulator keeps its data. Synchronous on purpose: each mutation is complete (and, for a
 * file-backed store, written) when the call returns, so a signal or crash right after a response never
 * loses what that response confirmed.
 *
 * Reads return copies: a caller that mutates a result never changes the stored data.
 * Ids come from counters that only grow, so an id is never reused, even after a delete or reset.
 */
export interface Store {
  /** A metadata value, such as the id of the bootstrap admin key. */
  getMeta(name: string): string | undefined;
  /** Creates or overwrites a metadata value. */
  setMeta(name: string, value: string): void;

  /** Stores a new access key under the next access key id. */
  insertAccessKey(fields: Omit<StoredAccessKey, "id">): StoredAccessKey;
  /** The key with this id, if any. */
  accessKeyById(id: number): StoredAccessKey | undefined;
  /** The key with this value, if any. */
  accessKeyByValue(key: string): StoredAccessKey | undefined;
  /** Every access key, in id order. */
  accessKeys(): StoredAccessKey[];
  /** Overwrites a key's permissions (callers decide how they were combined). */
  setPermissions(id: number, permissions: Permissions): void;
  /** Overwrites a key's pair: the old one is gone. */
  setKeyPair(id: number, keyPair: KeyPair): void;
  /** Deletes a key; its id is never handed out again. */
  deleteAccessKey(id: number): void;

  /** Stores a new workspace under the next workspace id. */
  insertWorkspace(fields: Omit<StoredWorkspace, "id">): StoredWorkspace;
  /** The workspace with this id, if any. */
  workspaceById(id: number): StoredWorkspace | undefined;
  /** Every workspace, in id order. */
  workspaces(): StoredWorkspace[];
  /** Renames and/or moves a workspace (callers check parents and cycles). */
  updateWorkspace(id: number, fields: Pick<StoredWorkspace, "name" | "parentId">): void;
  /** Deletes these workspaces, all or nothing. */
  deleteWorkspaces(ids: readonly number[]): void;

  /** Deletes every workspace and every access key except `keepAccessKeyId`; counters keep going. */
  clearExcept(keepAccessKeyId: number): void;
  /** How many keys and workspaces are stored. */
  counts(): { accessKeys: number; workspaces: number };
  /** Releases the underlying resources; the store is unusable afterwards. */
  close(): void;
}
