/**
 * Small private record files, written whole and atomically, and flushed to disk without making each
 * writer wait for its own flushes one after the other.
 *
 * Why: a create's intent must be in place before its request is sent, and flushing a file and then
 * its directory costs a journal commit each (a few ms, far more on a busy disk). The engine runs 8
 * steps at once on two cores (4 per core): flushed before each request, one after the other, the
 * records of a `pulumi up` of 100 keys cost more than the engine's own work (bench `native`, issue
 * #48). So a record is placed first (renamed into place: a crash of the process keeps it), its flush
 * runs beside the caller's next step, and a directory is flushed once for every write that renamed
 * into it before the flush began (group commit). Each directory is made private once per process.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs/promises";
import * as path from "node:path";

/** The directories made private by this process, with the making in flight, by path. */
const privateDirectories = new Map<string, Promise<void>>();

/**
 * Creates `dir` and its parents up to `root`, each mode 0700 whatever made them, once per process
 * (a write that then finds the directory gone makes it again: see {@link placeFile}).
 */
function madePrivate(root: string, dir: string): Promise<void> {
  let made = privateDirectories.get(dir);
  if (made === undefined) {
    made = makePrivate(root, dir);
    privateDirectories.set(dir, made);
    // A failed attempt is not remembered: the next write tries again.
    made.catch(() => privateDirectories.delete(dir));
  }
  return made;
}

async function makePrivate(root: string, dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  // mkdir leaves directories that existed as they were: ours are made private whatever made them.
  for (let d = dir; d.startsWith(root); d = path.dirname(d)) {
    await fs.chmod(d, 0o700);
    if (d === root) break;
  }
}

/** A record in place, and the flush that makes it survive a machine crash. */
export interface Placed {
  /**
   * Resolves once a machine crash keeps the record: its content flushed, then its directory
   * (shared with the other writes waiting then). Never rejects: a file system that refuses a flush
   * leaves the record as durable as it makes it, and the record is in place whatever the flush does.
   */
  readonly flushed: Promise<void>;
}

/**
 * Writes `text` as `file` (mode 0600) in a private directory under `root`: to a new file, renamed over
 * the old one, so a reader sees the old record or the new one, never a part. Resolves once the record
 * is in place, which a crash of the process keeps (the kernel holds it); its flush to disk runs on in
 * {@link Placed.flushed}, so a caller can do other work meanwhile (a create waits for its request).
 * Writes of one file must not overlap (each caller awaits its own): their renames would race.
 */
export async function placeFile(root: string, file: string, text: string): Promise<Placed> {
  const dir = path.dirname(file);
  await madePrivate(root, dir);
  const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(temporary, "wx", 0o600);
  } catch (error) {
    if (!isMissing(error)) throw error;
    // Removed since this process made it (a person cleaning up, a test): made again.
    privateDirectories.delete(dir);
    await madePrivate(root, dir);
    handle = await fs.open(temporary, "wx", 0o600);
  }
  try {
    await handle.writeFile(text);
    await fs.rename(temporary, file);
  } catch (error) {
    await handle.close();
    await fs.rm(temporary, { force: true });
    throw error;
  }
  // The handle still holds the renamed file: its content is flushed, then the name pointing at it.
  const flushed = handle
    .datasync()
    .catch(() => undefined)
    .finally(() => handle.close().catch(() => undefined))
    .then(() => flushDirectory(dir));
  return { flushed };
}

/**
 * {@link placeFile}, then, with `durable`, its flush: once this resolves a machine crash keeps the
 * record too. Without, a crash of the process keeps it, a machine crash may not.
 */
export async function replaceFile(root: string, file: string, text: string, durable: boolean): Promise<void> {
  const { flushed } = await placeFile(root, file, text);
  if (durable) await flushed;
}

/**
 * Removes `file` and any copy of it a process killed while writing left, then flushes the directory
 * (shared with other writes, as {@link placeFile}'s flush is).
 */
export async function removeFile(file: string): Promise<void> {
  const dir = path.dirname(file);
  await fs.rm(file, { force: true });
  const temporaryPrefix = `${path.basename(file)}.`;
  const entries = await fs.readdir(dir).catch(() => [] as string[]);
  for (const entry of entries.filter((e) => e.startsWith(temporaryPrefix) && e.endsWith(".tmp")))
    await fs.rm(path.join(dir, entry), { force: true });
  await flushDirectory(dir);
}

/** A directory's flush in progress, and the one that waits for it to end. */
interface Flushes {
  running: Promise<void> | undefined;
  queued: Promise<void> | undefined;
}

const flushesOf = new Map<string, Flushes>();

/**
 * Flushes `dir` after every change made in it before this call. A flush already running may have
 * begun before the caller's change, so the caller joins the next one, which every caller arriving
 * meanwhile shares: one flush per wave of writes rather than one per write.
 */
export function flushDirectory(dir: string): Promise<void> {
  let flushes = flushesOf.get(dir);
  if (flushes === undefined) {
    flushes = { running: undefined, queued: undefined };
    flushesOf.set(dir, flushes);
  }
  const state = flushes;
  if (state.queued !== undefined) return state.queued;
  const start = (): Promise<void> => {
    state.queued = undefined;
    const run = syncDirectory(dir).finally(() => {
      state.running = undefined;
      if (state.queued === undefined) flushesOf.delete(dir);
    });
    state.running = run;
    return run;
  };
  if (state.running === undefined) return start();
  state.queued = state.running.then(start);
  return state.queued;
}

async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await fs.open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some file systems refuse to flush a directory; the rename is then as durable as they make it.
  }
}

/** Whether `error` says a file or directory does not exist. */
export function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
}
