/**
 * The emulator's database holds every key value and private key in plain text, so its files are
 * readable by their owner only, whatever the process umask: the database and SQLite's `-wal` and
 * `-shm` companions 0600, a directory made for them 0700. Files that exist already are not changed
 * behind the owner's back; a warning names the ones others can read.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** Owner read and write. */
export const PRIVATE_FILE_MODE = 0o600;
/** Owner read, write and search. */
export const PRIVATE_DIRECTORY_MODE = 0o700;

/** The files SQLite keeps for database `file` in WAL mode. */
export function databaseFiles(file: string): string[] {
  return [file, `${file}-wal`, `${file}-shm`];
}

/**
 * Makes ready the database file `file` before SQLite opens it: creates its directory (0700) when
 * missing and the file itself (0600) when missing. Returns a warning for each of the database's
 * files that exists with permissions beyond its owner's.
 */
export function prepareDatabaseFile(file: string): string[] {
  const directory = path.dirname(path.resolve(file));
  if (!fs.existsSync(directory)) {
    fs.mkdirSync(directory, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
    // mkdir's mode is masked by the umask; the explicit chmod is not.
    fs.chmodSync(directory, PRIVATE_DIRECTORY_MODE);
  }
  const warnings = databaseFiles(file).flatMap((f) => widerThanOwner(f));
  // Created here rather than by SQLite so that it is never readable by others, not even for a moment.
  fs.closeSync(fs.openSync(file, "a", PRIVATE_FILE_MODE));
  return warnings;
}

/**
 * Once SQLite has created the companions of `file` (`-wal`, `-shm`: at its first read or write in WAL
 * mode, not when the mode is set), makes the ones it created owner-only too. Files that existed
 * before the open (`existing`) are left as they are.
 *
 * SQLite's unix VFS creates them with the database file's own mode, also when it makes them again
 * later (each close removes them), so for a database created 0600 this changes nothing; it is for an
 * existing database others can read (warned about), whose new companions would copy its mode.
 */
export function restrictNewCompanions(file: string, existing: ReadonlySet<string>): void {
  for (const companion of databaseFiles(file).slice(1)) {
    if (!existing.has(companion) && fs.existsSync(companion)) fs.chmodSync(companion, PRIVATE_FILE_MODE);
  }
}

/** The files among `files` that exist. */
export function existingFiles(files: readonly string[]): Set<string> {
  return new Set(files.filter((f) => fs.existsSync(f)));
}

function widerThanOwner(file: string): string[] {
  let mode: number;
  try {
    mode = fs.statSync(file).mode & 0o777;
  } catch {
    return []; // Not there.
  }
  if ((mode & 0o077) === 0) return [];
  return [
    `${file} holds key values and private keys in plain text but is readable by others ` +
      `(mode ${mode.toString(8).padStart(4, "0")}); restrict it with \`chmod 600 ${file}\`.`,
  ];
}
