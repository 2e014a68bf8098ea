/**
 * The `broker-config-emulator` command as users run it: compiled JavaScript in a child process.
 *
 * It is compiled here (emulator sources only, with the project's build settings) into a temporary
 * directory, so the test neither depends on nor disturbs the shared dist/ folder.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ApiCaller, listQuery } from "../support/emulator";

const REPO = path.resolve(__dirname, "../..");
let buildDirectory: string;
let cli: string;
const children: ChildProcess[] = [];

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the first stdout line. */
  firstLine: Promise<string>;
  /** Resolves with all of stdout once it contains `text`; rejects if the process exits first. */
  stdoutUntil: (text: string) => Promise<string>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function run(args: string[]): Run {
  const child = spawn(process.execPath, [cli, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (data: Buffer) => {
    stderr += data.toString();
  });
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (data: Buffer) => {
      stdout += data.toString();
      const end = stdout.indexOf("\n");
      if (end !== -1) resolve(stdout.slice(0, end));
    });
    child.once("exit", () => {
      reject(new Error(`exited before printing a line; stderr: ${stderr}`));
    });
  });
  firstLine.catch(() => undefined);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      resolve({ code, signal });
    });
  });
  const stdoutUntil = (text: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (stdout.includes(text)) resolve(stdout);
      };
      child.stdout.on("data", check);
      child.once("exit", () => {
        reject(new Error(`exited before printing ${JSON.stringify(text)}; stdout: ${stdout}`));
      });
      check();
    });
  return { child, stdout: () => stdout, stderr: () => stderr, firstLine, stdoutUntil, exit };
}

function freePort(): Promise<{ port: number; release: () => Promise<void> }> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      const release = (): Promise<void> =>
        new Promise((done) => {
          server.close(() => {
            done();
          });
        });
      resolve({ port, release });
    });
  });
}

beforeAll(() => {
  buildDirectory = mkdtempSync(path.join(tmpdir(), "emulator-cli-"));
  const tsconfig = path.join(buildDirectory, "tsconfig.json");
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: path.join(REPO, "tsconfig.build.json"),
      compilerOptions: {
        rootDir: path.join(REPO, "src"),
        outDir: path.join(buildDirectory, "dist"),
        typeRoots: [path.join(REPO, "node_modules", "@types")],
        declaration: false,
        declarationMap: false,
        sourceMap: false,
      },
      include: [path.join(REPO, "src", "emulator")],
      exclude: [],
    }),
  );
  execFileSync(
    process.execPath,
    [path.join(REPO, "node_modules", "typescript", "bin", "tsc"), "-p", tsconfig],
    {
      stdio: "pipe",
    },
  );
  // The bin first requires ../../scripts/check-node.cjs (the Node version check), which reads
  // package.json beside it: lay them out as in the package.
  mkdirSync(path.join(buildDirectory, "scripts"));
  copyFileSync(
    path.join(REPO, "scripts", "check-node.cjs"),
    path.join(buildDirectory, "scripts", "check-node.cjs"),
  );
  copyFileSync(path.join(REPO, "package.json"), path.join(buildDirectory, "package.json"));
  cli = path.join(buildDirectory, "dist", "emulator", "cli.js");
});

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

afterAll(() => {
  rmSync(buildDirectory, { recursive: true, force: true });
});

describe("broker-config-emulator", () => {
  it("is an executable node script", () => {
    expect(readFileSync(cli, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
  });

  it("--json prints exactly one JSON line, serves the API, and exits 0 on SIGTERM without losing data", async () => {
    const directory = mkdtempSync(path.join(tmpdir(), "emulator-cli-db-"));
    const db = path.join(directory, "broker.db");
    try {
      const first = run(["--json", "--port", "0", "--db", db, "--controls"]);
      const line = JSON.parse(await first.firstLine) as { url: string; adminKey: string; controlUrl: string };
      expect(Object.keys(line).sort()).toEqual(["adminKey", "controlUrl", "url"]);
      expect(line.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      expect(line.controlUrl).toBe(line.url.replace(/\/v1$/, "/_emulator"));
      const api = new ApiCaller(line.url, line.adminKey);
      expect((await api.post("/workspace", { name: "before-sigterm" })).status).toBe(201);

      first.child.kill("SIGTERM");
      expect(await first.exit).toEqual({ code: 0, signal: null });
      expect(first.stdout()).toBe(`${JSON.stringify(line)}\n`);

      const second = run(["--json", "--port", "0", "--db", db]);
      const again = JSON.parse(await second.firstLine) as { url: string; adminKey: string };
      expect(again.adminKey).toBe(line.adminKey);
      const workspaces = await new ApiCaller(again.url, again.adminKey).get("/workspace", {
        query: listQuery({ name: "before-sigterm" }),
      });
      expect(workspaces.body).toMatchObject({ resultsLength: 1 });
      second.child.kill("SIGINT");
      expect((await second.exit).code).toBe(0);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("--db makes the file 0600 and its directory 0700 under umask 022, and warns on stderr when others can read it", async () => {
    const directory = mkdtempSync(path.join(tmpdir(), "emulator-cli-db-"));
    const db = path.join(directory, "data", "broker.db");
    const mode = (file: string): string => (statSync(file).mode & 0o777).toString(8);
    // The child inherits the umask of the process that spawns it.
    const umask = process.umask(0o022);
    try {
      const first = run(["--json", "--port", "0", "--db", db]);
      await first.firstLine;
      expect([path.dirname(db), db, `${db}-wal`, `${db}-shm`].map(mode)).toEqual([
        "700",
        "600",
        "600",
        "600",
      ]);
      first.child.kill("SIGTERM");
      expect((await first.exit).code).toBe(0);
      expect(first.stderr()).toBe("");

      chmodSync(db, 0o644);
      const second = run(["--json", "--port", "0", "--db", db]);
      const line = await second.firstLine;
      expect(second.stderr()).toBe(
        `broker-config-emulator: warning: ${db} holds key values and private keys in plain text but is ` +
          `readable by others (mode 0644); restrict it with \`chmod 600 ${db}\`.\n`,
      );
      // The warning stays off stdout, which --json keeps to its one line.
      expect(second.stdout()).toBe(`${line}\n`);
      expect(mode(db)).toBe("644");
      second.child.kill("SIGTERM");
      expect((await second.exit).code).toBe(0);
    } finally {
      process.umask(umask);
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("prints a human banner with the /v1 URL and the given admin key, on the given port", async () => {
    const { port, release } = await freePort();
    await release();
    const started = run(["--port", String(port), "--admin-key", "bka_from-the-command-line"]);
    const banner = await started.stdoutUntil("Press Ctrl+C to stop.");
    expect(banner).toContain(`http://127.0.0.1:${port}/v1`);
    expect(banner).toContain("bka_from-the-command-line");
    const api = new ApiCaller(`http://127.0.0.1:${port}/v1`, "bka_from-the-command-line");
    expect((await api.get("/access-key", { query: listQuery() })).status).toBe(200);
    started.child.kill("SIGINT");
    expect((await started.exit).code).toBe(0);
  });

  it("--merge-permissions makes permission updates merge", async () => {
    const started = run(["--json", "--port", "0", "--merge-permissions"]);
    const line = JSON.parse(await started.firstLine) as { url: string; adminKey: string };
    const api = new ApiCaller(line.url, line.adminKey);
    const created = (
      await api.post("/access-key", { name: "k", type: "SERVICE", permissions: { send: ["a"] } })
    ).body as {
      accessKey: string;
    };
    await api.post(`/access-key/${created.accessKey}/permissions`, { send: ["b"] });
    expect((await api.get(`/access-key/${created.accessKey}/permissions`)).body).toMatchObject({
      permissions: { send: ["a", "b"] },
    });
    started.child.kill("SIGTERM");
    expect((await started.exit).code).toBe(0);
  });

  it("--rate-limit and --rate-limit-scope limit the API from the start, shown in the banner and the controls", async () => {
    const banner = run(["--port", "0", "--rate-limit", "7", "--rate-limit-scope", "overall"]);
    await banner.firstLine;
    banner.child.kill("SIGTERM");
    expect((await banner.exit).code).toBe(0);
    expect(banner.stdout()).toContain("rate limit:                 7 requests per second over all requests");

    const started = run(["--json", "--port", "0", "--controls", "--rate-limit", "1"]);
    const line = JSON.parse(await started.firstLine) as { url: string; adminKey: string; controlUrl: string };
    const status = await fetch(`${line.controlUrl}/rate-limit`);
    expect(await status.json()).toEqual({
      limit: { requestsPerSecond: 1, scope: "key" },
      rateLimitedResponses: 0,
    });
    started.child.kill("SIGTERM");
    expect((await started.exit).code).toBe(0);
  });

  it("--help prints the usage and exits 0", async () => {
    const help = run(["--help"]);
    expect((await help.exit).code).toBe(0);
    expect(help.stdout()).toContain("Usage: broker-config-emulator");
    expect(help.stdout()).toContain("--merge-permissions");
  });

  it.each([
    [["--nope"]],
    [["--port", "abc"]],
    [["--port", "70000"]],
    [["positional"]],
    [["--admin-key", ""]],
    [["--rate-limit", "0"]],
    [["--rate-limit", "2.5"]],
    [["--rate-limit", "10001"]],
    [["--rate-limit", "5", "--rate-limit-scope", "ip"]],
    [["--rate-limit-scope", "overall"]],
  ])("refuses %j with the usage on stderr and exit code 2", async (args) => {
    const bad = run(args);
    expect((await bad.exit).code).toBe(2);
    expect(bad.stderr()).toContain("Usage: broker-config-emulator");
    expect(bad.stdout()).toBe("");
  });

  it("exits 1 with a message when the port is taken", async () => {
    const { port, release } = await freePort();
    try {
      const clash = run(["--json", "--port", String(port)]);
      expect((await clash.exit).code).toBe(1);
      expect(clash.stderr()).toMatch(/cannot start/);
      expect(clash.stdout()).toBe("");
    } finally {
      await release();
    }
  });
});
