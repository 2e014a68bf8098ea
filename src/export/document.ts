/**
 * Reads an environment through the client and describes it as a broker configuration document:
 * the workspace tree and every access key with its name, type and permissions. Never key values
 * or private keys: the document is meant to be committed to a repository.
 */
import type { BrokerClient } from "../client";
import type { AccessKeyRecord } from "../client/types";
import { formatProblem } from "../config-as-data/errors";
import type { AccessKeySpec, BrokerConfigDocument, PermissionsSpec } from "../config-as-data/types";
import { validateBrokerConfig } from "../config-as-data/validate";
import { normalizePermissions } from "../model";
import { pulumiImportFile, type PulumiImportFile } from "./import-file";
import { buildWorkspaceTree, compareText } from "./tree";

/** How often {@link ExportOptions.onProgress} is called while paging: every this many objects. */
export const EXPORT_PROGRESS_EVERY = 100;

/** Progress of an export, reported while paging. */
export interface ExportProgress {
  /** What is being listed. */
  kind: "workspaces" | "accessKeys";
  /** How many have been listed so far. */
  count: number;
  /** True on the last report of this kind. */
  done: boolean;
}

/** Options of {@link exportBrokerConfig}. */
export interface ExportOptions {
  /**
   * Called every {@link EXPORT_PROGRESS_EVERY} objects and once at the end of each list. Exceptions
   * thrown by it are ignored: progress display must not break an export.
   */
  onProgress?: (progress: ExportProgress) => void;
}

/** What an export found. */
export interface BrokerConfigExport {
  /** The document: sorted, so that equal configurations give equal documents. */
  document: BrokerConfigDocument;
  /**
   * Things the document cannot represent faithfully, one sentence each: workspaces left out, and
   * every way the document breaks the rules of a loadable document (such as duplicate key names,
   * which the API allows but a document cannot hold).
   */
  warnings: string[];
  /**
   * The same environment as a \`pulumi import --file\` document for the native resources: types,
   * names and ids, no values.
   */
  importFile: PulumiImportFile;
  /** Counts of what was listed. */
  counts: { workspaces: number; accessKeys: number };
}

/** The part of {@link BrokerClient} an export uses. */
export type ExportSource = Pick<BrokerClient, "workspaces" | "accessKeys">;

/**
 * Exports the configuration of an environment as a document: every workspace as a tree (children
 * under their parents, siblings sorted by name), every access key sorted by name with its type and
 * permissions (paths sorted, without repeats; empty fields left out), and `adopt: true` at the top so
 * that a new stack deploying the document takes over what exists instead of duplicating it.
 *
 * The ACCOUNT key used to export is listed like every other key, by name only: no key value ever
 * enters the document.
 *
 * @param client A client for the environment (`getBrokerClient({ baseUrl, apiKey })`).
 * @throws BrokerApiError when listing fails (authentication, connection, server).
 *
 * @example
 * ```ts
 * const { document, warnings } = await exportBrokerConfig(client);
 * fs.writeFileSync("broker.yaml", formatBrokerConfig(document, "yaml"));
 * ```
 */
export async function exportBrokerConfig(
  client: ExportSource,
  options: ExportOptions = {},
): Promise<BrokerConfigExport> {
  const report = (progress: ExportProgress): void => {
    try {
      options.onProgress?.(progress);
    } catch {
      // See ExportOptions.onProgress.
    }
  };
  const workspaceRecords = await listAll(client.workspaces({ orderBy: "createdAt" }), "workspaces", report);
  const keyRecords = await listAll(client.accessKeys({ orderBy: "createdAt" }), "accessKeys", report);

  const tree = buildWorkspaceTree(workspaceRecords);
  const document: BrokerConfigDocument = {
    version: 1,
    adopt: true,
    workspaces: tree.roots,
    accessKeys: uniqueById(keyRecords).map(accessKeySpecOf).sort(compareKeys),
  };
  const warnings = [
    ...tree.orphans,
    ...validateBrokerConfig(document).map(
      (problem) => `the document will not load as it is: ${formatProblem(problem)}`,
    ),
  ];
  return {
    document,
    warnings,
    importFile: pulumiImportFile(workspaceRecords, keyRecords),
    counts: { workspaces: workspaceRecords.length, accessKeys: keyRecords.length },
  };
}

async function listAll<T>(
  items: AsyncIterable<T>,
  kind: ExportProgress["kind"],
  report: (progress: ExportProgress) => void,
): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) {
    all.push(item);
    if (all.length % EXPORT_PROGRESS_EVERY === 0) report({ kind, count: all.length, done: false });
  }
  report({ kind, count: all.length, done: true });
  return all;
}

/** A key listed twice (paging while the list changes) counts once. */
function uniqueById(records: readonly AccessKeyRecord[]): AccessKeyRecord[] {
  return [...new Map(records.map((record) => [record.id, record])).values()];
}

/** Name, type and non-empty permissions: deliberately never `key`, the credential. */
function accessKeySpecOf(record: AccessKeyRecord): AccessKeySpec {
  const normalized = normalizePermissions(record.permissions);
  const permissions: PermissionsSpec = {};
  if (normalized.send.length > 0) permissions.send = normalized.send;
  if (normalized.receive.length > 0) permissions.receive = normalized.receive;
  if (Object.keys(normalized.resources).length > 0) permissions.resources = normalized.resources;
  const spec: AccessKeySpec = { name: record.name, type: record.type };
  if (Object.keys(permissions).length > 0) spec.permissions = permissions;
  return spec;
}

/** By name, then type, then permissions: a total order, so duplicates too come out the same every time. */
function compareKeys(a: AccessKeySpec, b: AccessKeySpec): number {
  return (
    compareText(a.name, b.name) ||
    compareText(a.type, b.type) ||
    compareText(JSON.stringify(a.permissions ?? {}), JSON.stringify(b.permissions ?? {}))
  );
}
