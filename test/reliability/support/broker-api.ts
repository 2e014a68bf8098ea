/** Reads the broker's state over its API (plain fetch: nothing of the product), for assertions. */

/** An access key record as the API lists it. */
export interface KeyRecord {
  id: number;
  name: string;
  key: string;
  type: string;
  permissions: { send: string[]; receive: string[]; resources: Record<string, unknown> };
}

/** A workspace record as the API lists it. */
export interface WorkspaceRecord {
  id: number;
  name: string;
  parentId: number;
  path: string;
  children?: WorkspaceRecord[];
}

async function allPages<T>(target: { url: string; adminKey: string }, route: string): Promise<T[]> {
  const all: T[] = [];
  for (let page = 0; ; page++) {
    const response = await fetch(
      `${target.url}${route}?pageIndex=${page}&limit=100&order=ASC&orderBy=createdAt`,
      {
        headers: { "x-api-key": target.adminKey },
      },
    );
    if (!response.ok) throw new Error(`GET ${route} answered ${response.status}`);
    const body = (await response.json()) as { results: T[] };
    all.push(...body.results);
    if (body.results.length < 100) return all;
  }
}

/** Every access key, the bootstrap admin key included. */
export function listKeys(target: { url: string; adminKey: string }): Promise<KeyRecord[]> {
  return allPages<KeyRecord>(target, "/access-key");
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
  walk(await allPages<WorkspaceRecord>(target, "/workspace"));
  return [...byId.values()];
}
