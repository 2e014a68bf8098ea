/**
 * The `pulumi import --file` document of an environment: one entry per workspace and access key,
 * with the native resource type, a resource name and the object's id. No key value or any other
 * secret: `pulumi import` reads each object back through the `broker` plugin, which returns the
 * key value as a secret output.
 */
import type { AccessKeyRecord, WorkspaceRecord } from "../client/types";
import { compareText } from "./tree";

/** One resource of a {@link PulumiImportFile}. */
export interface PulumiImportResource {
  /** The native resource type. */
  type: "broker:index:Workspace" | "broker:index:AccessKey";
  /** The resource name in the stack (and the generated program). */
  name: string;
  /** The object's numeric id, as text. */
  id: string;
}

/** The document `pulumi import --file` reads. */
export interface PulumiImportFile {
  resources: PulumiImportResource[];
}

/** A resource name from a path or key name: letters, digits, `_` and `-`; others become `-`. */
export function resourceNameOf(text: string): string {
  const name = text
    .replace(/^\/+/u, "")
    .replace(/[^A-Za-z0-9_-]+/gu, "-")
    .replace(/^-+|-+$/gu, "");
  return name === "" ? "unnamed" : name;
}

/**
 * Builds the import document: workspaces named after their path (`/platform/orders` →
 * `platform-orders`), keys after their name; a name taken twice gets the object's id appended
 * (`orders-svc-12`), so every name is unique. Sorted by type, then name, so that equal environments
 * give equal documents.
 */
export function pulumiImportFile(
  workspaces: readonly WorkspaceRecord[],
  accessKeys: readonly AccessKeyRecord[],
): PulumiImportFile {
  const entries: PulumiImportResource[] = [
    ...uniqueById(workspaces).map((w) => ({
      type: "broker:index:Workspace" as const,
      name: resourceNameOf(w.path),
      id: String(w.id),
    })),
    ...uniqueById(accessKeys).map((k) => ({
      type: "broker:index:AccessKey" as const,
      name: resourceNameOf(k.name),
      id: String(k.id),
    })),
  ];
  const counts = new Map<string, number>();
  for (const entry of entries) counts.set(entry.name, (counts.get(entry.name) ?? 0) + 1);
  const resources = entries
    .map((entry) =>
      (counts.get(entry.name) ?? 0) > 1 ? { ...entry, name: `${entry.name}-${entry.id}` } : entry,
    )
    .sort(
      (a, b) => compareText(a.type, b.type) || compareText(a.name, b.name) || Number(a.id) - Number(b.id),
    );
  return { resources };
}

function uniqueById<T extends { id: number }>(records: readonly T[]): T[] {
  return [...new Map(records.map((record) => [record.id, record])).values()];
}
