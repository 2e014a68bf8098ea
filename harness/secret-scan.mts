/**
 * The secret scan: no credential may appear in plain text in anything a test or a bench run
 * produced — state files and backups, CLI output, provider host stderr, error messages. Exact
 * values the run saw are searched for, and so are credential shapes (the emulator's `bka_`/`bks_`
 * key values, X25519 private keys), which also catches values the run never learned.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** Shapes of credentials, by kind. Public keys are not secrets and are not searched for. */
export const CREDENTIAL_PATTERNS: Readonly<Record<string, RegExp>> = {
  "access key value": /\bbk[as]_[A-Za-z0-9_-]{43}/u,
  // Base64 of the PKCS#8 DER of an X25519 private key starts with this fixed prefix.
  "private key": /MC4CAQAwBQYDK2VuBCIEI[A-Za-z0-9+/]{20,}/u,
};

/** Values shorter than this are not searched for: they would match by chance. */
const MIN_SECRET_LENGTH = 8;

/** A finding: where and what kind, never the value (a failing run must not print the secret). */
export interface Leak {
  source: string;
  kind: string;
}

/**
 * Finds credentials in `produced`: the exact `secrets` values (reported as `seenKind`) and
 * credential shapes (reported by their kind).
 */
export function findLeaks(
  produced: readonly { source: string; text: string }[],
  secrets: Iterable<string>,
  seenKind = "a credential seen in this run",
): Leak[] {
  const values = [...secrets].filter((value) => value.length >= MIN_SECRET_LENGTH);
  const leaks: Leak[] = [];
  for (const { source, text } of produced) {
    if (values.some((value) => text.includes(value))) leaks.push({ source, kind: seenKind });
    for (const [kind, pattern] of Object.entries(CREDENTIAL_PATTERNS))
      if (pattern.test(text)) leaks.push({ source, kind });
  }
  return leaks;
}

/** Collects what a test produced and the credentials it saw, then scans with {@link findLeaks}. */
export class SecretScan {
  readonly #sources: { source: string; text: string }[] = [];
  readonly #secrets = new Set<string>();

  /** Adds credentials that must not appear anywhere. */
  secrets(...values: (string | undefined)[]): void {
    for (const value of values) if (value !== undefined) this.#secrets.add(value);
  }

  /** Adds a text the run produced (command output, an error message, a process's stderr). */
  text(source: string, text: string | undefined): void {
    if (text !== undefined) this.#sources.push({ source, text });
  }

  /** Adds every file under `dir` (state, backups, history, logs); symbolic links are not followed. */
  directory(source: string, dir: string): void {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) this.directory(`${source}/${entry.name}`, full);
      else if (entry.isFile())
        this.#sources.push({ source: `${source}/${entry.name}`, text: fs.readFileSync(full, "utf8") });
    }
  }

  /**
   * Adds everything a `PulumiProject` (`pulumi-project.mts`) holds: its backend (state, backups, history), its
   * Pulumi home and the project directory itself (stack config files), but not the linked
   * `node_modules`.
   */
  project(source: string, project: { dir: string; backendDir: string; homeDir: string }): void {
    this.directory(`${source}: backend`, project.backendDir);
    this.directory(`${source}: pulumi home`, project.homeDir);
    this.directory(`${source}: project`, project.dir);
  }

  /** How many texts were collected. */
  get size(): number {
    return this.#sources.length;
  }

  /** Every finding. */
  leaks(): Leak[] {
    return findLeaks(this.#sources, this.#secrets, "a credential seen by the test");
  }
}

/** The text of an error as a user would see it: message, and the output a failed CLI command carries. */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return [error.message, error.stack ?? "", JSON.stringify(error)].join("\n");
}
