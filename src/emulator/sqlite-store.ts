/**
 * A file-backed store on node:sqlite. Every mutation is one committed statement or transaction, so
 * SIGINT, SIGTERM or a crash never loses a write the API already confirmed.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import { databaseFiles, existingFiles, prepareDatabaseFile, restrictNewCompanions } from "./private-files";
import type { Store } from "./store";
import type { AccessKeyType, KeyPair, Permissions, StoredAccessKey, StoredWorkspace } from "./types";

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS meta (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS access_keys (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    key TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    permissions TEXT NOT NULL,
    created_at TEXT NOT NULL,
    public_key TEXT,
    private_key TEXT
  );
  CREATE TABLE IF NOT EXISTS workspaces (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    parent_id INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );
`;

const NEXT_ACCESS_KEY_ID = "next_access_key_id";
const NEXT_WORKSPACE_ID = "next_workspace_id";

type Row = Record<string, unknown>;

function text(row: Row, column: string): string {
  const value = row[column];
  if (typeof value !== "string") throw new Error(`column ${column} is not text`);
  return value;
}

function integer(row: Row, column: string): number {
  const value = row[column];
  if (typeof value !== "number") throw new Error(`column ${column} is not an integer`);
  return value;
}

function toAccessKey(row: Row): StoredAccessKey {
  const key: StoredAccessKey = {
    id: integer(row, "id"),
    name: text(row, "name"),
    key: text(row, "key"),
    type: text(row, "type") as AccessKeyType,
    permissions: JSON.parse(text(row, "permissions")) as Permissions,
    createdAt: text(row, "created_at"),
  };
  if (row.public_key !== null && row.private_key !== null) {
    key.keyPair = { publicKey: text(row, "public_key"), privateKey: text(row, "private_key") };
  }
  return key;
}

function toWorkspace(row: Row): StoredWorkspace {
  return {
    id: integer(row, "id"),
    name: text(row, "name"),
    parentId: integer(row, "parent_id"),
    createdAt: text(row, "created_at"),
  };
}

/** SQLite's name for a database that lives in memory only. */
const IN_MEMORY = ":memory:";

/**
 * A {@link Store} in an SQLite database file, created when missing, readable by its owner only (it
 * holds key values and private keys): see `private-files.ts`.
 */
export class SqliteStore implements Store {
  private readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();

  /**
   * @param file the database file; it and a missing directory are created owner-only.
   * @param warn told about existing database files that others can read.
   */
  constructor(file: string, warn: (message: string) => void = () => undefined) {
    // Loaded lazily so that the in-memory mode works without node:sqlite.
    const { DatabaseSync: Database } = require("node:sqlite") as typeof import("node:sqlite");
    // ":memory:" is SQLite's name for a database in memory: no file to make or guard.
    const onDisk = file !== IN_MEMORY;
    if (onDisk) for (const warning of prepareDatabaseFile(file)) warn(warning);
    const existing = onDisk ? existingFiles(databaseFiles(file)) : new Set<string>();
    this.db = new Database(file);
    // WAL with synchronous=NORMAL survives a process crash (not a power cut), which is what we need.
    // busy_timeout: a second process on the same file waits for a write lock instead of failing.
    this.db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;");
    this.db.exec(SCHEMA);
    // Only now do the -wal and -shm files surely exist: SQLite makes them at the first read in WAL
    // mode (a database with tables: the pragma above) or the first write (an empty file: the schema).
    if (onDisk) restrictNewCompanions(file, existing);
  }

  private run(sql: string, ...params: SQLInputValue[]): void {
    this.statement(sql).run(...params);
  }

  private one(sql: string, ...params: SQLInputValue[]): Row | undefined {
    return this.statement(sql).get(...params);
  }

  private all(sql: string, ...params: SQLInputValue[]): Row[] {
    return this.statement(sql).all(...params);
  }

  private statement(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private transaction<T>(work: () => T): T {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const result = work();
      this.db.exec("COMMIT");
      return result;
    } catch (error) {
      this.db.exec("ROLLBACK");
      throw error;
    }
  }

  private takeId(counter: string): number {
    const next = Number(this.getMeta(counter) ?? "1");
    this.setMeta(counter, String(next + 1));
    return next;
  }

  getMeta(name: string): string | undefined {
    const row = this.one("SELECT value FROM meta WHERE name = ?", name);
    return row && text(row, "value");
  }

  setMeta(name: string, value: string): void {
    this.run(
      "INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
      name,
      value,
    );
  }

  insertAccessKey(fields: Omit<StoredAccessKey, "id">): StoredAccessKey {
    return this.transaction(() => {
      const id = this.takeId(NEXT_ACCESS_KEY_ID);
      this.run(
        "INSERT INTO access_keys (id, name, key, type, permissions, created_at, public_key, private_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        id,
        fields.name,
        fields.key,
        fields.type,
        JSON.stringify(fields.permissions),
        fields.createdAt,
        fields.keyPair?.publicKey ?? null,
        fields.keyPair?.privateKey ?? null,
      );
      return structuredClone({ id, ...fields });
    });
  }

  accessKeyById(id: number): StoredAccessKey | undefined {
    const row = this.one("SELECT * FROM access_keys WHERE id = ?", id);
    return row && toAccessKey(row);
  }

  accessKeyByValue(key: string): StoredAccessKey | undefined {
    const row = this.one("SELECT * FROM access_keys WHERE key = ?", key);
    return row && toAccessKey(row);
  }

  accessKeys(): StoredAccessKey[] {
    return this.all("SELECT * FROM access_keys ORDER BY id").map(toAccessKey);
  }

  setPermissions(id: number, permissions: Permissions): void {
    this.run("UPDATE access_keys SET permissions = ? WHERE id = ?", JSON.stringify(permissions), id);
  }

  setKeyPair(id: number, keyPair: KeyPair): void {
    this.run(
      "UPDATE access_keys SET public_key = ?, private_key = ? WHERE id = ?",
      keyPair.publicKey,
      keyPair.privateKey,
      id,
    );
  }

  deleteAccessKey(id: number): void {
    this.run("DELETE FROM access_keys WHERE id = ?", id);
  }

  insertWorkspace(fields: Omit<StoredWorkspace, "id">): StoredWorkspace {
    return this.transaction(() => {
      const id = this.takeId(NEXT_WORKSPACE_ID);
      this.run(
        "INSERT INTO workspaces (id, name, parent_id, created_at) VALUES (?, ?, ?, ?)",
        id,
        fields.name,
        fields.parentId,
        fields.createdAt,
      );
      return { id, ...fields };
    });
  }

  workspaceById(id: number): StoredWorkspace | undefined {
    const row = this.one("SELECT * FROM workspaces WHERE id = ?", id);
    return row && toWorkspace(row);
  }

  workspaces(): StoredWorkspace[] {
    return this.all("SELECT * FROM workspaces ORDER BY id").map(toWorkspace);
  }

  updateWorkspace(id: number, fields: Pick<StoredWorkspace, "name" | "parentId">): void {
    this.run("UPDATE workspaces SET name = ?, parent_id = ? WHERE id = ?", fields.name, fields.parentId, id);
  }

  deleteWorkspaces(ids: readonly number[]): void {
    this.transaction(() => {
      for (const id of ids) this.run("DELETE FROM workspaces WHERE id = ?", id);
    });
  }

  clearExcept(keepAccessKeyId: number): void {
    this.transaction(() => {
      this.run("DELETE FROM access_keys WHERE id <> ?", keepAccessKeyId);
      this.run("DELETE FROM workspaces");
    });
  }

  counts(): { accessKeys: number; workspaces: number } {
    const keys = this.one("SELECT COUNT(*) AS n FROM access_keys");
    const spaces = this.one("SELECT COUNT(*) AS n FROM workspaces");
    return { accessKeys: keys ? integer(keys, "n") : 0, workspaces: spaces ? integer(spaces, "n") : 0 };
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}
