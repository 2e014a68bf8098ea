import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  cachedReproducibleTarGz,
  reproducibleTarGz,
  type ArchiveEntry,
} from "../../scripts/release/reproducible.mts";

// The release's archives are the same bytes from the same files (docs/decisions.md, "Release
// artifacts"). The end-to-end release test builds twice from one cache, so the plugin archive's
// second build is a copy: that the bytes come from the files alone, and that the cache is keyed by
// them, is checked here.

const MTIME = 315532800;
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-release-archive-"));
  dirs.push(dir);
  return dir;
}

/** Writes `files` (name → text) into a new directory, each with file time `time`; returns the entries. */
function sources(files: Record<string, string>, time: Date): ArchiveEntry[] {
  const dir = tempDir();
  return Object.entries(files).map(([name, text]) => {
    const source = path.join(dir, name);
    fs.writeFileSync(source, text);
    fs.utimesSync(source, time, time);
    return { name, source, mode: name === "tool" ? 0o755 : 0o644 };
  });
}

const FILES = { tool: "#!/bin/sh\necho hi\n", "README.md": "# read me\n" };

describe("reproducibleTarGz", () => {
  it("writes the same bytes from the same files, whatever their place, order and file times", () => {
    const out = tempDir();
    reproducibleTarGz(sources(FILES, new Date(1_000_000_000_000)), MTIME, path.join(out, "a.tar.gz"));
    reproducibleTarGz(
      sources(FILES, new Date(1_700_000_000_000)).reverse(),
      MTIME,
      path.join(out, "b.tar.gz"),
    );
    expect(fs.readFileSync(path.join(out, "b.tar.gz"))).toEqual(fs.readFileSync(path.join(out, "a.tar.gz")));
  });
});

describe("cachedReproducibleTarGz", () => {
  it("gives reproducibleTarGz's bytes, from the cache for the same files, and a new archive when a file changes", () => {
    const out = tempDir();
    const cache = path.join(tempDir(), "cache");
    const plain = path.join(out, "plain.tar.gz");
    reproducibleTarGz(sources(FILES, new Date()), MTIME, plain);

    cachedReproducibleTarGz(sources(FILES, new Date()), MTIME, path.join(out, "first.tar.gz"), cache);
    expect(fs.readFileSync(path.join(out, "first.tar.gz"))).toEqual(fs.readFileSync(plain));
    expect(fs.readdirSync(cache)).toHaveLength(1);

    cachedReproducibleTarGz(sources(FILES, new Date(0)), MTIME, path.join(out, "again.tar.gz"), cache);
    expect(fs.readFileSync(path.join(out, "again.tar.gz"))).toEqual(fs.readFileSync(plain));
    expect(fs.readdirSync(cache)).toHaveLength(1);

    const edited = { ...FILES, "README.md": "# read me, edited\n" };
    const changed = path.join(out, "changed.tar.gz");
    cachedReproducibleTarGz(sources(edited, new Date()), MTIME, changed, cache);
    const expected = path.join(out, "expected.tar.gz");
    reproducibleTarGz(sources(edited, new Date()), MTIME, expected);
    expect(fs.readFileSync(changed)).toEqual(fs.readFileSync(expected));
    expect(fs.readFileSync(changed)).not.toEqual(fs.readFileSync(plain));
    expect(fs.readdirSync(cache)).toHaveLength(2);

    // A mode is part of the archive, so of the key too.
    const modes = sources(FILES, new Date()).map((e) => ({ ...e, mode: 0o644 as const }));
    cachedReproducibleTarGz(modes, MTIME, path.join(out, "modes.tar.gz"), cache);
    expect(fs.readFileSync(path.join(out, "modes.tar.gz"))).not.toEqual(fs.readFileSync(plain));
    expect(fs.readdirSync(cache)).toHaveLength(3);
  });
});
