/**
 * Create intents: a durable note, written on the machine where the provider runs before a create is
 * sent, of what that create asks the broker to make; kept until the engine shows it holds the result.
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
import { createHash } from "node:crypto";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { createdAccessKeyOf, isBrokerApiError, type BrokerClient, type FoundAccessKey } from "../client";
import type { AccessKeyType, Permissions, WorkspaceRecord } from "../client/types";
import { notBeforeOf, type CreateRequested } from "../model";
import { isPartiallyCreatedError } from "./partial-failure";
import { isMissing, placeFile, removeFile, replaceFile, type Placed } from "./record-files";
import { BrokerError } from "../client/errors";

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
  /**
   * The id of the object the create made, once its answer came: the record then waits for the
   * engine to show it holds that id (see {@link settleIntent}) before it is removed.
   */
  readonly createdId?: number;
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
  if (v["createdId"] !== undefined && typeof v["createdId"] !== "number") return undefined;
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
   * Records `intent` (written to a new file, renamed over the resource's record): once this returns,
   * a crash of the process leaves the record behind. With `durable` (the default) it also waits for
   * the flushes (file, then directory, shared with concurrent writes) after which a machine crash
   * leaves it too. Without, it skips them: for a rewrite whose loss after a machine crash leaves the
   * earlier record, which is still right.
   */
  async write(intent: Intent, durable = true): Promise<void> {
    await replaceFile(this.root, this.#fileOf(intent.urn), recordText(intent), durable);
  }

  /**
   * Records `intent` as {@link write} does, and resolves once it is in place (a crash of the process
   * keeps it); its flush runs on in the returned `flushed`, so the caller can send the create
   * meanwhile and wait for both.
   */
  place(intent: Intent): Promise<Placed> {
    return placeFile(this.root, this.#fileOf(intent.urn), recordText(intent));
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
    await removeFile(this.#fileOf(urn));
  }

  /** Every intent of every stack, as {@link list} reads each (old ones removed). */
  async everyIntent(now: number = Date.now()): Promise<Intent[]> {
    const directories = async (dir: string): Promise<string[]> =>
      (await fs.readdir(dir, { withFileTypes: true }).catch(() => []))
        .filter((entry) => entry.isDirectory())
        .map((entry) => path.join(dir, entry.name));
    const found: Intent[] = [];
    for (const project of await directories(this.root))
      for (const stack of await directories(project)) found.push(...(await this.#listIn(stack, now)));
    return found;
  }

  /**
   * Every intent of a stack, oldest first. Intents older than {@link INTENT_MAX_AGE_MS} (by `now`) are
   * removed instead of returned; files that are no intent of ours are left alone.
   */
  async list(name: StackName, now: number = Date.now()): Promise<Intent[]> {
    return this.#listIn(this.stackDirectory(name), now);
  }

  async #listIn(dir: string, now: number): Promise<Intent[]> {
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
}

/** A record as its file holds it. */
function recordText(intent: Intent): string {
  return `${JSON.stringify(intent, null, 2)}\n`;
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

/** The earliest creation time (ms) an object made by `intent` can carry (the broker's clock may lag ours). */
export function intentNotBefore(intent: Intent): number {
  return notBeforeOf(Date.parse(intent.sentAt));
}

/** What `intent`'s create asked for, as the model's rule reads it. */
export function requestedBy(intent: Intent): CreateRequested {
  return intent.kind === "AccessKey"
    ? { kind: "AccessKey", ...intent.object }
    : { kind: "Workspace", ...intent.object };
}

/** More than one object fits an interrupted create: nothing tells which it made. */
export class AmbiguousIntentError extends BrokerError {
  constructor(what: string, ids: readonly number[], sentAt: string) {
    super(
      "BROKER_INTENT_AMBIGUOUS",
      `${what}: an earlier create of this resource was interrupted (the provider stopped at ${sentAt}), and ${ids.length} objects on the broker fit what it asked for (ids ${ids.join(", ")}); nothing tells which one it made. ` +
        "Set `adopt: true` on the resource for the one to keep (after making the other one different, say by revoking it in the broker's dashboard), or run `broker-config recover` to see what it finds.",
    );
    this.name = "AmbiguousIntentError";
  }
}

/** What an interrupted create of a resource made, found on the broker, with its intent. */
export interface Interrupted<R> {
  readonly intent: Intent;
  /** The object it made, claimed by the client; `undefined`: the create never reached the broker. */
  readonly found: R | undefined;
}

/**
 * An interrupted create of `origin`'s resource, looked for with the client's one search
 * (`BrokerClient.findCreated`): `undefined` when none was recorded (or it was at another endpoint,
 * or of another kind), else what it made. A dead create's search takes only objects made since it
 * was sent, refuses to choose between several, and claims what it finds in the client's claim set,
 * which also holds what this process's own creates made and what the engine showed it owns.
 *
 * @param rekey whether a found SERVICE key gets a new pair: only when it is this resource's (a key
 *   the program now names or types differently is left as it is).
 * @throws AmbiguousIntentError when more than one fits.
 */
export async function findInterrupted(
  origin: CreateOrigin | undefined,
  client: BrokerClient,
  kind: "AccessKey",
  what: string,
  rekey: (intent: Intent) => boolean,
): Promise<Interrupted<FoundAccessKey> | undefined>;
export async function findInterrupted(
  origin: CreateOrigin | undefined,
  client: BrokerClient,
  kind: "Workspace",
  what: string,
): Promise<Interrupted<WorkspaceRecord> | undefined>;
export async function findInterrupted(
  origin: CreateOrigin | undefined,
  client: BrokerClient,
  kind: IntentKind,
  what: string,
  rekey: (intent: Intent) => boolean = () => false,
): Promise<Interrupted<FoundAccessKey | WorkspaceRecord> | undefined> {
  const target = recorded(origin, client);
  if (target === undefined) return undefined;
  const intent = await target.store.read(target.urn);
  if (intent === undefined || intent.kind !== kind || intent.baseUrl !== target.baseUrl) return undefined;
  // The objects the stack's other records name are other resources' (their results wait for the
  // engine, which may not have shown it holds them yet): claimed, so this search never takes one.
  const stack = stackOfUrn(target.urn) as StackName;
  for (const other of await target.store.list(stack))
    if (other.urn !== target.urn && other.kind === kind && other.createdId !== undefined)
      client.claim(kind, other.createdId);
  const options = { notBefore: intentNotBefore(intent), several: "refuse", rekey: rekey(intent) } as const;
  const requested = requestedBy(intent);
  const found =
    requested.kind === "AccessKey"
      ? await client.findCreated(requested, options)
      : await client.findCreated(requested, options);
  if (found.outcome === "ambiguous") throw new AmbiguousIntentError(what, found.ids, intent.sentAt);
  return { intent, found: found.outcome === "found" ? found.record : undefined };
}

/**
 * Sends a create under an intent: records `object` for `origin`'s resource, then runs `send`. What
 * becomes of the record depends on the answer:
 * - none made (a definite failure): removed;
 * - outcome unknown (the broker may have made the object): kept as it is, for a later create to
 *   look for;
 * - made (returned, or kept by a partial failure): kept, now naming the id it made (`idOf`), until
 *   the engine shows it holds it ({@link settleIntent}). Removing it here, before the result reaches
 *   the engine, would let a provider killed in between leave an object nobody knows.
 * Without an origin the create is sent unrecorded.
 */
export async function underIntent<T>(
  origin: CreateOrigin | undefined,
  client: BrokerClient,
  intent: Pick<Intent, "kind" | "object">,
  send: () => Promise<T>,
  idOf: (result: T) => number,
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
  // In place before the request goes out: a provider killed from here on leaves it. Its flush to
  // disk runs beside the request, and the create's outcome waits for it (docs/decisions.md).
  const { flushed } = await target.store.place(record);
  let result: T;
  try {
    result = await send();
  } catch (error) {
    await flushed;
    const made = madeBy(error);
    if (made !== undefined) await target.store.write({ ...record, createdId: made }, false);
    else if (!(isBrokerApiError(error) && error.outcomeUnknown)) await target.store.remove(target.urn);
    throw error;
  }
  await flushed;
  await target.store.write({ ...record, createdId: idOf(result) }, false);
  return result;
}

/** The id of the object a failed create made anyway, when the failure says. */
function madeBy(error: unknown): number | undefined {
  const key = createdAccessKeyOf(error);
  if (key !== undefined) return key.accessKeyId;
  if (isPartiallyCreatedError(error) && /^\d+$/u.test(error.createdId)) return Number(error.createdId);
  const createdId = (error as { createdId?: unknown } | undefined)?.createdId;
  return typeof createdId === "number" ? createdId : undefined;
}

/**
 * The engine holds object `id` for `origin`'s resource (a `Diff`, `Read`, `Update` or `Delete` named
 * it): the id is claimed in the client (no search for what a create made takes it, so a replacement
 * with the same name never takes over the object it replaces), and the resource's intent is removed
 * when it names that id (its result is safe with the engine). An intent naming no id, or another,
 * is left for the next create of the resource, which looks for what it made.
 *
 * @param client the client of the operation; when none can be had (a preview without credentials),
 *   nothing is claimed: no create follows there.
 * @param kind the resource's type name; resources whose creates record nothing are left alone.
 */
export async function settleIntent(
  origin: CreateOrigin | undefined,
  client: () => BrokerClient,
  kind: string,
  id: string,
): Promise<void> {
  if (kind !== "AccessKey" && kind !== "Workspace") return;
  if (origin === undefined || stackOfUrn(origin.urn) === undefined || !/^\d+$/u.test(id)) return;
  const createdId = Number(id);
  clientIfAny(client)?.claim(kind, createdId);
  const store = origin.intents ?? defaultIntentStore();
  const intent = await store.read(origin.urn);
  if (intent?.kind === kind && intent.createdId === createdId) await store.remove(origin.urn);
}

/**
 * The engine deleted object `id` of `kind` at the client's endpoint, through a door that gives its
 * `Delete` no URN (Pulumi's dynamic provider host): the record naming that object is removed, found
 * by what the delete knows. An object's id is unique per endpoint and kind, so the record naming it
 * is the one its create wrote, whatever stack it sits in. Without this, the record of a resource
 * created and removed before any diff settled it would wait for the 30-day cleanup, and a later
 * resource of the same URN could take over the object the delete forgot or retained.
 */
export async function settleDeleted(
  client: () => BrokerClient,
  kind: string,
  id: string,
  store: IntentStore = defaultIntentStore(),
): Promise<void> {
  if ((kind !== "AccessKey" && kind !== "Workspace") || !/^\d+$/u.test(id)) return;
  const endpoint = clientIfAny(client)?.baseUrl;
  if (endpoint === undefined) return;
  for (const intent of await store.everyIntent())
    if (intent.kind === kind && intent.baseUrl === endpoint && intent.createdId === Number(id))
      await store.remove(intent.urn);
}

function clientIfAny(client: () => BrokerClient): BrokerClient | undefined {
  try {
    return client();
  } catch {
    return undefined;
  }
}

/**
 * `origin`'s interrupted create was resolved by taking over object `made`: its intent now names that
 * id and waits, as a create's does, for the engine to show it holds it ({@link settleIntent}).
 */
export async function tookOver(
  origin: CreateOrigin | undefined,
  client: BrokerClient,
  interrupted: Interrupted<unknown>,
  made: number,
): Promise<void> {
  const target = recorded(origin, client);
  if (target !== undefined) await target.store.write({ ...interrupted.intent, createdId: made }, false);
}
