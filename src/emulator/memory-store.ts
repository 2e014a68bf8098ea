/** The default store: everything in memory, gone when the process ends. */
import type { Store } from "./store";
import type { KeyPair, Permissions, StoredAccessKey, StoredWorkspace } from "./types";

/** A {@link Store} held in memory. */
export class MemoryStore implements Store {
  private readonly meta = new Map<string, string>();
  private readonly keys = new Map<number, StoredAccessKey>();
  private readonly spaces = new Map<number, StoredWorkspace>();
  private nextKeyId = 1;
  private nextWorkspaceId = 1;

  getMeta(name: string): string | undefined {
    return this.meta.get(name);
  }

  setMeta(name: string, value: string): void {
    this.meta.set(name, value);
  }

  insertAccessKey(fields: Omit<StoredAccessKey, "id">): StoredAccessKey {
    const key: StoredAccessKey = { id: this.nextKeyId++, ...structuredClone(fields) };
    this.keys.set(key.id, key);
    return structuredClone(key);
  }

  accessKeyById(id: number): StoredAccessKey | undefined {
    const key = this.keys.get(id);
    return key && structuredClone(key);
  }

  accessKeyByValue(value: string): StoredAccessKey | undefined {
    for (const key of this.keys.values()) if (key.key === value) return structuredClone(key);
    return undefined;
  }

  accessKeys(): StoredAccessKey[] {
    // Map iteration order is insertion order, which is id order.
    return structuredClone([...this.keys.values()]);
  }

  setPermissions(id: number, permissions: Permissions): void {
    const key = this.keys.get(id);
    if (key) key.permissions = structuredClone(permissions);
  }

  setKeyPair(id: number, keyPair: KeyPair): void {
    const key = this.keys.get(id);
    if (key) key.keyPair = { ...keyPair };
  }

  deleteAccessKey(id: number): void {
    this.keys.delete(id);
  }

  insertWorkspace(fields: Omit<StoredWorkspace, "id">): StoredWorkspace {
    const workspace: StoredWorkspace = { id: this.nextWorkspaceId++, ...fields };
    this.spaces.set(workspace.id, workspace);
    return { ...workspace };
  }

  workspaceById(id: number): StoredWorkspace | undefined {
    const workspace = this.spaces.get(id);
    return workspace && { ...workspace };
  }

  workspaces(): StoredWorkspace[] {
    return [...this.spaces.values()].map((workspace) => ({ ...workspace }));
  }

  updateWorkspace(id: number, fields: Pick<StoredWorkspace, "name" | "parentId">): void {
    const workspace = this.spaces.get(id);
    if (workspace) Object.assign(workspace, { name: fields.name, parentId: fields.parentId });
  }

  deleteWorkspaces(ids: readonly number[]): void {
    for (const id of ids) this.spaces.delete(id);
  }

  clearExcept(keepAccessKeyId: number): void {
    for (const id of [...this.keys.keys()]) if (id !== keepAccessKeyId) this.keys.delete(id);
    this.spaces.clear();
  }

  counts(): { accessKeys: number; workspaces: number } {
    return { accessKeys: this.keys.size, workspaces: this.spaces.size };
  }

  close(): void {
    // Nothing to release.
  }
}
