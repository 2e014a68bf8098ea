/** The broker API client: one undici `Pool` per client, every call through `request()`. */
import { createHash } from "node:crypto";

import type { Pool } from "undici";
import type { CreateRequested } from "../model/created-by";

import { loadUndici } from "../on-demand";
import { normalizeBaseUrl } from "./base-url";
import { CallQueue } from "./call-queue";
import { Cancellation } from "./cancellation";
import { DEFAULT_USER_AGENT, RETRY_BASE_DELAY_MS, RETRY_MAX_DELAY_MS } from "./constants";
import {
  createAccessKeyOnce,
  createWorkspaceAndFind,
  findCreated,
  findCreatedAccessKey,
  type CreateOnceApi,
  type CreateOnceBudget,
  type CreateOnceClaims,
  type FindCreatedOptions,
  type FoundAccessKey,
  type FoundCreated,
  type CreatedAccessKeyOnce,
} from "./create-once";
import { ENDPOINTS, type Endpoint } from "./endpoints";
import { BrokerSettingsError } from "./errors";
import { COUNT_OPTIONS, resolveCounts } from "./options";
import { allPages, flattenWorkspaces, listDefaults, type ResolvedListOptions } from "./paging";
import { RatePacer, sharedPacer } from "./rate-limit";
import { ReadCoalescer, type PagedList } from "./read-coalescer";
import { noticePath, type RateLimitWaitEvent, type RetryEvent } from "./notices";
import { request, type CallHooks, type RequestContext } from "./request";
import { REAL_TIMING, type RequestTiming } from "./retry";
import { DEFAULT_SETTING_NAMES, type SettingNames } from "./setting-names";
import type {
  AccessKeyFilter,
  AccessKeyRecord,
  CreateAccessKeyInput,
  CreatedAccessKey,
  CreateWorkspaceInput,
  ListAccessKeysQuery,
  ListOptions,
  ListWorkspacesQuery,
  Page,
  Permissions,
  ServiceKeyPair,
  WorkspaceFilter,
  WorkspaceRecord,
} from "./types";

/** Options of a {@link BrokerClient}. */
export interface BrokerClientOptions {
  /**
   * The API base URL: http(s), ending in `/v1` (a trailing slash is tolerated).
   * @example "https://broker.example.com/v1"
   */
  baseUrl: string;
  /** An ACCOUNT access key, sent as `X-API-KEY`. Never appears in errors or logs. */
  apiKey: string;
  /**
   * Connect, response-headers and response-body timeout of each attempt, in milliseconds. undici
   * checks the response timeouts on a coarse clock, so they fire up to about a second late.
   * @default 30_000 (DEFAULT_TIMEOUT_MS)
   */
  timeoutMs?: number;
  /**
   * Retries after the first attempt of a call (only of failures that are safe to retry).
   * @default 4 (DEFAULT_MAX_RETRIES)
   */
  maxRetries?: number;
  /**
   * Total time budget for retrying one call, in milliseconds. A `Retry-After` beyond it fails the
   * call at once, saying so.
   * @default 60_000 (DEFAULT_MAX_RETRY_TIME_MS)
   */
  maxRetryTimeMs?: number;
  /**
   * Requests in flight at once per client (the connections of its undici `Pool`); further calls queue.
   * @default 8 (DEFAULT_MAX_CONCURRENCY)
   */
  maxConcurrency?: number;
  /**
   * The `User-Agent` header.
   * @default "pulumi-broker-config/<version>" (DEFAULT_USER_AGENT)
   */
  userAgent?: string;
  /**
   * How long one call may wait on the broker's rate limit in all, in seconds. A 429 is waited out
   * (it blocks every request of the process to this API until its `Retry-After`, and slows the
   * pace) and does not count against `maxRetries`; past this budget the call fails.
   * @default 300 (DEFAULT_RATE_LIMIT_TIMEOUT_SECONDS)
   */
  rateLimitTimeoutSeconds?: number;
  /**
   * The broker's request quota, when known: requests of the process to this API are paced to stay
   * below it from the start, so no 429 is needed to learn it. Fractions are allowed.
   * @default none: the pace is learned from 429s
   */
  maxRequestsPerSecond?: number;
  /**
   * How old, in milliseconds, a page of a list may be when it answers a read of a single object
   * (a refresh's read of a key or workspace): a page sent at most this long before the read began,
   * and never before this client's own last answered write of that object. A refresh is not a
   * snapshot, so an answer this old is the answer of the same read scheduled a little earlier; it
   * lets a refresh at the engine's default parallelism read a stack a page at a time. 0: only pages
   * sent after the read began.
   * @default 2000 (DEFAULT_READ_STALENESS_MS)
   */
  readStalenessMs?: number;
  /**
   * Cancels the client's calls when it aborts (the Pulumi run was cancelled): no request is sent
   * after that and every wait (pace, 429, back-off) ends at once, so those calls fail with
   * `BROKER_CANCELLED` having changed nothing. Requests already sent finish, as do the reads that
   * learn what a sent create made, so that nothing created is lost.
   * @default never cancelled
   */
  signal?: AbortSignal;
  /** Called before each retry, e.g. to log it. The event holds no secrets. Exceptions are ignored. */
  onRetry?: (event: RetryEvent) => void;
  /**
   * Called before a request waits a second or more on the rate limit, e.g. to tell the user why
   * nothing seems to happen. The event holds no secrets. Exceptions are ignored.
   */
  onRateLimitWait?: (event: RateLimitWaitEvent) => void;
  /**
   * How to name the settings behind these options in error messages ("check that … holds an
   * ACCOUNT access key"), so that the hint says where the user sets them.
   * @default neutral names such as "the API key" (DEFAULT_SETTING_NAMES)
   * @example { apiKey: "broker:apiKey (or BROKER_API_KEY)", baseUrl: "broker:baseUrl (or BROKER_BASE_URL)" }
   */
  settingNames?: Partial<SettingNames>;
}

/**
 * Test seams of a client: not part of the public API.
 * @internal
 */
export interface BrokerClientInternals {
  /** Clock, sleep and randomness of retries. */
  timing?: RequestTiming;
  /** First backoff step. @default RETRY_BASE_DELAY_MS */
  baseDelayMs?: number;
  /** Largest backoff step. @default RETRY_MAX_DELAY_MS */
  maxDelayMs?: number;
  /**
   * The pacer. @default the process-wide one for the base URL, or with `timing` given, a pacer of
   * this client alone on that clock.
   */
  pacer?: RatePacer;
  /**
   * The read coalescers' clock, in milliseconds: how old a page is against `readStalenessMs`.
   * @default the clock of `timing`
   */
  readClock?: () => number;
}

/**
 * A typed client of the broker configuration API.
 *
 * Every call goes to one endpoint of `endpoints.ts` through `request()`: it retries what is safe to
 * retry (see `retry.ts`), throws {@link BrokerApiError} on failure (with secrets redacted), and
 * shares one connection pool capped at `maxConcurrency`.
 */
export class BrokerClient {
  /** The normalised base URL, without a trailing slash. */
  readonly baseUrl: string;
  readonly #ctx: RequestContext;
  /**
   * What the create-once operations call: the client, with its lists also as `finishing` lists that
   * the run's cancellation does not stop (the reads that learn what a sent create made).
   */
  readonly #createOnce: CreateOnceApi;
  readonly #pool: Pool;
  readonly #budget: CreateOnceBudget;
  /**
   * The client's one claim set: every object id a create of this client made or took over (live
   * creates, interrupted creates' intents, `recover`), and every id an engine operation showed a
   * resource already owns. No search for what a create made returns one of them.
   */
  readonly #claims: CreateOnceClaims;
  /** Reads of single keys, answered from the key list's pages when that costs fewer requests. */
  readonly #keyReads: ReadCoalescer<AccessKeyRecord>;
  /** Reads of single workspaces, likewise from the workspace list. */
  readonly #workspaceReads: ReadCoalescer<WorkspaceRecord>;
  /** The calls on the pool's connections, and those queued for one. */
  readonly #calls: CallQueue;

  /** @throws BrokerSettingsError when an option is invalid. */
  constructor(options: BrokerClientOptions);
  /** @internal */
  // A separate overload so that `stripInternal` removes the test seam from the published typings.
  // eslint-disable-next-line @typescript-eslint/unified-signatures
  constructor(options: BrokerClientOptions, internals: BrokerClientInternals);
  constructor(options: BrokerClientOptions, internals: BrokerClientInternals = {}) {
    const settingNames: SettingNames = { ...DEFAULT_SETTING_NAMES, ...options.settingNames };
    this.baseUrl = normalizeBaseUrl(options.baseUrl, "the baseUrl option", settingNames.apiKey);
    if (typeof options.apiKey !== "string" || options.apiKey.trim() === "") {
      throw new BrokerSettingsError(
        "BROKER_SETTINGS_MISSING",
        "No broker API key: the apiKey option is empty",
      );
    }
    const {
      timeoutMs,
      maxRetries,
      maxRetryTimeMs,
      maxConcurrency: connections,
      ...counts
    } = resolveCounts(options);
    const quota = counts.maxRequestsPerSecond;
    const url = new URL(this.baseUrl);
    const { Pool } = loadUndici();
    this.#pool = new Pool(url.origin, {
      connections,
      connect: { timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const clock = internals.timing ?? REAL_TIMING;
    const cancellation = new Cancellation(options.signal);
    const baseDelayMs = internals.baseDelayMs ?? RETRY_BASE_DELAY_MS;
    const maxDelayMs = internals.maxDelayMs ?? RETRY_MAX_DELAY_MS;
    this.#ctx = {
      dispatcher: this.#pool,
      baseUrl: this.baseUrl,
      basePath: url.pathname,
      apiKey: options.apiKey,
      userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
      timeoutMs,
      retry: { maxRetries, maxRetryTimeMs, baseDelayMs, maxDelayMs },
      timing: clock,
      notify: noticePath({ onRetry: options.onRetry, onRateLimitWait: options.onRateLimitWait }),
      settingNames,
      cancellation,
      rateLimit: {
        pacer:
          internals.pacer ??
          (internals.timing === undefined ? sharedPacer(this.baseUrl, clock) : new RatePacer(clock)),
        maxRequestsPerSecond: quota,
        timeoutMs: counts.rateLimitTimeoutSeconds * 1000,
      },
    };
    const claims = { workspaces: new Set<number>(), accessKeys: new Set<number>() };
    this.#claims = claims;
    // The waits of the create-once loop and of the coalescer end early on cancellation: what they
    // wait for is a request, which the pipeline then refuses.
    const waits = cancellation.waits(clock.sleep);
    const timing: RequestTiming = { now: clock.now, random: clock.random, sleep: waits };
    this.#budget = { maxRetries, maxRetryTimeMs, baseDelayMs, maxDelayMs, timing, claims };
    const finishing: RequestContext = { ...this.#ctx, cancellation: new Cancellation(undefined) };
    this.#createOnce = {
      createWorkspace: (input) => this.createWorkspace(input),
      workspaces: (filter) => this.workspaces(filter),
      createAccessKey: (input) => this.createAccessKey(input),
      accessKeys: (filter) => this.accessKeys(filter),
      getAccessKeyPermissions: (accessKey) => this.getAccessKeyPermissions(accessKey),
      rotateServiceKeyPair: (accessKey) => this.rotateServiceKeyPair(accessKey),
      finishing: {
        workspaces: (filter = {}) => this.#all(ENDPOINTS.listWorkspaces, filter, finishing),
        accessKeys: (filter = {}) => this.#all(ENDPOINTS.listAccessKeys, filter, finishing),
      },
    };
    const calls = new CallQueue(connections);
    this.#calls = calls;
    const { pacer } = this.#ctx.rateLimit;
    const readTiming = {
      nextSlotInMs: () => pacer.nextSlotInMs(quota),
      paced: () => pacer.pace(quota) !== undefined,
      sleep: waits,
      now: internals.readClock ?? clock.now,
      stalenessMs: counts.readStalenessMs,
      calls,
    };
    this.#keyReads = new ReadCoalescer(
      this.#pages(
        ENDPOINTS.listAccessKeys,
        (r) => [r],
        (r) => [idIdentity(r.id), keyIdentity(r.key)],
      ),
      readTiming,
    );
    this.#workspaceReads = new ReadCoalescer(
      this.#pages(ENDPOINTS.listWorkspaces, flattenWorkspaces, (r) => [idIdentity(r.id)]),
      readTiming,
    );
  }

  /**
   * One call of an endpoint of `endpoints.ts`, on one of the pool's connections (see
   * `call-queue.ts`), in the client's request context (or the finishing one, without cancellation).
   */
  #call<I, O>(endpoint: Endpoint<I, O>, input: I, hooks?: CallHooks, ctx = this.#ctx): Promise<O> {
    return this.#calls.run(() => request(ctx, endpoint, input, hooks));
  }

  /** A whole list, unfiltered, oldest first (the defaults), as the read coalescers page through it. */
  #pages<R>(
    endpoint: Endpoint<ResolvedListOptions & { pageIndex: number }, Page<R>>,
    recordsOf: (record: R) => Iterable<R>,
    identities: (record: R) => Iterable<string>,
  ): PagedList<R> {
    const { limit: pageSize, page } = this.#list(endpoint, {});
    return {
      pageSize,
      page,
      *records(page) {
        for (const record of page.results) yield* recordsOf(record);
      },
      identities,
    };
  }

  /**
   * A list with its paging defaults filled in (once, here): the page size, and how to fetch page `i`.
   * Defaults: limit 100, order ASC, orderBy createdAt.
   */
  #list<F extends ListOptions, R>(
    endpoint: Endpoint<F & ResolvedListOptions & { pageIndex: number }, Page<R>>,
    filter: F,
    ctx = this.#ctx,
  ): { limit: number; page: (pageIndex: number, hooks?: CallHooks) => Promise<Page<R>> } {
    const query = { ...filter, ...listDefaults(filter) };
    return {
      limit: query.limit,
      page: (pageIndex, hooks) => this.#call(endpoint, { ...query, pageIndex }, hooks, ctx),
    };
  }

  /** Every record of a list, page after page (fetched lazily), until a short page. */
  #all<F extends ListOptions, R>(
    endpoint: Endpoint<F & ResolvedListOptions & { pageIndex: number }, Page<R>>,
    filter: F,
    ctx = this.#ctx,
  ): AsyncIterableIterator<R> {
    const list = this.#list(endpoint, filter, ctx);
    return allPages(list.limit, list.page);
  }

  /**
   * `POST /access-key`. Not retried after a failure that may have come after the server processed it
   * (the error then has `outcomeUnknown`); prefer {@link createAccessKeyOnce}.
   */
  createAccessKey(input: CreateAccessKeyInput): Promise<CreatedAccessKey> {
    return this.#call(ENDPOINTS.createAccessKey, input).then((created) => {
      // A new key: no page sent before now holds it, and none may answer its read-back.
      this.#keyReads.wrote([idIdentity(created.accessKeyId), keyIdentity(created.accessKey)]);
      return created;
    });
  }

  /** `GET /access-key`: one page. Defaults: limit 100, order ASC, orderBy createdAt. */
  listAccessKeys(query: ListAccessKeysQuery): Promise<Page<AccessKeyRecord>> {
    const { pageIndex, ...filter } = query;
    return this.#list(ENDPOINTS.listAccessKeys, filter).page(pageIndex);
  }

  /** Every access key, page after page (fetched lazily), until a short page. */
  accessKeys(options: AccessKeyFilter = {}): AsyncIterableIterator<AccessKeyRecord> {
    return this.#all(ENDPOINTS.listAccessKeys, options);
  }

  /**
   * The access key with this id (the key list is the only way to find a key by id); `undefined` if
   * there is none. Reads made together share the list's pages (see `read-coalescer.ts`).
   */
  findAccessKeyById(id: number): Promise<AccessKeyRecord | undefined> {
    return this.#keyReads.read(idIdentity(id), async () => {
      for await (const record of this.accessKeys()) if (record.id === id) return record;
      return undefined;
    });
  }

  /**
   * The key's record, as `GET /access-key/{accessKey}/permissions` returns it. A missing key throws
   * `BROKER_NOT_FOUND`. Reads made together are answered from the key list's pages when that costs
   * fewer requests, each from a page sent after the read began (see `read-coalescer.ts`).
   */
  getAccessKeyPermissions(accessKey: string): Promise<AccessKeyRecord> {
    return this.#keyReads.read(keyIdentity(accessKey), () =>
      this.#call(ENDPOINTS.getAccessKeyPermissions, accessKey),
    );
  }

  /**
   * `POST /access-key/{accessKey}/permissions` with the full desired lists. Whether the server
   * replaces or merges is undocumented: read the record back to check.
   */
  updateAccessKeyPermissions(accessKey: string, permissions: Permissions): Promise<void> {
    return this.#written(
      accessKey,
      this.#call(ENDPOINTS.updateAccessKeyPermissions, { accessKey, permissions }),
    );
  }

  /** `GET /access/verify/{accessKey}`: `true` if valid; `false` for `{status:false}` and 401/403/404. */
  verifyAccessKey(accessKey: string): Promise<boolean> {
    return this.#call(ENDPOINTS.verifyAccessKey, accessKey);
  }

  /** `PUT /access/service-key-pair`: replaces a SERVICE key's pair and returns the new one. */
  rotateServiceKeyPair(accessKey: string): Promise<ServiceKeyPair> {
    return this.#written(accessKey, this.#call(ENDPOINTS.rotateServiceKeyPair, accessKey));
  }

  /**
   * A write of the key `accessKey`: once it is answered, or has failed (it may have been applied),
   * no page sent before may answer a read of that key (read-your-writes under the staleness bound).
   */
  #written<T>(accessKey: string, write: Promise<T>): Promise<T> {
    return write.finally(() => {
      this.#keyReads.wrote([keyIdentity(accessKey)]);
    });
  }

  /**
   * `POST /workspace` (no id is returned). `parentId` is sent only when positive. Not retried after a
   * failure that may have come after the server processed it; prefer {@link createWorkspaceAndFind}.
   */
  createWorkspace(input: CreateWorkspaceInput): Promise<void> {
    return this.#call(ENDPOINTS.createWorkspace, input);
  }

  /** `GET /workspace`: one page. Defaults: limit 100, order ASC, orderBy createdAt. */
  listWorkspaces(query: ListWorkspacesQuery): Promise<Page<WorkspaceRecord>> {
    const { pageIndex, ...filter } = query;
    return this.#list(ENDPOINTS.listWorkspaces, filter).page(pageIndex);
  }

  /** Every workspace matching the filters, page after page (fetched lazily), until a short page. */
  workspaces(options: WorkspaceFilter = {}): AsyncIterableIterator<WorkspaceRecord> {
    return this.#all(ENDPOINTS.listWorkspaces, options);
  }

  /**
   * The workspace with this id (alone, one filtered list request); `undefined` if there is none.
   * Reads made together are answered from the workspace list's pages when that costs fewer
   * requests, each from a page sent after the read began (see `read-coalescer.ts`).
   */
  getWorkspace(id: number): Promise<WorkspaceRecord | undefined> {
    return this.#workspaceReads.read(idIdentity(id), async () => {
      const page = await this.listWorkspaces({ pageIndex: 0, id });
      // Checked here too: a server that ignored the filter must not hand back another workspace.
      return page.results.find((w) => w.id === id);
    });
  }

  /** Creates a workspace and returns its record, never creating it twice (see `create-once.ts`). */
  createWorkspaceAndFind(
    input: CreateWorkspaceInput,
    knownBefore?: readonly WorkspaceRecord[],
  ): Promise<WorkspaceRecord> {
    return createWorkspaceAndFind(this.#createOnce, this.#budget, input, knownBefore);
  }

  /** Creates an access key and reads back its record, never creating it twice (see `create-once.ts`). */
  createAccessKeyOnce(input: CreateAccessKeyInput): Promise<CreatedAccessKeyOnce> {
    return createAccessKeyOnce(this.#createOnce, this.#budget, input);
  }

  /**
   * Finds the object a create made when its answer never came (see `findCreated` in
   * `create-once.ts`): the one search, over the one claim set of this client, that the live
   * creates, the intents of a provider that died and `broker-config recover` all use.
   */
  findCreated(
    requested: Extract<CreateRequested, { kind: "AccessKey" }>,
    options: FindCreatedOptions,
  ): Promise<FoundCreated<FoundAccessKey>>;
  findCreated(
    requested: Extract<CreateRequested, { kind: "Workspace" }>,
    options: FindCreatedOptions,
  ): Promise<FoundCreated<WorkspaceRecord>>;
  findCreated(
    requested: CreateRequested,
    options: FindCreatedOptions,
  ): Promise<FoundCreated<FoundAccessKey | WorkspaceRecord>> {
    return requested.kind === "AccessKey"
      ? findCreatedAccessKey(this.#createOnce, this.#claims, requested, options)
      : (findCreated(this.#createOnce, this.#claims, requested, options) as Promise<
          FoundCreated<WorkspaceRecord>
        >);
  }

  /**
   * Records that `id` is taken (an engine operation showed a resource owns it, or a create made it):
   * no search of this client for what a create made returns it.
   */
  claim(kind: CreateRequested["kind"], id: number): void {
    (kind === "AccessKey" ? this.#claims.accessKeys : this.#claims.workspaces).add(id);
  }

  /** Closes the connection pool after the requests in flight finish. */
  async close(): Promise<void> {
    if (!this.#pool.closed) await this.#pool.close();
  }

  /** Whether {@link close} was called. */
  get closed(): boolean {
    return this.#pool.closed;
  }

  /** Keeps the API key out of `util.inspect(client)` and logs of the client object. */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `BrokerClient { baseUrl: '${this.baseUrl}' }`;
  }

  /** Keeps the API key out of `JSON.stringify(client)`. */
  toJSON(): { baseUrl: string } {
    return { baseUrl: this.baseUrl };
  }
}

/** How a read asks for a record by id. */
const idIdentity = (id: number): string => `id:${id}`;

/**
 * How a read asks for a key by its value: a digest, so that the coalescer's memory of where each
 * record was seen holds no credential.
 */
const keyIdentity = (accessKey: string): string =>
  `key:${createHash("sha256").update(accessKey).digest("base64url")}`;

const cache = new Map<string, BrokerClient>();
const listenerIds = new WeakMap<object, number>();
let nextListenerId = 1;

/** A number per listener function, so that the cache key tells listeners apart. */
function listenerId(listener: object | undefined): number {
  if (listener === undefined) return 0;
  const id = listenerIds.get(listener) ?? nextListenerId++;
  listenerIds.set(listener, id);
  return id;
}

/** What an option left out means, for telling equal configurations apart. */
const OPTION_DEFAULTS: Partial<Record<keyof BrokerClientOptions, unknown>> = {
  ...Object.fromEntries(Object.entries(COUNT_OPTIONS).map(([name, rule]) => [name, rule.default])),
  userAgent: DEFAULT_USER_AGENT,
};

/** How one option enters the cache key: comparable, and never a credential. */
function identityOf(name: string, value: unknown): unknown {
  // The API key enters the key only as a hash, so the map holds no credential of its own.
  if (name === "apiKey") return createHash("sha256").update(String(value)).digest("hex");
  if (name === "baseUrl") return normalizeBaseUrl(String(value), "the baseUrl option");
  if (name === "settingNames") return { ...DEFAULT_SETTING_NAMES, ...(value as Partial<SettingNames>) };
  // A signal, like a listener, is told apart by identity: two runs' signals are two clients.
  if (typeof value === "function" || name === "signal") return listenerId(value as object);
  return value;
}

/**
 * The identity of a configuration: every option given (whatever options there are, so that a new
 * one cannot be forgotten here and let two configurations share a client), with defaults for those
 * left out, in name order.
 */
function cacheKey(options: BrokerClientOptions): string {
  const given = Object.entries(options).filter(([, value]) => value !== undefined);
  const all: Record<string, unknown> = { ...OPTION_DEFAULTS, ...Object.fromEntries(given) };
  return JSON.stringify(
    Object.keys(all)
      .sort()
      .map((name) => [name, identityOf(name, all[name])]),
  );
}

/**
 * The process-wide client for these options: one per (base URL, API key, options, listeners), so
 * that every resource served by one provider host shares one pool and its concurrency cap. A closed
 * client is replaced by a new one.
 */
export function getBrokerClient(options: BrokerClientOptions): BrokerClient {
  const key = cacheKey(options);
  const cached = cache.get(key);
  if (cached !== undefined && !cached.closed) return cached;
  const client = new BrokerClient(options);
  cache.set(key, client);
  return client;
}
