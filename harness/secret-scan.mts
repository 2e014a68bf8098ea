/**
 * The secret scan: no credential may appear in plain text in anything a test or a bench run
 * produced — state files and backups, CLI output, provider host stderr, error messages. Exact
 * values the run saw are searched for, and so are credential shapes (the emulator's `bka_`/`bks_`
 * key values, X25519 private keys), which also catches values the run never learned.
 *
 * A scan that read nothing finds nothing: every source is recorded with its kind, and a test asserts
 * by name that each kind it means to cover (the stack's state file, its backups and history, the
 * Pulumi home, the CLI output…) was really read and held text ({@link SecretScan.unread}).
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** Shapes of credentials, by kind. Public keys are not secrets and are not searched for. */
export const CREDENTIAL_PATTERNS: Readonly<Record<string, RegExp>> = {
  "access key value": /\bbk[as]_[A-Za-z0-9_-]{43}/u,
  // Base64 of the PKCS#8 DER of an X25519 private key starts with this fixed prefix.
  "private key": /MC4CAQAwBQYDK2VuBCIEI[A-Za-z0-9+/]{20,}/u,
};

/** What a scanned text is; {@link SecretScan.unread} names the kinds a scan did not cover. */
export type SourceKind =
  /** A stack's current state file in a file backend (`.pulumi/stacks/<project>/<stack>.json`). */
  | "state file"
  /** Earlier versions of it: `<stack>.json.bak` and `.pulumi/backups/**`. */
  | "state backup"
  /** The update history: `.pulumi/history/**` (each update's checkpoint and summary). */
  | "history"
  /** Anything else of the backend (metadata, locks). */
  | "backend metadata"
  /** Files under `PULUMI_HOME`. */
  | "pulumi home"
  /** The project directory: `Pulumi.yaml`, `Pulumi.<stack>.yaml` (stack config), the program. */
  | "project"
  /** What a CLI command printed (stdout and stderr). */
  | "cli output"
  /** An error as a caller sees it (message, stack, serialized fields). */
  | "error"
  /** A process's stderr (provider host, emulator). */
  | "stderr"
  /** Any other file. */
  | "file";

/** Values shorter than this are not searched for: they would match by chance. */
const MIN_SECRET_LENGTH = 8;

/** A finding: where and what kind, never the value (a failing run must not print the secret). */
export interface Leak {
  source: string;
  kind: string;
}

/** Which kind of backend file `relative` (a path inside a file backend's directory) is. */
function backendKind(relative: string): SourceKind {
  const parts = relative.split(path.sep);
  if (parts[0] !== ".pulumi") return "backend metadata";
  if (parts[1] === "stacks" && relative.endsWith(".json")) return "state file";
  if (parts[1] === "stacks" && relative.endsWith(".json.bak")) return "state backup";
  if (parts[1] === "backups") return "state backup";
  if (parts[1] === "history") return "history";
  return "backend metadata";
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
  readonly #sources: { source: string; kind: SourceKind; text: string }[] = [];
  readonly #secrets = new Set<string>();

  /** Adds credentials that must not appear anywhere. */
  secrets(...values: (string | undefined)[]): void {
    for (const value of values) if (value !== undefined) this.#secrets.add(value);
  }

  /** Adds a text the run produced (command output, an error message, a process's stderr), as `kind`. */
  text(source: string, text: string | undefined, kind: SourceKind): void {
    if (text !== undefined) this.#sources.push({ source, kind, text });
  }

  /**
   * Adds every file under `dir`; symbolic links are not followed. `kindOf` tells each file's kind
   * from its path relative to `dir` (default: all of `kind`).
   */
  directory(
    source: string,
    dir: string,
    kind: SourceKind | ((relative: string) => SourceKind) = "file",
  ): void {
    const kindOf = typeof kind === "function" ? kind : (): SourceKind => kind;
    const walk = (current: string): void => {
      if (!fs.existsSync(current)) return;
      for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
        const full = path.join(current, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.isFile()) {
          const relative = path.relative(dir, full);
          this.#sources.push({
            source: `${source}/${relative}`,
            kind: kindOf(relative),
            text: fs.readFileSync(full, "utf8"),
          });
        }
      }
    };
    walk(dir);
  }

  /**
   * Adds everything a `PulumiProject` (`pulumi-project.mts`) holds: its backend (state, backups, history), its
   * Pulumi home and the project directory itself (stack config files), but not the linked
   * `node_modules`.
   */
  project(source: string, project: { dir: string; backendDir: string; homeDir: string }): void {
    this.directory(`${source}: backend`, project.backendDir, backendKind);
    this.directory(`${source}: pulumi home`, project.homeDir, "pulumi home");
    this.directory(`${source}: project`, project.dir, "project");
  }

  /** How many texts were collected. */
  get size(): number {
    return this.#sources.length;
  }

  /**
   * The kinds among `kinds` of which no non-empty text was collected: a test asserts this is empty,
   * so a scan that silently read no state file (a moved backend, a renamed directory) fails.
   */
  unread(kinds: readonly SourceKind[]): SourceKind[] {
    const read = new Set(this.#sources.filter((s) => s.text.trim() !== "").map((s) => s.kind));
    return kinds.filter((kind) => !read.has(kind));
  }

  /** Every finding. */
  leaks(): Leak[] {
    return findLeaks(this.#sources, this.#secrets, "a credential seen by the test");
  }
}

/** The kinds every scan of a CLI test must have read: the engine's files and what the CLI printed. */
export const CLI_TEST_SOURCES: readonly SourceKind[] = [
  "state file",
  "state backup",
  "history",
  "pulumi home",
  "cli output",
];

/** The text of an error as a user would see it: message, and the output a failed CLI command carries. */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return [error.message, error.stack ?? "", JSON.stringify(error)].join("\n");
}
