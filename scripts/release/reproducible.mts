/**
 * What makes the release's files the same bytes from the same inputs: the build time taken from
 * the commit (`SOURCE_DATE_EPOCH`), tar.gz archives with sorted entries, fixed owners and times and
 * no time in the gzip header, and the SHA-256 sums `checksums.txt` lists.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

/**
 * The release's build time in seconds since 1970: `SOURCE_DATE_EPOCH` when set (the convention of
 * reproducible builds), else the time of the commit `repo` has checked out, so that two releases of
 * one commit stamp their files alike.
 */
export function sourceDateEpoch(repo: string): number {
  const fromEnv = process.env["SOURCE_DATE_EPOCH"];
  if (fromEnv !== undefined && fromEnv !== "") {
    if (!/^\d+$/u.test(fromEnv))
      throw new Error(`SOURCE_DATE_EPOCH is "${fromEnv}", not a number of seconds`);
    return Number(fromEnv);
  }
  const committed = execFileSync("git", ["log", "-1", "--format=%ct", "HEAD"], {
    cwd: repo,
    encoding: "utf8",
  }).trim();
  return Number(committed);
}

/** One file of an archive: its name inside, its source, and its mode. */
export interface ArchiveEntry {
  readonly name: string;
  readonly source: string;
  readonly mode: 0o755 | 0o644;
}

/**
 * Writes `out`, a gzipped tar of `entries` (files at the archive's root or below), reproducibly:
 * entries sorted by name, owned by 0:0 without names, every time `mtime`, and a gzip header without
 * a name or time. GNU tar and gzip do the work (both on every machine the project builds on).
 */
export function reproducibleTarGz(entries: readonly ArchiveEntry[], mtime: number, out: string): void {
  const staging = fs.mkdtempSync(`${out}.staging-`);
  try {
    for (const entry of entries) {
      const target = path.join(staging, entry.name);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(entry.source, target);
      fs.chmodSync(target, entry.mode);
    }
    const names = entries.map((e) => e.name).sort();
    const tar = execFileSync(
      "tar",
      [
        "--create",
        "--format=gnu",
        "--sort=name",
        "--owner=0",
        "--group=0",
        "--numeric-owner",
        `--mtime=@${mtime}`,
        "--no-recursion",
        "--directory",
        staging,
        "--",
        ...names,
      ],
      { maxBuffer: 1 << 30 },
    );
    fs.writeFileSync(out, execFileSync("gzip", ["-n", "-6"], { input: tar, maxBuffer: 1 << 30 }));
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * {@link reproducibleTarGz}, kept in `cacheDir` by the hash of everything the archive is made of:
 * each entry's name, mode and bytes, `mtime`, and the versions of tar and gzip (another gzip may
 * compress otherwise). The plugin's archive gzips a 145 MB executable, 12 s of CPU on every release
 * of the same executable: from the cache it is a copy. The cached file is written by rename, so a
 * concurrent release never copies half of one.
 */
export function cachedReproducibleTarGz(
  entries: readonly ArchiveEntry[],
  mtime: number,
  out: string,
  cacheDir: string,
): void {
  const hash = createHash("sha256").update(`${mtime}\0${toolVersions()}\0`);
  for (const entry of [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)))
    hash.update(`${entry.name}\0${entry.mode}\0`).update(fs.readFileSync(entry.source)).update("\0");
  const cached = path.join(cacheDir, `${hash.digest("hex").slice(0, 32)}.tar.gz`);
  if (!fs.existsSync(cached)) {
    fs.mkdirSync(cacheDir, { recursive: true });
    const partial = `${cached}.${process.pid}.partial`;
    try {
      reproducibleTarGz(entries, mtime, partial);
      fs.renameSync(partial, cached);
    } finally {
      fs.rmSync(partial, { force: true });
    }
  }
  fs.copyFileSync(cached, out);
}

/** The first line of `tar --version` and of `gzip --version`: what makes an archive's bytes besides its entries. */
function toolVersions(): string {
  return ["tar", "gzip"]
    .map((tool) => execFileSync(tool, ["--version"], { encoding: "utf8" }).split("\n")[0] ?? "")
    .join("\0");
}

/** Every file under `dir`, as paths relative to it with `/` separators, sorted. */
export function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => fs.statSync(path.join(dir, file)).isFile())
    .map((file) => file.split(path.sep).join("/"))
    .sort();
}

/** The SHA-256 of a file, in hex. */
export function sha256File(file: string): string {
  return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

/**
 * The text of `checksums.txt` for `dir`: `<sha256>  <path>` per file (the format `sha256sum -c`
 * reads), sorted by path, leaving out `checksums.txt` itself.
 */
export function checksums(dir: string): string {
  return filesUnder(dir)
    .filter((file) => file !== "checksums.txt")
    .map((file) => `${sha256File(path.join(dir, file))}  ${file}\n`)
    .join("");
}
