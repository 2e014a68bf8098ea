/**
 * Where the bench's own things are: its scratch output, its Pulumi programs, and the built package.
 * (The repository root, the Pulumi CLI and the rest of the test harness are in `harness/`, shared
 * with the tests.)
 *
 * Types come from `src/`, code from `dist/` (loaded with {@link dist}): the bench measures what
 * `npm run build` made, so a bench module imports the package's modules for their types only.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "../../harness/repo.mts";

/** Output of bench runs that is not committed (git-ignored): partial results, the last run's output. */
export const WORK_DIR = path.join(REPO_ROOT, "bench", ".work");

/** The bench's Pulumi programs. */
export const PROGRAMS_DIR = path.join(REPO_ROOT, "bench", "programs");

/** Loads a module of the built package, e.g. `dist("emulator/index.js")`. */
export async function dist<T>(relative: string): Promise<T> {
  const file = path.join(REPO_ROOT, "dist", relative);
  if (!fs.existsSync(file))
    throw new Error(`${file} is missing: run \`npm run build\` first (\`npm run bench\` does)`);
  return (await import(pathToFileURL(file).href)) as T;
}
