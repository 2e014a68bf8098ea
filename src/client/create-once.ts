/**
 * Creates that never duplicate, even when a response is lost.
 *
 * A create (`POST /access-key`, `POST /workspace`) is not safe to repeat: if the connection drops or a
 * gateway answers 503 after the server processed it, repeating it creates a second object. So
 * `request()` does not retry it and reports `outcomeUnknown`; these operations then look at the
 * server's state to learn whether the create happened, and create again only when it surely did not.
 */
import { CLOCK_SKEW_MARGIN_MS } from "./constants";
import { BrokerResultError, isBrokerApiError, isBrokerResultError, type BrokerApiError } from "./errors";
import { retrying, type AttemptOutcome, type RequestTiming } from "./retry";
import type {
  AccessKeyFilter,
  AccessKeyRecord,
  CreateAccessKeyInput,
  CreatedAccessKey,
  CreateWorkspaceInput,
  ServiceKeyPair,
  WorkspaceFilter,
  WorkspaceRecord,
} from "./types";

/** The lists the create-once operations read. */
export interface CreateOnceLists {
  workspaces(options?: WorkspaceFilter): AsyncIterableIterator<WorkspaceRecord>;
  accessKeys(options?: AccessKeyFilter): AsyncIterableIterator<AccessKeyRecord>;
}

/** The client operations the create-once operations are built from. */
export interface CreateOnceApi extends CreateOnceLists {
  createWorkspace(input: CreateWorkspaceInput): Promise<void>;
  createAccessKey(input: CreateAccessKeyInput): Promise<CreatedAccessKey>;
  getAccessKeyPermissions(accessKey: string): Promise<AccessKeyRecord>;
  rotateServiceKeyPair(accessKey: string): Promise<ServiceKeyPair>;
  /**
   * The same lists, not stopped when the run is cancelled: the reads that learn what a create that
   * may have reached the broker made (a workspace's id, a key whose response was lost). Dropping
   * them would leave an object nobody records (docs/decisions.md, "Cancelled runs stop sending,
   * and finish what was sent"). Without it, the lists above are used.
   */
  readonly finishing?: CreateOnceLists;
}

/** How often and how long to try creating again after a create that surely did not happen. */
export interface CreateOnceBudget {
  /** Creates after the first. */
  readonly maxRetries: number;
  /** Time budget for the whole operation, in milliseconds. */
  readonly maxRetryTimeMs: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly timing: RequestTiming;
  /**
   * Ids already returned as created by earlier or concurrent calls of the same client, so that two
   * concurrent creates of look-alike objects (same name, parent or type) never return the same one.
   * Without it, each call only knows its own snapshot.
   */
  readonly claims?: CreateOnceClaims;
}

/** Ids handed out as created, per kind of object (their ids are separate sequences). */
export interface CreateOnceClaims {
  readonly workspaces: Set<number>;
  readonly accessKeys: Set<number>;
}

/** What `createAccessKeyOnce` returns. */
export interface CreatedAccessKeyOnce {
  /** The key as created. For a recovered SERVICE key, `serviceKeyPair` is a freshly rotated pair. */
  created: CreatedAccessKey;
  /** The key's record as the server reports it after the create. */
  record: AccessKeyRecord;
  /** Whether the create response was lost and the key was found by listing. */
  recovered: boolean;
}

/**
 * Runs `create` until it succeeds or `recover` finds what an uncertain attempt created. After an
 * attempt whose outcome is unknown and whose object cannot be found, the server surely did not
 * process it (a processed create is visible at once), so creating again is safe: the client's retry
 * loop decides when, within the same limits as any request (`budget`).
 */
function createWithRecovery<T>(
  budget: CreateOnceBudget,
  create: () => Promise<T>,
  recover: () => Promise<T | undefined>,
): Promise<T> {
  const loop = { policy: budget, timing: budget.timing, repeatable: false };
  return retrying(loop, async (): Promise<AttemptOutcome<T>> => {
    let uncertain: BrokerApiError;
    try {
      return { ok: true, value: await create() };
    } catch (error) {
      if (!isBrokerApiError(error) || !error.outcomeUnknown) throw error;
      uncertain = error;
    }
    let found: T | undefined;
    try {
      found = await recover();
    } catch (error) {
      // Something was found but its follow-up failed: that error says what exists.
      if (isBrokerResultError(error)) throw error;
      // Looking failed too: the create's own error says best what the caller must check.
      throw uncertain;
    }
    if (found !== undefined) return { ok: true, value: found };
    // When no attempt is left, the create's own error says best what the caller must check.
    return {
      ok: false,
      failure: { kind: "not-applied" },
      end: () => {
        throw uncertain;
      },
    };
  });
}

/** Every workspace in a list result, children included (a list may nest them), each once. */
function flatten(
  records: readonly WorkspaceRecord[],
  into = new Map<number, WorkspaceRecord>(),
): Map<number, WorkspaceRecord> {
  for (const record of records) {
    if (!into.has(record.id)) into.set(record.id, record);
    flatten(record.children, into);
  }
  return into;
}

async function workspacesNamed(api: CreateOnceLists, name: string): Promise<WorkspaceRecord[]> {
  const all: WorkspaceRecord[] = [];
  for await (const record of api.workspaces({ name })) all.push(record);
  // The server's filter may match loosely (substring, case): only the exact name counts.
  return [...flatten(all).values()].filter((w) => w.name === name);
}

function newestFirst(a: { createdAt: string; id: number }, b: { createdAt: string; id: number }): number {
  const byTime = (Date.parse(b.createdAt) || 0) - (Date.parse(a.createdAt) || 0);
  return byTime !== 0 ? byTime : b.id - a.id;
}

/**
 * Picks the workspace this call created among those that were not there before.
 *
 * Normally exactly one is new. If several are (someone else created a workspace with the same name
 * and parent at the same moment), nothing tells them apart: the API returns no id. We take the newest,
 * because our snapshot was taken *before* our create, so a concurrent create that landed between the
 * snapshot and ours is older than ours, while one landing after ours had only the short time until
 * our second list to do so; and the choice is deterministic.
 *
 * @throws BrokerResultError when none is new, or the new one has another parent than requested.
 */
function pickCreatedWorkspace(
  after: readonly WorkspaceRecord[],
  isOld: (id: number) => boolean,
  name: string,
  parentId: number,
): WorkspaceRecord {
  const fresh = after.filter((w) => !isOld(w.id)).sort(newestFirst);
  const match = fresh.find((w) => w.parentId === parentId);
  if (match !== undefined) return match;
  const other = fresh[0];
  if (other === undefined) {
    throw new BrokerResultError(
      `created workspace "${name}" but the server does not list it; check the workspaces named "${name}" on the broker`,
    );
  }
  throw new BrokerResultError(
    `created workspace "${name}" (id ${other.id}) but the server reports parentId ${other.parentId}, not ${parentId}: does the parent workspace exist?`,
    other.id,
  );
}

/**
 * Creates a workspace and returns its record, never creating it twice.
 *
 * The API answers a create with a message only, so the new workspace is told apart from existing
 * ones with the same name (the API allows duplicates) by a list before and after the create. If the
 * create's outcome is unknown, a second list says whether it happened (a new workspace under the
 * requested parent); if not, it is sent again, within the retry budget. With `budget.claims`, a
 * workspace returned by one call is never returned by another, even for identical concurrent inputs.
 *
 * @param knownBefore Every workspace named `input.name` (any parent), listed just before the call.
 * @throws BrokerResultError when the created workspace cannot be found or has another parent.
 * @throws BrokerApiError when a request fails.
 */
export async function createWorkspaceAndFind(
  api: CreateOnceApi,
  budget: CreateOnceBudget,
  input: CreateWorkspaceInput,
  knownBefore?: readonly WorkspaceRecord[],
): Promise<WorkspaceRecord> {
  const parentId = input.parentId ?? 0;
  const claimed = budget.claims?.workspaces ?? new Set<number>();
  // A caller that has just listed the workspaces with this name (to look for one to adopt) passes
  // that list, which saves a request.
  const before = new Set((knownBefore ?? (await workspacesNamed(api, input.name))).map((w) => w.id));
  // Read `claimed` at pick time: a concurrent call may have claimed one while we waited.
  const isOld = (id: number): boolean => before.has(id) || claimed.has(id);
  const claim = (record: WorkspaceRecord): WorkspaceRecord => {
    claimed.add(record.id);
    return record;
  };
  // After a lost response, only a new workspace under the requested parent counts as ours: a new one
  // with the same name elsewhere is most likely a sibling call's (the engine creates `env` under
  // several parents in parallel). Were it ours, misplaced by the server, creating again would make a
  // second one, and that create's own check would then report the misplacement.
  // The lists after a create that may have reached the broker are how its id is learnt: they go on
  // when the run is cancelled, or the workspace would exist with nobody recording it.
  const finishing = api.finishing ?? api;
  const findNew = async (): Promise<WorkspaceRecord | undefined> => {
    const found = (await workspacesNamed(finishing, input.name))
      .filter((w) => !isOld(w.id) && w.parentId === parentId)
      .sort(newestFirst)[0];
    return found === undefined ? undefined : claim(found);
  };
  return createWithRecovery(
    budget,
    async () => {
      await api.createWorkspace(input);
      const named = await workspacesNamed(finishing, input.name);
      return claim(pickCreatedWorkspace(named, isOld, input.name, parentId));
    },
    findNew,
  );
}

function sameList(a: readonly string[], b: readonly string[] = []): boolean {
  const left = [...new Set(a)].sort();
  const right = [...new Set(b)].sort();
  return left.length === right.length && left.every((v, i) => v === right[i]);
}

/**
 * Finds a key with the input's name and type created since `notBefore`, newest first, by paging
 * through keys in creation order, newest first, and stopping at the first older one. Among several,
 * one whose permissions match the input is preferred.
 */
async function findRecentKey(
  api: CreateOnceLists,
  input: CreateAccessKeyInput,
  notBefore: number,
  claimed: Set<number>,
): Promise<AccessKeyRecord | undefined> {
  const candidates: AccessKeyRecord[] = [];
  for await (const record of api.accessKeys({ order: "DESC", orderBy: "createdAt" })) {
    const createdAt = Date.parse(record.createdAt);
    if (Number.isFinite(createdAt) && createdAt < notBefore) break;
    if (record.name === input.name && record.type === input.type) candidates.push(record);
  }
  // Checked now, not while paging: a concurrent recovery may claim one in the meantime.
  const available = candidates.filter((r) => !claimed.has(r.id));
  const matching = available.find(
    (r) =>
      sameList(r.permissions.send, input.permissions.send) &&
      sameList(r.permissions.receive, input.permissions.receive),
  );
  const found = matching ?? available[0];
  // Claimed before anything else can run, so a concurrent recovery cannot take the same key.
  if (found !== undefined) claimed.add(found.id);
  return found;
}

// The created key behind a BrokerResultError, kept beside the error rather than on it: a key value
// must never be reachable by printing, serializing or inspecting an error.
const createdKeys = new WeakMap<Error, CreatedAccessKey>();

/**
 * The access key that was created when `createAccessKeyOnce` failed with a `BrokerResultError`
 * after the create itself succeeded (the read-back or the key pair rotation failed), so the caller
 * can keep track of it. `undefined` for any other error.
 */
export function createdAccessKeyOf(error: unknown): CreatedAccessKey | undefined {
  return error instanceof Error ? createdKeys.get(error) : undefined;
}

/** A created key whose follow-up read failed: the key exists, so say which one. */
function createdButFailed(
  what: string,
  record: { id: number; name: string },
  error: unknown,
  created?: CreatedAccessKey,
): BrokerResultError {
  const reason = error instanceof Error ? error.message : String(error);
  const failure = new BrokerResultError(
    `created access key "${record.name}" (id ${record.id}) but ${what} failed: ${reason}`,
    record.id,
    error,
  );
  if (created !== undefined) createdKeys.set(failure, created);
  return failure;
}

/**
 * Creates an access key and reads back its record, never creating it twice.
 *
 * If the create's outcome is unknown, keys are listed newest first, back to the call's start minus
 * {@link CLOCK_SKEW_MARGIN_MS} (the broker's clock may lag ours), looking for one with the same name
 * and type. Found: it is returned with `recovered: true`; the create response with a SERVICE key's
 * pair is lost for good, so a new pair is made with `rotateServiceKeyPair`. Not found: the create
 * surely did not happen and is sent again, within the retry budget.
 *
 * A server clock lagging ours by more than the margin would hide a created key, and an unrelated key
 * with the same name and type created by someone else within the margin would be taken for ours
 * (one whose permissions match the input is preferred). With `budget.claims`, keys already returned
 * by this client are never taken again.
 *
 * @throws BrokerResultError (with `createdId`) when the key was created but the read-back or the
 *   key pair rotation failed.
 * @throws BrokerApiError when the create fails.
 */
export async function createAccessKeyOnce(
  api: CreateOnceApi,
  budget: CreateOnceBudget,
  input: CreateAccessKeyInput,
): Promise<CreatedAccessKeyOnce> {
  const notBefore = budget.timing.now() - CLOCK_SKEW_MARGIN_MS;
  const claimed = budget.claims?.accessKeys ?? new Set<number>();
  return createWithRecovery<CreatedAccessKeyOnce>(
    budget,
    async () => {
      const created = await api.createAccessKey(input);
      claimed.add(created.accessKeyId);
      try {
        // The promised read-back: the authoritative record (createdAt, permissions as stored).
        const record = await api.getAccessKeyPermissions(created.accessKey);
        return { created, record, recovered: false };
      } catch (error) {
        throw createdButFailed(
          "reading it back",
          { id: created.accessKeyId, name: input.name },
          error,
          created,
        );
      }
    },
    async () => {
      // Looking for a key whose create may have reached the broker goes on after cancellation, so
      // that the key is returned (and recorded) rather than left for nobody.
      const record = await findRecentKey(api.finishing ?? api, input, notBefore, claimed);
      if (record === undefined) return undefined;
      const created: CreatedAccessKey = { accessKey: record.key, accessKeyId: record.id };
      if (record.type === "SERVICE") {
        try {
          created.serviceKeyPair = await api.rotateServiceKeyPair(record.key);
        } catch (error) {
          throw createdButFailed("making a new key pair", record, error, created);
        }
      }
      return { created, record, recovered: true };
    },
  );
}
