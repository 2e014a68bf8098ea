/**
 * `dbFile` persistence: everything written before a close is there after a restart on the same file,
 * including key pairs, permissions, workspaces, id counters and the admin key.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { ApiCaller, listQuery } from "../support/emulator";

let directory: string;
let dbFile: string;
const running: EmulatorHandle[] = [];

async function start(
  options: { adminKey?: string } = {},
): Promise<{ emulator: EmulatorHandle; api: ApiCaller }> {
  const emulator = await startEmulator({ dbFile, controls: true, ...options });
  running.push(emulator);
  return { emulator, api: new ApiCaller(emulator.url, emulator.adminKey) };
}

async function startInMemory(): Promise<{ api: ApiCaller }> {
  const emulator = await startEmulator({ dbFile: ":memory:" });
  running.push(emulator);
  return { api: new ApiCaller(emulator.url, emulator.adminKey) };
}

async function snapshot(api: ApiCaller): Promise<{ keys: unknown; workspaces: unknown }> {
  const keys = await api.get("/access-key", { query: listQuery() });
  const workspaces = await api.get("/workspace", { query: listQuery() });
  return { keys: keys.body, workspaces: workspaces.body };
}

beforeEach(() => {
  directory = mkdtempSync(path.join(tmpdir(), "emulator-db-"));
  dbFile = path.join(directory, "broker.db");
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
  rmSync(directory, { recursive: true, force: true });
});

describe("dbFile persistence", () => {
  it("reads back keys, pairs, permissions, workspaces and the admin key after a restart", async () => {
    const first = await start();
    const service = (
      await first.api.post("/access-key", { name: "svc", type: "SERVICE", permissions: { send: ["a/*"] } })
    ).body as { accessKey: string; accessKeyId: string };
    await first.api.post(`/access-key/${service.accessKey}/permissions`, {
      receive: ["b"],
      resources: { r: { x: 1 } },
    });
    const rotated = (await first.api.put("/access/service-key-pair", { access_key: service.accessKey }))
      .body as {
      public_key: string;
    };
    await first.api.post("/workspace", { name: "top" });
    await first.api.post("/workspace", { name: "child", parentId: 1 });
    const before = await snapshot(first.api);
    await first.emulator.close();

    const second = await start();
    expect(second.emulator.adminKey).toBe(first.emulator.adminKey);
    expect(await snapshot(second.api)).toEqual(before);
    expect(await second.emulator.controls?.publicKeyOf(Number(service.accessKeyId))).toBe(rotated.public_key);
    expect((await second.api.get(`/access-key/${service.accessKey}/permissions`)).body).toMatchObject({
      permissions: { send: ["a/*"], receive: ["b"], resources: { r: { x: 1 } } },
    });
    expect((await second.api.get("/workspace", { query: listQuery({ name: "child" }) })).body).toMatchObject({
      results: [{ path: "/top/child", parentId: 1 }],
    });
  });

  it("continues the id counters after a restart and never reuses a deleted id", async () => {
    const first = await start();
    const created = (await first.api.post("/access-key", { name: "k", type: "ACCOUNT", permissions: {} }))
      .body as {
      accessKeyId: string;
    };
    await first.emulator.controls?.removeAccessKey(Number(created.accessKeyId));
    await first.api.post("/workspace", { name: "w" });
    await first.emulator.close();

    const second = await start();
    const next = (await second.api.post("/access-key", { name: "k2", type: "ACCOUNT", permissions: {} }))
      .body as {
      accessKeyId: string;
    };
    expect(Number(next.accessKeyId)).toBe(Number(created.accessKeyId) + 1);
    await second.api.post("/workspace", { name: "w2" });
    expect((await second.api.get("/workspace", { query: listQuery({ name: "w2" }) })).body).toMatchObject({
      results: [{ id: 2 }],
    });
  });

  it("uses a given admin key, keeps the old one valid, and reuses the given one on the next plain restart", async () => {
    const first = await start();
    await first.emulator.close();

    const second = await start({ adminKey: "bka_chosen-by-the-test" });
    expect(second.emulator.adminKey).toBe("bka_chosen-by-the-test");
    expect((await second.api.get(`/access/verify/${first.emulator.adminKey}`)).body).toEqual({
      status: true,
    });
    await second.emulator.close();

    const third = await start();
    expect(third.emulator.adminKey).toBe("bka_chosen-by-the-test");
  });

  it("persists each write immediately, before any close", async () => {
    const first = await start();
    await first.api.post("/workspace", { name: "unsaved?" });
    // A second emulator on the same file sees the write while the first is still running.
    const second = await start();
    expect(
      (await second.api.get("/workspace", { query: listQuery({ name: "unsaved?" }) })).body,
    ).toMatchObject({
      resultsLength: 1,
    });
  });

  it("refuses an admin key that names a SERVICE key in the database", async () => {
    const first = await start();
    const service = (await first.api.post("/access-key", { name: "s", type: "SERVICE", permissions: {} }))
      .body as {
      accessKey: string;
    };
    await first.emulator.close();
    await expect(startEmulator({ dbFile, adminKey: service.accessKey })).rejects.toThrow(/SERVICE/);
  });
});

describe("database file permissions", () => {
  const mode = (file: string): string => (statSync(file).mode & 0o777).toString(8);
  let umask: number;
  beforeEach(() => {
    umask = process.umask(0o022);
  });
  afterEach(() => {
    process.umask(umask);
  });

  it("creates the database, its -wal and -shm files 0600 and its directory 0700 under umask 022", async () => {
    const nested = path.join(directory, "data", "emulator.db");
    const warnings: string[] = [];
    const emulator = await startEmulator({ dbFile: nested, warn: (m) => warnings.push(m) });
    running.push(emulator);
    // A write, so that SQLite has made its companions.
    await new ApiCaller(emulator.url, emulator.adminKey).post("/workspace", { name: "w" });
    expect(mode(path.join(directory, "data"))).toBe("700");
    expect([nested, `${nested}-wal`, `${nested}-shm`].map(mode)).toEqual(["600", "600", "600"]);
    expect(warnings).toEqual([]);
  });

  // An empty file (made by hand, say) gets its companions from the schema's first write; a database
  // with tables gets them from the first read in WAL mode. Both must end up 0600.
  it.each([
    [
      "an empty one",
      (): Promise<void> => {
        writeFileSync(dbFile, "");
        return Promise.resolve();
      },
    ],
    [
      "one with data",
      async (): Promise<void> => {
        await (await startEmulator({ dbFile })).close();
      },
    ],
  ])(
    "warns about an existing database file others can read (%s), leaves its mode alone, and makes its new -wal and -shm 0600",
    async (_, make) => {
      await make();
      chmodSync(dbFile, 0o644);
      const warnings: string[] = [];
      running.push(await startEmulator({ dbFile, warn: (m) => warnings.push(m) }));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`${dbFile} holds key values and private keys in plain text`);
      expect(warnings[0]).toContain("(mode 0644)");
      expect(warnings[0]).toContain(`chmod 600 ${dbFile}`);
      expect([dbFile, `${dbFile}-wal`, `${dbFile}-shm`].map(mode)).toEqual(["644", "600", "600"]);
    },
  );

  it('takes dbFile ":memory:" as SQLite does, a database in memory, and makes no file of that name', async () => {
    const cwd = process.cwd();
    process.chdir(directory);
    try {
      const { api } = await startInMemory();
      expect((await api.post("/workspace", { name: "w" })).status).toBe(201);
      expect(readdirSync(directory)).toEqual([]);
    } finally {
      process.chdir(cwd);
    }
  });

  it("warns about an existing -wal file others can read, and leaves its mode alone", async () => {
    // A second emulator on the same file while the first runs finds the first one's -wal and -shm.
    running.push(await startEmulator({ dbFile }));
    chmodSync(`${dbFile}-wal`, 0o640);
    const warnings: string[] = [];
    running.push(await startEmulator({ dbFile, warn: (m) => warnings.push(m) }));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`${dbFile}-wal holds key values`);
    expect(warnings[0]).toContain("(mode 0640)");
    expect(warnings[0]).toContain(`chmod 600 ${dbFile}-wal`);
    expect([dbFile, `${dbFile}-wal`, `${dbFile}-shm`].map(mode)).toEqual(["600", "640", "600"]);
  });
});
