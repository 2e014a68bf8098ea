/** What every bench section gets, and what it leaves for the report and the secret scan. */

/** Shared state of one bench run. */
export interface BenchContext {
  /** The repository root. */
  readonly repoRoot: string;
  /** Scratch directory of this run. */
  readonly workDir: string;
  /** The package fixture: the packed package installed as users get it. */
  readonly fixture: string;
  /** The Pulumi CLI's bin directory. */
  readonly pulumiBin: string;
  /** Progress, to stderr. */
  log(message: string): void;
  /** Credentials seen during the run (admin keys, key values, private keys): none may appear in any output. */
  readonly secrets: Set<string>;
  /** Everything the run produced as text (CLI output, state files, provider host stderr, errors). */
  readonly produced: { source: string; text: string }[];
}
