/**
 * The emulated service's behaviour over a {@link Store}: what the API handlers and the controls do,
 * independent of HTTP.
 */
import { ApiError, conflict, notFound } from "./errors";
import { generateKeyPair, generateKeyValue } from "./keys";
import { applyPermissionsUpdate, completePermissions, emptyPermissions } from "./permissions";
import { META_ADMIN_KEY_ID, type Store } from "./store";
import type {
  AccessKeyRecord,
  KeyPair,
  PermissionsInput,
  PermissionsMode,
  StoredAccessKey,
  StoredWorkspace,
  WorkspaceRecord,
} from "./types";
import type { CreateAccessKeyBody } from "./validation";
import { buildWorkspaceRecords, subtreeIds } from "./workspaces";

/** Name of the ACCOUNT key that exists from the start. */
export const ADMIN_KEY_NAME = "admin";

// Header values are trimmed by HTTP parsers and cannot hold control characters: such a key could
// never authenticate, so refuse it up front.
const USABLE_KEY_VALUE = /^[\x21-\x7e]+$/;

function now(): string {
  return new Date().toISOString();
}

/** The API's view of a stored key: no key pair. */
export function toAccessKeyRecord(key: StoredAccessKey): AccessKeyRecord {
  return {
    id: key.id,
    name: key.name,
    key: key.key,
    type: key.type,
    permissions: key.permissions,
    createdAt: key.createdAt,
  };
}

/** The broker's state and operations. */
export class Broker {
  /** How permission updates combine with stored permissions; changed by the controls. */
  permissionsMode: PermissionsMode;
  private adminKeyId = 0;

  /**
   * @param adminKey value of the bootstrap ACCOUNT key; when absent, the stored one is reused or a new
   *   one generated.
   */
  constructor(
    readonly store: Store,
    private readonly initialPermissionsMode: PermissionsMode,
    adminKey?: string,
  ) {
    this.permissionsMode = initialPermissionsMode;
    this.adminKeyId = this.bootstrapAdminKey(adminKey).id;
  }

  private bootstrapAdminKey(value: string | undefined): StoredAccessKey {
    if (value !== undefined && !USABLE_KEY_VALUE.test(value)) {
      throw new TypeError("adminKey must be non-empty printable ASCII without spaces");
    }
    const storedId = this.store.getMeta(META_ADMIN_KEY_ID);
    const stored = storedId === undefined ? undefined : this.store.accessKeyById(Number(storedId));
    let admin: StoredAccessKey | undefined =
      value === undefined ? stored : (this.store.accessKeyByValue(value) ?? undefined);
    if (admin && admin.type !== "ACCOUNT")
      throw new TypeError("adminKey names a SERVICE key in the database");
    admin ??= this.store.insertAccessKey({
      name: ADMIN_KEY_NAME,
      key: value ?? generateKeyValue("ACCOUNT"),
      type: "ACCOUNT",
      permissions: emptyPermissions(),
      createdAt: now(),
    });
    this.store.setMeta(META_ADMIN_KEY_ID, String(admin.id));
    return admin;
  }

  /** The bootstrap ACCOUNT key's value. */
  get adminKey(): string {
    const admin = this.store.accessKeyById(this.adminKeyId);
    if (!admin) throw new Error("the bootstrap admin key is missing from the store");
    return admin.key;
  }

  /** Checks the X-API-KEY header: 401 when missing or unknown, 403 for a SERVICE key. */
  authenticate(header: string | undefined): void {
    if (header === undefined || header === "") {
      throw new ApiError(401, "unauthorized", "The X-API-KEY header is missing: send an ACCOUNT access key");
    }
    const key = this.store.accessKeyByValue(header);
    if (!key)
      throw new ApiError(401, "unauthorized", "The X-API-KEY header does not hold a known access key");
    if (key.type !== "ACCOUNT") {
      throw new ApiError(
        403,
        "forbidden",
        "The X-API-KEY header holds a SERVICE key; this API needs an ACCOUNT key",
      );
    }
  }

  /** Creates a key with a generated value (and, for SERVICE, a key pair). */
  createAccessKey(body: CreateAccessKeyBody): StoredAccessKey {
    const fields: Omit<StoredAccessKey, "id"> = {
      name: body.name,
      key: generateKeyValue(body.type),
      type: body.type,
      permissions: completePermissions(body.permissions),
      createdAt: now(),
    };
    if (body.type === "SERVICE") fields.keyPair = generateKeyPair();
    return this.store.insertAccessKey(fields);
  }

  /** Every key as the API shows it, in id order. */
  accessKeyRecords(): AccessKeyRecord[] {
    return this.store.accessKeys().map(toAccessKeyRecord);
  }

  /** The key with this value, or a 404 that does not repeat the value. */
  requireKeyByValue(value: string, where: string): StoredAccessKey {
    const key = this.store.accessKeyByValue(value);
    if (!key) throw notFound(`No access key matches ${where}`);
    return key;
  }

  /** The key with this id, or a 404. */
  requireKeyById(id: number): StoredAccessKey {
    const key = this.store.accessKeyById(id);
    if (!key) throw notFound(`No access key has id ${id}`);
    return key;
  }

  /** Applies an API permissions update in the current {@link permissionsMode}. */
  updatePermissions(key: StoredAccessKey, update: PermissionsInput): void {
    this.store.setPermissions(key.id, applyPermissionsUpdate(key.permissions, update, this.permissionsMode));
  }

  /** Replaces all permissions of a key (out of band); absent fields become empty. */
  replacePermissions(id: number, permissions: PermissionsInput): void {
    this.requireKeyById(id);
    this.store.setPermissions(id, completePermissions(permissions));
  }

  /** Generates and stores a new key pair for a SERVICE key; `field` names the input that chose the key. */
  rotateKeyPair(key: StoredAccessKey, field: string): KeyPair {
    if (key.type !== "SERVICE") throw conflict(field, "is an ACCOUNT key; only SERVICE keys have key pairs");
    const pair = generateKeyPair();
    this.store.setKeyPair(key.id, pair);
    return pair;
  }

  /** Removes a key (out of band). The bootstrap key stays: without it nothing could call the API. */
  removeAccessKey(id: number): void {
    this.requireKeyById(id);
    if (id === this.adminKeyId) throw conflict("id", "is the bootstrap admin key, which cannot be removed");
    this.store.deleteAccessKey(id);
  }

  /** Every workspace as the API shows it (paths and children computed), in id order. */
  workspaceRecords(): WorkspaceRecord[] {
    return buildWorkspaceRecords(this.store.workspaces());
  }

  private requireParent(parentId: number): void {
    if (parentId !== 0 && !this.store.workspaceById(parentId)) {
      throw notFound(
        "body.parentId does not name an existing workspace (use 0 or omit it for top level)",
        "body.parentId",
      );
    }
  }

  /** Creates a workspace; an unknown parent is a 404 naming `body.parentId`. */
  createWorkspace(fields: { name: string; parentId: number }): StoredWorkspace {
    this.requireParent(fields.parentId);
    return this.store.insertWorkspace({ name: fields.name, parentId: fields.parentId, createdAt: now() });
  }

  private requireWorkspace(id: number): StoredWorkspace {
    const workspace = this.store.workspaceById(id);
    if (!workspace) throw notFound(`No workspace has id ${id}`);
    return workspace;
  }

  /** Renames and/or moves a workspace (out of band), refusing to make it its own ancestor. */
  updateWorkspace(id: number, patch: { name?: string; parentId?: number }): void {
    const workspace = this.requireWorkspace(id);
    const parentId = patch.parentId ?? workspace.parentId;
    this.requireParent(parentId);
    if (subtreeIds(this.store.workspaces(), id).includes(parentId)) {
      throw conflict("body.parentId", "is the workspace itself or one of its descendants");
    }
    this.store.updateWorkspace(id, { name: patch.name ?? workspace.name, parentId });
  }

  /** Removes a workspace and its descendants (out of band). */
  removeWorkspace(id: number): void {
    this.requireWorkspace(id);
    this.store.deleteWorkspaces(subtreeIds(this.store.workspaces(), id));
  }

  /** Back to the initial state: only the admin key (with no permissions) and the mode it started with. */
  reset(): void {
    this.store.clearExcept(this.adminKeyId);
    this.store.setPermissions(this.adminKeyId, emptyPermissions());
    this.permissionsMode = this.initialPermissionsMode;
  }

  /** How many keys and workspaces exist. */
  stats(): { accessKeys: number; workspaces: number } {
    return this.store.counts();
  }
}
