/**
 * Creates that never duplicate, even when a response is lost.
 *
 * A create (`POST /access-key`, `POST /workspace`) is not safe to repeat: if the connection drops or a
 * gateway answers 503 after the server processed it, repeating it creates a second object. So
 * `request()` does not retry it and reports `outcomeUnknown`; these operations then look at the
 * server's state to learn whether the create happened, and create again only when it surely did not.
 */
import {
  createdBefore,
  isCreatedBy,
  newestFirst,
  notBeforeOf,
  type CreateRequested,
} from "../model/created-by";
import { flattenWorkspaces } from "./paging";
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

/** The claim set of `budget`, or one of this call alone. */
function claimsOf(budget: CreateOnceBudget): CreateOnceClaims {
  return budget.claims ?? { workspaces: new Set(), accessKeys: new Set() };
}

/**
 * How a live create looks for what its lost answer made: since it was sent, the newest when several
 * fit (its look-alike siblings in the process claim their own), a SERVICE key re-keyed.
 */
function liveCreate(notBefore: number | undefined): FindCreatedOptions {
  return { notBefore, several: "newest", rekey: true };
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

async function workspacesNamed(api: CreateOnceLists, name: string): Promise<WorkspaceRecord[]> {
  const all = new Map<number, WorkspaceRecord>();
  for await (const listed of api.workspaces({ name }))
    for (const record of flattenWorkspaces(listed)) if (!all.has(record.id)) all.set(record.id, record);
  // The server's filter may match loosely (substring, case): only the exact name counts.
  return [...all.values()].filter((w) => w.name === name);
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
  const claims = claimsOf(budget);
  const claimed = claims.workspaces;
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
    const requested = { kind: "Workspace", name: input.name, parentId } as const;
    const found = await findCreated(api, claims, requested, { ...liveCreate(undefined), exclude: before });
    return found.outcome === "found" ? (found.record as WorkspaceRecord) : undefined;
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

/** What a search for the object a create made found, for one kind of object. */
export type FoundCreated<R> =
  /** One object fits; it is now claimed by this client (no other search of it returns it). */
  | { readonly outcome: "found"; readonly record: R }
  /** Nothing fits: the create never reached the broker. */
  | { readonly outcome: "absent" }
  /** Several fit and `several` is `"refuse"`: nothing tells which the create made (ids ascending). */
  | { readonly outcome: "ambiguous"; readonly ids: readonly number[] };

/** A found key: its record, and what its create would have answered (a new pair for a SERVICE key). */
export interface FoundAccessKey {
  readonly record: AccessKeyRecord;
  readonly created: CreatedAccessKey;
}

/**
 * How a search for what a create made differs between its callers: the lost answer of a live create
 * (`create-once`), the create of a provider that died (`core/intents.ts`), a pending create of a killed
 * `up` (`broker-config recover`). docs/decisions.md, "One rule says what a create made", gives each
 * caller's values and why.
 */
export interface FindCreatedOptions {
  /** The earliest creation time the object can carry (`notBeforeOf(sentAt)`); `undefined`: any. */
  readonly notBefore: number | undefined;
  /** Ids taken besides the client's claims: the stack's resources, workspaces there before the create. */
  readonly exclude?: ReadonlySet<number>;
  /**
   * When several fit: `"newest"` takes the newest (a live create: its look-alike siblings in this
   * process claim their own), `"refuse"` answers `ambiguous` (a dead create: nobody is left to tell).
   */
  readonly several: "newest" | "refuse";
  /**
   * Whether a found SERVICE key gets a new key pair: the pair came only in its create's answer, which
   * is lost. `recover` says no: it records what the broker holds, and its dry run changes nothing.
   */
  readonly rekey: boolean;
}

/** The records of `kind` a create could have made, newest first, stopping at the cut-off (keys). */
async function listCandidates(
  lists: CreateOnceLists,
  requested: CreateRequested,
  notBefore: number | undefined,
): Promise<Array<AccessKeyRecord | WorkspaceRecord>> {
  if (requested.kind === "Workspace") return (await workspacesNamed(lists, requested.name)).sort(newestFirst);
  const found: AccessKeyRecord[] = [];
  for await (const record of lists.accessKeys({ order: "DESC", orderBy: "createdAt" })) {
    if (createdBefore(record, notBefore)) break;
    found.push(record);
  }
  return found;
}

/**
 * The one search for the object a create made, whoever asks (see {@link FindCreatedOptions}): lists
 * the candidates newest first (keys stop at the cut-off), keeps those {@link isCreatedBy} accepts,
 * and claims the one it returns in `claimed`, the client's one claim set, before anything else can
 * run. A found SERVICE key is given a new pair when `options.rekey` says so.
 *
 * @throws BrokerResultError (the key kept beside it, {@link createdAccessKeyOf}) when a key was found
 *   but its new pair could not be made.
 */
export async function findCreated(
  api: CreateOnceApi,
  claimed: CreateOnceClaims,
  requested: CreateRequested,
  options: FindCreatedOptions,
): Promise<FoundCreated<AccessKeyRecord | WorkspaceRecord>> {
  // The search learns what a create that may have reached the broker made: it goes on when the
  // run is cancelled, or the object would exist with nobody recording it.
  const listed = await listCandidates(api.finishing ?? api, requested, options.notBefore);
  const claims = requested.kind === "Workspace" ? claimed.workspaces : claimed.accessKeys;
  // Claims are read now, not while paging: a concurrent search may claim one in the meantime.
  const taken = new Set([...claims, ...(options.exclude ?? [])]);
  const fits = listed.filter((record) =>
    isCreatedBy(requested, record, { notBefore: options.notBefore, claimed: taken }),
  );
  if (fits.length === 0) return { outcome: "absent" };
  if (fits.length > 1 && options.several === "refuse")
    return { outcome: "ambiguous", ids: fits.map((r) => r.id).sort((a, b) => a - b) };
  const record = fits[0] as AccessKeyRecord | WorkspaceRecord;
  claims.add(record.id);
  return { outcome: "found", record };
}

/** {@link findCreated} for a key, with what its create would have answered. */
export async function findCreatedAccessKey(
  api: CreateOnceApi,
  claimed: CreateOnceClaims,
  requested: Extract<CreateRequested, { kind: "AccessKey" }>,
  options: FindCreatedOptions,
): Promise<FoundCreated<FoundAccessKey>> {
  const found = await findCreated(api, claimed, requested, options);
  if (found.outcome !== "found") return found;
  const record = found.record as AccessKeyRecord;
  const created: CreatedAccessKey = { accessKey: record.key, accessKeyId: record.id };
  if (record.type === "SERVICE" && options.rekey) {
    try {
      created.serviceKeyPair = await api.rotateServiceKeyPair(record.key);
    } catch (error) {
      throw createdButFailed("making a new key pair", record, error, created);
    }
  }
  return { outcome: "found", record: { record, created } };
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
 * the clock-skew margin (`CLOCK_SKEW_MARGIN_MS`: the broker's clock may lag ours), looking for one
 * with the same name, type and permissions. Found: it is returned with `recovered: true`; the create response with a SERVICE key's
 * pair is lost for good, so a new pair is made with `rotateServiceKeyPair`. Not found: the create
 * surely did not happen and is sent again, within the retry budget.
 *
 * A server clock lagging ours by more than the margin would hide a created key, and an unrelated key
 * with the same name, type and permissions created by someone else within the margin would be taken
 * for ours (the rule is `isCreatedBy` of `src/model/created-by.ts`, the search {@link findCreated}).
 * With `budget.claims`, keys already returned by this client are never taken again.
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
  const notBefore = notBeforeOf(budget.timing.now());
  const claims = claimsOf(budget);
  const claimed = claims.accessKeys;
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
      const found = await findCreatedAccessKey(
        api,
        claims,
        { kind: "AccessKey", ...input },
        liveCreate(notBefore),
      );
      if (found.outcome !== "found") return undefined;
      return { ...found.record, recovered: true };
    },
  );
}
