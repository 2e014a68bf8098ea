/**
 * What the end-to-end tests of the native `broker` provider share, whatever the program's language:
 * installing the plugin into a project's Pulumi home as users do, and reading (or writing) the
 * emulator's objects through the configuration API itself, to check what the CLI run did.
 */
import { execFile, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";

/** An API endpoint and the ACCOUNT key to call it with (an emulator's `url` and `adminKey`). */
export interface BrokerEndpoint {
  readonly url: string;
  readonly adminKey: string;
}

/** The `broker-config` command of the package linked into the project, as `npx broker-config` runs it. */
export function brokerConfigCli(project: { dir: string }): string {
  return path.join(project.dir, "node_modules", "pulumi-broker-config", "dist", "cli", "broker-config.js");
}

/**
 * Runs `broker-config export` of the package linked into `project` (a project directory, or a package
 * fixture's) against `target` with its admin key as `BROKER_API_KEY`, writing `file`; resolves with the
 * file's text. Asynchronous, so that an emulator running in the caller's process keeps answering.
 */
export async function exportBroker(project: string, target: BrokerEndpoint, file: string): Promise<string> {
  await promisify(execFile)(
    process.execPath,
    [brokerConfigCli({ dir: project }), "export", "--base-url", target.url, "--out", file],
    { env: { PATH: process.env["PATH"], BROKER_API_KEY: target.adminKey } },
  );
  return fs.readFileSync(file, "utf8");
}

/**
 * Runs `broker-config plugin install` from the project's linked package, with the project's own
 * `PULUMI_HOME`: the command users run, so the engine finds the plugin where users have it.
 */
export function installBrokerPlugin(project: { dir: string; homeDir: string }): void {
  const cli = brokerConfigCli(project);
  execFileSync(process.execPath, [cli, "plugin", "install"], {
    env: { ...process.env, PULUMI_HOME: project.homeDir },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

/** Calls the API at `target` with its admin key; rejects naming the route and status on a failure. */
export async function brokerApi(
  target: BrokerEndpoint,
  method: "GET" | "POST",
  route: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${target.url}${route}`, {
    method,
    headers: { "X-API-KEY": target.adminKey, "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  const text = await response.text();
  return text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
}

/** Every access key at `target` (up to 100), oldest first, as the API returns them. */
export async function allKeys(target: BrokerEndpoint): Promise<Record<string, unknown>[]> {
  const body = await brokerApi(
    target,
    "GET",
    "/access-key?pageIndex=0&limit=100&order=ASC&orderBy=createdAt",
  );
  return body["results"] as Record<string, unknown>[];
}

/**
 * Creates an access key at `target` through the API, as a team did before Pulumi managed it, and
 * returns the broker's record of it (its value included).
 */
export async function createKeyThroughApi(
  target: BrokerEndpoint,
  key: { name: string; type: "SERVICE" | "ACCOUNT"; permissions: { send: string[]; receive: string[] } },
): Promise<Record<string, unknown>> {
  await brokerApi(target, "POST", "/access-key", key);
  const created = (await allKeys(target)).find((k) => k["name"] === key.name);
  if (created === undefined) throw new Error(`the broker lists no key "${key.name}" after creating it`);
  return created;
}

/** Every workspace at `target` (up to 100), by name, as the API returns them. */
export async function allWorkspaces(target: BrokerEndpoint): Promise<Record<string, unknown>[]> {
  const body = await brokerApi(target, "GET", "/workspace?pageIndex=0&limit=100&order=ASC&orderBy=name");
  return body["results"] as Record<string, unknown>[];
}

/** The key with numeric id `id` among `keys`. */
export function keyById(keys: Record<string, unknown>[], id: number): Record<string, unknown> | undefined {
  return keys.find((k) => k["id"] === id);
}

/** The permissions of a revoked key. */
export const NO_PERMISSIONS = { send: [], receive: [], resources: {} };
