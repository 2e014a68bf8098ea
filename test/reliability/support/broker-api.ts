/** Reads the broker's state over its API (the tests' API caller: nothing of the product), for assertions. */
import { apiOf, type KeyRecord, type WorkspaceRecord } from "../../support/emulator";

export type { KeyRecord, WorkspaceRecord };

/** Every access key, the bootstrap admin key included. */
export function listKeys(target: { url: string; adminKey: string }): Promise<KeyRecord[]> {
  return apiOf(target).listAll<KeyRecord>("/access-key");
}

/** Every workspace, each once (children a list may nest are flattened). */
export async function listWorkspaces(target: { url: string; adminKey: string }): Promise<WorkspaceRecord[]> {
  const byId = new Map<number, WorkspaceRecord>();
  const walk = (records: readonly WorkspaceRecord[]): void => {
    for (const record of records) {
      if (!byId.has(record.id)) byId.set(record.id, record);
      walk(record.children ?? []);
    }
  };
  walk(await apiOf(target).listAll<WorkspaceRecord>("/workspace"));
  return [...byId.values()];
}
