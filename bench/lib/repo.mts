/**
 * Where things are: the repository, the built package, the bench's scratch directory, Node and the
 * Pulumi CLI.
 *
 * A note on imports, for every bench module: Node runs these `.mts` files directly (type stripping),
 * so a bench module must be imported by its real file name, but the repository's tsconfig does not
 * allow `.mts`/`.ts` extensions in import paths (only in type-only imports). So bench modules, and
 * the built package, are imported for their types statically and loaded at run time by URL, with
 * {@link load}. Types come from `src/`, code from `dist/`: the bench measures what `npm run build` made.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The repository root. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Output of bench runs that is not committed (git-ignored): partial results, the last run's output. */
export const WORK_DIR = path.join(REPO_ROOT, "bench", ".work");

/** The bench's Pulumi programs. */
export const PROGRAMS_DIR = path.join(REPO_ROOT, "bench", "programs");

/** Loads a module by a path relative to `from` (an `import.meta.url`); see the note above. */
export async function load<T>(from: string, relative: string): Promise<T> {
  return (await import(new URL(relative, from).href)) as T;
}

/** Loads a module of the built package, e.g. `dist("emulator/index.js")`. */
export async function dist<T>(relative: string): Promise<T> {
  const file = path.join(REPO_ROOT, "dist", relative);
  if (!fs.existsSync(file))
    throw new Error(`${file} is missing: run \`npm run build\` first (\`npm run bench\` does)`);
  return (await import(pathToFileURL(file).href)) as T;
}

/** The directory of the Pulumi CLI, its Node.js language host and the dynamic-provider plugin. */
export function pulumiBinDir(): string {
  return execFileSync("bash", [path.join(REPO_ROOT, "scripts", "ensure-pulumi-cli.sh")], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
}

/** PATH for child processes: the Pulumi CLI first, then this Node, then the inherited PATH. */
export function childPath(pulumiBin?: string): string {
  const parts = [path.dirname(process.execPath), process.env["PATH"] ?? ""];
  if (pulumiBin !== undefined) parts.unshift(pulumiBin);
  return parts.join(path.delimiter);
}
