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
  /**
   * Export ACCOUNT keys too. They can change the whole broker configuration through the API, so a
   * document that copies one hands out an admin credential: left out unless asked. The document
   * then says `allowAccountKeys: true`, without which it would not deploy them.
   * @default false
   */
  includeAccountKeys?: boolean;
  /**
   * The value of the key the export authenticates with (the API key). That key is never exported,
   * even with {@link includeAccountKeys}: a copy of it in another environment would be a second
   * admin credential nobody asked for, and adopting it by name would hand a stack the key it runs
   * with. It is found in the key list by value and named in {@link BrokerConfigExport.leftOut};
   * the value itself goes nowhere.
   */
  authenticatedWith?: string;
}

/** What an export deliberately left out of the document, and why. */
export interface LeftOut {
  /** The key the export authenticated with (by name and id), when the key list holds it. */
  ownKey?: { name: string; id: number };
  /** The names of the other ACCOUNT keys left out (without `includeAccountKeys`), sorted. */
  accountKeys: string[];
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
  /** Counts of what was exported. */
  counts: { workspaces: number; accessKeys: number };
  /** The keys left out of the document and the import file, and why (see {@link ExportOptions}). */
  leftOut: LeftOut;
}

/** The part of {@link BrokerClient} an export uses. */
export type ExportSource = Pick<BrokerClient, "workspaces" | "accessKeys">;

/**
 * Exports the configuration of an environment as a document: every workspace as a tree (children
 * under their parents, siblings sorted by name), every access key sorted by name with its type and
 * permissions (paths sorted, without repeats; empty fields left out), and `adopt: true` at the top so
 * that a new stack deploying the document takes over what exists instead of duplicating it.
 *
 * ACCOUNT keys are left out unless {@link ExportOptions.includeAccountKeys} asks for them, and the key
 * the export authenticates with is always left out ({@link BrokerConfigExport.leftOut} says which):
 * deploying a copy must never hand out or take over an admin credential. No key value ever enters
 * the document.
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
  const listed = await listAll(client.accessKeys({ orderBy: "createdAt" }), "accessKeys", report);
  const { keyRecords, leftOut } = selectKeys(uniqueById(listed), options);

  const tree = buildWorkspaceTree(workspaceRecords);
  const document: BrokerConfigDocument = {
    version: 1,
    adopt: true,
    ...(keyRecords.some((record) => record.type === "ACCOUNT") ? { allowAccountKeys: true } : {}),
    workspaces: tree.roots,
    accessKeys: keyRecords.map(accessKeySpecOf).sort(compareKeys),
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
    leftOut,
  };
}

/**
 * The keys to export: never the one the export authenticates with (matched by value, which is
 * compared and dropped here, never kept), and ACCOUNT keys only when asked.
 */
function selectKeys(
  records: readonly AccessKeyRecord[],
  options: ExportOptions,
): { keyRecords: AccessKeyRecord[]; leftOut: LeftOut } {
  const leftOut: LeftOut = { accountKeys: [] };
  const keyRecords: AccessKeyRecord[] = [];
  for (const record of records) {
    if (options.authenticatedWith !== undefined && record.key === options.authenticatedWith) {
      leftOut.ownKey = { name: record.name, id: record.id };
    } else if (record.type === "ACCOUNT" && options.includeAccountKeys !== true) {
      leftOut.accountKeys.push(record.name);
    } else keyRecords.push(record);
  }
  leftOut.accountKeys.sort(compareText);
  return { keyRecords, leftOut };
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
