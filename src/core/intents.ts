/**
 * Create intents: a durable note, written on the machine where the provider runs before a create is
 * sent, of what that create asks the broker to make; removed once the create's answer is in.
 *
 * Why: when only the provider process dies (an out-of-memory kill, a crash) while a `POST` is on the
 * wire, the CLI lives on, reports the create as failed and records nothing: the object exists on the
 * broker and nobody remembers it. Key names are not unique, so the next `pulumi up` would make a
 * second key. The intent survives the process: a later create of the same resource finds it, looks
 * for the object it made (same identifying fields, created at or after it, not taken by another
 * intent) and takes it over instead of creating another. `broker-config recover` reads the same
 * records. Where they live, how big they grow and how they are cleaned: docs/decisions.md,
 * "A crashed provider never duplicates a key".
 *
 * An intent never holds a secret: the stack, the URN, the endpoint, the name, type and permissions
 * (a key) or the name and parent (a workspace), and when it was sent.
 */
import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { isBrokerApiError, type BrokerClient } from "../client";
import { CLOCK_SKEW_MARGIN_MS } from "../client/constants";
import type { AccessKeyRecord, AccessKeyType, Permissions, WorkspaceRecord } from "../client/types";
import { samePermissions } from "../model";

/** What a door knows of the resource a create is for: its URN (which names its stack and project). */
export interface CreateOrigin {
  /** The resource's URN, `urn:pulumi:<stack>::<project>::<type>::<name>`. */
  readonly urn: string;
  /** Where intents are kept; the default store of the process (see {@link defaultIntentStore}) when absent. */
  readonly intents?: IntentStore;
}

/** What an access key's create asks for: how the key it made is recognised. */
export interface AccessKeyIntentObject {
  readonly name: string;
  readonly type: AccessKeyType;
  readonly permissions: Permissions;
}

/** What a workspace's create asks for. */
export interface WorkspaceIntentObject {
  readonly name: string;
  /** 0 for top level. */
  readonly parentId: number;
}

/** One create that was about to be sent, as recorded. */
export type Intent = IntentCommon &
  (
    | { readonly kind: "AccessKey"; readonly object: AccessKeyIntentObject }
    | { readonly kind: "Workspace"; readonly object: WorkspaceIntentObject }
  );

interface IntentCommon {
  /** The record format; a record of another version is not read (it is left for its own version). */
  readonly version: 1;
  readonly urn: string;
  /** The API endpoint the create was sent to (normalised, as resources record it). */
  readonly baseUrl: string;
  /** When the create was about to be sent, ISO 8601 (the provider's clock). */
  readonly sentAt: string;
}

/** The kinds of object whose creates are recorded. */
export type IntentKind = Intent["kind"];

/** A stack, as a URN names it. */
export interface StackName {
  readonly project: string;
  readonly stack: string;
}

/**
 * Intents older than this are removed unread when their stack's intents are read: an object made so
 * long ago by a create nobody finished is no longer taken over (the README says how to find it).
 */
export const INTENT_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

/** Records larger than this are not intents of ours (a key's permissions fit well within it). */
const MAX_RECORD_BYTES = 256 * 1024;

/** The stack and project a URN names, or `undefined` for text that is no Pulumi URN. */
export function stackOfUrn(urn: string): StackName | undefined {
  // Neither a stack's nor a project's name may hold a colon.
  const match = /^urn:pulumi:([^:]+)::([^:]+)::/u.exec(urn);
  if (match === null) return undefined;
  return { stack: match[1] as string, project: match[2] as string };
}

/** A name as a single, portable directory name: anything but letters, digits, `-`, `_` and `.` escaped. */
function directoryName(name: string): string {
  const escaped = name.replace(
    /[^A-Za-z0-9_.-]/gu,
    (c) => `%${c.codePointAt(0)?.toString(16).padStart(2, "0")}`,
  );
  // "." and ".." would mean something else.
  return /^\.+$/u.test(escaped) ? escaped.replace(/\./gu, "%2e") : escaped;
}

/** The file of a resource's intent: one per URN, so a stack holds at most one per resource. */
function fileNameOf(urn: string): string {
  return `${createHash("sha256").update(urn).digest("hex").slice(0, 32)}.json`;
}

/** Whether `value` reads as an intent of this version (anything else is left alone). */
export function parseIntent(text: string): Intent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (v["version"] !== 1 || typeof v["urn"] !== "string" || typeof v["baseUrl"] !== "string")
    return undefined;
  if (typeof v["sentAt"] !== "string" || !Number.isFinite(Date.parse(v["sentAt"]))) return undefined;
  const object = v["object"];
  if (typeof object !== "object" || object === null) return undefined;
  const o = object as Record<string, unknown>;
  if (typeof o["name"] !== "string") return undefined;
  if (v["kind"] === "Workspace" && typeof o["parentId"] === "number") return value as Intent;
  if (v["kind"] === "AccessKey" && typeof o["type"] === "string" && isPermissions(o["permissions"]))
    return value as Intent;
  return undefined;
}

function isPermissions(value: unknown): value is Permissions {
  if (typeof value !== "object" || value === null) return false;
  const p = value as Record<string, unknown>;
  const list = (l: unknown): boolean => Array.isArray(l) && l.every((e) => typeof e === "string");
  return list(p["send"]) && list(p["receive"]);
}

/**
 * Where intents are kept: a directory per stack (`<root>/<project>/<stack>/`, mode 0700), a file per
 * resource with a create in flight or interrupted (`<sha-256 of the URN>.json`, mode 0600).
 */
export class IntentStore {
  /** @param root the directory holding every stack's intents. */
  constructor(readonly root: string) {}

  /** The directory of a stack's intents. */
  stackDirectory(name: StackName): string {
    return path.join(this.root, directoryName(name.project), directoryName(name.stack));
  }

  #fileOf(urn: string): string {
    const stack = stackOfUrn(urn);
    if (stack === undefined) throw new Error(`not a Pulumi URN: ${urn}`);
    return path.join(this.stackDirectory(stack), fileNameOf(urn));
  }

  /**
   * Records `intent` durably (written to a new file, flushed, renamed over the resource's record,
   * the directory flushed): once this returns, a crash of the process leaves the record behind.
   */
  async write(intent: Intent): Promise<void> {
    const file = this.#fileOf(intent.urn);
    const dir = path.dirname(file);
    await this.#makePrivateDirectories(dir);
    const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    const handle = await fs.open(temporary, "wx", 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(intent, null, 2)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temporary, file);
    await syncDirectory(dir);
  }

  /** The intent recorded for `urn`, if any (one of another format or unreadable counts as none). */
  async read(urn: string): Promise<Intent | undefined> {
    const text = await readSmallFile(this.#fileOf(urn));
    const intent = text === undefined ? undefined : parseIntent(text);
    return intent?.urn === urn ? intent : undefined;
  }

  /**
   * Removes the intent of `urn` (nothing when there is none), with any half-written copy a process
   * killed while writing it left. The stack's directory stays, empty: removing it would race with a
   * concurrent create of the same stack between making the directory and writing its record.
   */
  async remove(urn: string): Promise<void> {
    const file = this.#fileOf(urn);
    await fs.rm(file, { force: true });
    const temporaryPrefix = `${path.basename(file)}.`;
    const entries = await fs.readdir(path.dirname(file)).catch(() => [] as string[]);
    for (const entry of entries.filter((e) => e.startsWith(temporaryPrefix) && e.endsWith(".tmp")))
      await fs.rm(path.join(path.dirname(file), entry), { force: true });
    await syncDirectory(path.dirname(file));
  }

  /**
   * Every intent of a stack, oldest first. Intents older than {@link INTENT_MAX_AGE_MS} (by `now`) are
   * removed instead of returned; files that are no intent of ours are left alone.
   */
  async list(name: StackName, now: number = Date.now()): Promise<Intent[]> {
    const dir = this.stackDirectory(name);
    let entries: string[];
    try {
      entries = await fs.readdir(dir);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
    const found: Intent[] = [];
    for (const entry of entries.filter((e) => /^[0-9a-f]{32}\.json$/u.test(e)).sort()) {
      const text = await readSmallFile(path.join(dir, entry));
      const intent = text === undefined ? undefined : parseIntent(text);
      if (intent === undefined) continue;
      if (now - Date.parse(intent.sentAt) > INTENT_MAX_AGE_MS) await this.remove(intent.urn);
      else found.push(intent);
    }
    return found.sort((a, b) => Date.parse(a.sentAt) - Date.parse(b.sentAt));
  }

  /** Creates `dir` and its parents under the root, each mode 0700 (the root included). */
  async #makePrivateDirectories(dir: string): Promise<void> {
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    // mkdir leaves directories that existed as they were: ours are made private whatever made them.
    for (let d = dir; d.startsWith(this.root); d = path.dirname(d)) {
      await fs.chmod(d, 0o700);
      if (d === this.root) break;
    }
  }
}

async function readSmallFile(file: string): Promise<string | undefined> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile() || stat.size > MAX_RECORD_BYTES) return undefined;
    return await fs.readFile(file, "utf8");
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await fs.open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some file systems refuse to flush a directory; the rename is then as durable as they make it.
  }
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
}

/**
 * The root of every stack's intents for a process with environment `env`: `$PULUMI_HOME` (else
 * `~/.pulumi`, as the Pulumi CLI decides) `/broker-config/intents`. The engine starts providers with
 * its own environment, so the provider and the CLI that started it agree on it.
 */
export function intentRoot(env: NodeJS.ProcessEnv = process.env): string {
  const home = env["PULUMI_HOME"]?.trim();
  const pulumiHome = home !== undefined && home !== "" ? home : path.join(os.homedir(), ".pulumi");
  return path.join(pulumiHome, "broker-config", "intents");
}

/** The store of this process's environment. */
export function defaultIntentStore(): IntentStore {
  return new IntentStore(intentRoot());
}

/** A create that may be recorded: the store, the URN and the endpoint, when all are known. */
interface Recorded {
  readonly store: IntentStore;
  readonly urn: string;
  readonly baseUrl: string;
}

function recorded(origin: CreateOrigin | undefined, client: BrokerClient): Recorded | undefined {
  // Without a URN (a caller of the core that is no door, or a URN of another form) nothing is recorded.
  if (origin === undefined || stackOfUrn(origin.urn) === undefined) return undefined;
  return { store: origin.intents ?? defaultIntentStore(), urn: origin.urn, baseUrl: client.baseUrl };
}

/**
 * Ids taken over from intents by this process, per client: two resources whose interrupted creates
 * asked for look-alike objects never take the same one.
 */
const takenOver = new WeakMap<BrokerClient, Set<number>>();

function takenBy(client: BrokerClient): Set<number> {
  let taken = takenOver.get(client);
  if (taken === undefined) takenOver.set(client, (taken = new Set()));
  return taken;
}

/** The earliest creation time (ms) an object made by `intent` can carry (the broker's clock may lag ours). */
export function intentNotBefore(intent: Intent): number {
  return Date.parse(intent.sentAt) - CLOCK_SKEW_MARGIN_MS;
}

/** Whether a key record is what an access key intent asked for. */
export function keyMatches(intent: AccessKeyIntentObject, record: AccessKeyRecord): boolean {
  return (
    record.name === intent.name &&
    record.type === intent.type &&
    samePermissions(record.permissions, intent.permissions)
  );
}

/** Whether a workspace record is what a workspace intent asked for. */
export function workspaceMatches(intent: WorkspaceIntentObject, record: WorkspaceRecord): boolean {
  return record.name === intent.name && record.parentId === intent.parentId;
}

/** More than one object fits an interrupted create: nothing tells which it made. */
export class AmbiguousIntentError extends Error {
  /** Stable; match on it. */
  readonly code = "BROKER_INTENT_AMBIGUOUS";

  constructor(what: string, ids: readonly number[], sentAt: string) {
    super(
      `${what}: an earlier create of this resource was interrupted (the provider stopped at ${sentAt}), and ${ids.length} objects on the broker fit what it asked for (ids ${ids.join(", ")}); nothing tells which one it made. ` +
        "Set `adopt: true` on the resource for the one to keep (after making the other one different, say by revoking it in the broker's dashboard), or run `broker-config recover` to see what it finds.",
    );
    this.name = "AmbiguousIntentError";
  }
}

/** What an interrupted create of this resource made, found on the broker: the object and its intent. */
export interface TakenOver<R> {
  readonly record: R;
  readonly intent: Intent;
}

/**
 * An interrupted create of `origin`'s resource, looked for: `undefined` when none was recorded (or
 * it was at another endpoint, or of another kind), else the object it made (`record`, taken: no other
 * intent of this process takes it) or none (`record: undefined`, the create never reached the broker).
 *
 * @param find every object created at or after `notBeforeMs` that fits `intent` (the resource module
 *   knows how to list them).
 * @throws AmbiguousIntentError when more than one fits.
 */
export async function findInterrupted<R extends { id: number }>(
  origin: CreateOrigin | undefined,
  client: BrokerClient,
  kind: IntentKind,
  what: string,
  find: (intent: Intent, notBeforeMs: number) => Promise<R[]>,
): Promise<{ intent: Intent; record: R | undefined } | undefined> {
  const target = recorded(origin, client);
  if (target === undefined) return undefined;
  const intent = await target.store.read(target.urn);
  if (intent === undefined || intent.kind !== kind || intent.baseUrl !== target.baseUrl) return undefined;
  const taken = takenBy(client);
  const candidates = (await find(intent, intentNotBefore(intent))).filter((r) => !taken.has(r.id));
  if (candidates.length > 1) {
    throw new AmbiguousIntentError(
      what,
      candidates.map((r) => r.id).sort((a, b) => a - b),
      intent.sentAt,
    );
  }
  const record = candidates[0];
  if (record !== undefined) taken.add(record.id);
  return { intent, record };
}

/**
 * Sends a create under an intent: records `object` for `origin`'s resource, runs `send`, and removes
 * the record once the create's answer is in, whatever it was, except when the create's outcome is
 * unknown (the broker may have made the object: the record is what a later create looks for).
 * Without an origin the create is sent unrecorded.
 */
export async function underIntent<T>(
  origin: CreateOrigin | undefined,
  client: BrokerClient,
  intent: Pick<Intent, "kind" | "object"> & Partial<Intent>,
  send: () => Promise<T>,
): Promise<T> {
  const target = recorded(origin, client);
  if (target === undefined) return send();
  const record = {
    version: 1,
    urn: target.urn,
    baseUrl: target.baseUrl,
    sentAt: new Date().toISOString(),
    kind: intent.kind,
    object: intent.object,
  } as Intent;
  await target.store.write(record);
  let result: T;
  try {
    result = await send();
  } catch (error) {
    if (!(isBrokerApiError(error) && error.outcomeUnknown)) await target.store.remove(target.urn);
    throw error;
  }
  await target.store.remove(target.urn);
  return result;
}

/** Removes `origin`'s intent, if any: its create was resolved another way (taken over, or found not sent). */
export async function resolveIntent(origin: CreateOrigin | undefined, client: BrokerClient): Promise<void> {
  const target = recorded(origin, client);
  if (target !== undefined) await target.store.remove(target.urn);
}

/** Every key created at or after `notBeforeMs` that fits `intent`, newest first. */
export async function keysFitting(
  client: BrokerClient,
  intent: AccessKeyIntentObject,
  notBeforeMs: number,
): Promise<AccessKeyRecord[]> {
  const found: AccessKeyRecord[] = [];
  for await (const record of client.accessKeys({ order: "DESC", orderBy: "createdAt" })) {
    const createdAt = Date.parse(record.createdAt);
    if (Number.isFinite(createdAt) && createdAt < notBeforeMs) break;
    if (keyMatches(intent, record)) found.push(record);
  }
  return found;
}

/** Every workspace created at or after `notBeforeMs` that fits `intent`, among `named` (listed by name). */
export function workspacesFitting(
  named: readonly WorkspaceRecord[],
  intent: WorkspaceIntentObject,
  notBeforeMs: number,
): WorkspaceRecord[] {
  return named.filter((w) => {
    const createdAt = Date.parse(w.createdAt);
    return workspaceMatches(intent, w) && (!Number.isFinite(createdAt) || createdAt >= notBeforeMs);
  });
}
