/**
 * The release as the end-to-end tests use it: `scripts/release.mts` run into a scratch directory
 * (with a `pluginDownloadURL` of the test's choosing), and that directory served over HTTP on the
 * loopback interface, as a release page or a company mirror serves it, with a log of what was asked.
 */
import { execFile, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { REPO_ROOT } from "./repo.mts";

/** The package's version, which every release artifact carries. */
export const PACKAGE_VERSION = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string }
).version;

/** The parts of a release `scripts/release.mts --only` takes. */
export type ReleasePart = "npm" | "plugin" | "python" | "go";

/** `scripts/release.mts`'s arguments for {@link buildRelease} and {@link buildReleaseInBackground}. */
function releaseArgs(out: string, pluginDownloadUrl: string, only?: readonly ReleasePart[]): string[] {
  return [
    path.join(REPO_ROOT, "scripts", "release.mts"),
    "--platforms",
    "linux-amd64",
    "--out",
    out,
    "--plugin-download-url",
    pluginDownloadUrl,
    ...(only === undefined ? [] : ["--only", only.join(",")]),
  ];
}

/**
 * Runs `npm run release`'s script (after `npm run build`, which the tests' global setup requires)
 * for linux-amd64 into `out`, with `pluginDownloadUrl` in the SDKs: every part, or only those of
 * `only`. The single executable comes from the cache when the plugin did not change.
 */
export function buildRelease(out: string, pluginDownloadUrl: string, only?: readonly ReleasePart[]): void {
  execFileSync(process.execPath, releaseArgs(out, pluginDownloadUrl, only), {
    cwd: REPO_ROOT,
    stdio: ["ignore", "ignore", "inherit"],
  });
}

/**
 * {@link buildRelease} without blocking: resolves when the script succeeded, rejects with its
 * output when it failed, with `env` added to the script's environment. A test starts it and goes
 * on with other work (the CLI's runs mostly wait), then awaits it where it needs the release.
 */
export function buildReleaseInBackground(
  out: string,
  pluginDownloadUrl: string,
  only?: readonly ReleasePart[],
  env: Record<string, string> = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      releaseArgs(out, pluginDownloadUrl, only),
      { cwd: REPO_ROOT, maxBuffer: 64 << 20, env: { ...process.env, ...env } },
      (error, _stdout, stderr) => {
        if (error === null) resolve();
        else reject(new Error(`scripts/release.mts failed: ${stderr}`, { cause: error }));
      },
    );
  });
}

/** A directory served over HTTP, and every request path it was asked for. */
export interface FileServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The path of every request, in order (`/pulumi-resource-broker-v…tar.gz`). */
  readonly requests: string[];
  close(): Promise<void>;
}

/** Serves the files under `dir` (GET only; 404 for anything else) on a free loopback port. */
export async function serveDirectory(dir: string): Promise<FileServer> {
  const requests: string[] = [];
  const root = path.resolve(dir);
  const server = http.createServer((request, response) => {
    const urlPath = decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname);
    requests.push(urlPath);
    const file = path.resolve(root, `.${urlPath}`);
    if (
      request.method !== "GET" ||
      !file.startsWith(`${root}${path.sep}`) ||
      !fs.statSync(file, { throwIfNoEntry: false })?.isFile()
    ) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, {
      "Content-Type": "application/octet-stream",
      "Content-Length": fs.statSync(file).size,
    });
    fs.createReadStream(file).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
