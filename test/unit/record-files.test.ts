import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { flushDirectory, placeFile, replaceFile } from "../../src/core/record-files";

const roots: string[] = [];
function freshRoot(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "record-files-"));
  roots.push(root);
  return path.join(root, "records");
}

/** Counts the flushes of file contents (`datasync`) and of directories (`sync`) from now on. */
async function countFlushes(): Promise<{ datasync: number; sync: number }> {
  const probe = await fsp.open(os.tmpdir(), "r");
  const handlePrototype = Object.getPrototypeOf(probe) as fsp.FileHandle;
  await probe.close();
  const counts = { datasync: 0, sync: 0 };
  for (const method of ["datasync", "sync"] as const) {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its handle below
    const original = handlePrototype[method];
    vi.spyOn(handlePrototype, method).mockImplementation(function (this: fsp.FileHandle) {
      counts[method]++;
      return original.call(this);
    });
  }
  return counts;
}

afterEach(() => {
  vi.restoreAllMocks();
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

describe("record files: placed at once, flushed beside the caller's next step", () => {
  it("places a record before its flush, and the flush covers its content and then its directory", async () => {
    const root = freshRoot();
    const file = path.join(root, "stack", "a.json");
    const counts = await countFlushes();
    const { flushed } = await placeFile(root, file, "one\n");
    // In place (a crash of the process keeps it) before the flush is waited for.
    expect(fs.readFileSync(file, "utf8")).toBe("one\n");
    await flushed;
    expect(counts).toEqual({ datasync: 1, sync: 1 });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file))).toEqual(["a.json"]);
  });

  it("flushes a directory once for every caller waiting while a flush runs, and again for a later one", async () => {
    const dir = freshRoot();
    fs.mkdirSync(dir, { recursive: true });
    const counts = await countFlushes();
    // The first starts a flush; the nine that come while it runs share the next one.
    await Promise.all(Array.from({ length: 10 }, () => flushDirectory(dir)));
    expect(counts.sync).toBe(2);
    await flushDirectory(dir);
    expect(counts.sync).toBe(3);
  });

  it("makes a directory removed since this process made it again, private", async () => {
    const root = freshRoot();
    const file = path.join(root, "stack", "a.json");
    await replaceFile(root, file, "one\n", true);
    fs.rmSync(root, { recursive: true, force: true });
    await replaceFile(root, file, "two\n", false);
    expect(fs.readFileSync(file, "utf8")).toBe("two\n");
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
  });
});
