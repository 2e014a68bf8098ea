/**
 * Coalesced reads: many reads of single objects answered by a few pages of the list.
 *
 * A refresh reads every resource of a stack, one request each (`GET /access-key/{key}/permissions`,
 * `GET /workspace?id=…`), while a page of a list holds up to 100 whole records: under a rate limit,
 * reads that wait together cost one page instead of one request each. This module decides, for the
 * reads waiting at a moment, which page (if any) answers the most of them. Why it is correct (fresh
 * within the staleness bound S, read-your-writes, never a false "not found", bounded cost) is in
 * docs/architecture.md, "Coalesced reads"; the cost rule, prefetching and gathering, with the
 * measurements behind their numbers, in docs/decisions.md, "Pages or single reads".
 */
import type { CallQueue } from "./call-queue";
import type { CallHooks } from "./request";
import type { Page } from "./types";

/** The list a coalescer pages through, as the client provides it. */
export interface PagedList<R> {
  /** Records per page: a page shorter than this is the last. */
  readonly pageSize: number;
  /** Fetches one page, in a stable order (oldest first), calling `hooks.onAttempt` as each attempt is sent. */
  page(pageIndex: number, hooks: CallHooks): Promise<Page<R>>;
  /** Every record a page holds, nested ones included (a workspace list may nest children). */
  records(page: Page<R>): Iterable<R>;
  /** The identities a read may ask a record by (such as its id, or a digest of its key). */
  identities(record: R): Iterable<string>;
}

/**
 * When the coalescer may send its next request: what it reads of the client's call queue and of the
 * rate limiter, neither of which it changes (its requests go through the queue like any call).
 */
export interface CoalescerTiming {
  /**
   * The client's call queue (`call-queue.ts`): `whenFree` resolves when a call could take a
   * connection with none queued before it (reads arriving meanwhile are decided together), `free`
   * says how many more calls the connections carry now (at least 1 then), `connections` how many
   * at once.
   */
  readonly calls: Pick<CallQueue, "whenFree" | "free" | "connections">;
  /** Milliseconds until a request would be sent, were it queued now (the rate limiter's next slot). */
  readonly nextSlotInMs: () => number;
  /**
   * Whether requests are paced (a known quota, or one learned from 429s): then one request goes out
   * per slot whatever is decided, so the coalescer decides one request per slot, and the reads that
   * arrive meanwhile join the next decision instead of queueing as single reads.
   */
  readonly paced: () => boolean;
  /** Sleeps; ends early (without an error) when the run is cancelled. */
  readonly sleep: (ms: number) => Promise<void>;
  /** The clock, in milliseconds (a fake one in tests): how old a page is. */
  readonly now: () => number;
  /**
   * The staleness bound S, in milliseconds: a page sent at most this long before a read began may
   * answer it. 0: only pages sent after the read began.
   */
  readonly stalenessMs: number;
}

/** What the coalescer counts, for benchmarks and tests. */
export interface CoalescerCounts {
  /** Reads asked for (the gathering rule also reads it: whether reads began since a moment). */
  reads: number;
  /** Reads answered from a page (sent after the read began, or at most S before). */
  fromPages: number;
  /** Of those, reads answered from a page sent before the read began (within S). */
  fromEarlierPages: number;
  /** Reads answered by their own single read. */
  singles: number;
  /** Pages requested. */
  pages: number;
  /** Of those, pages fetched ahead of the reads (no read waited for them when they were decided). */
  prefetched: number;
}

interface Waiter<R> {
  readonly identity: string;
  /** The coalescer's logical clock when the read began: pages sent later may answer it. */
  readonly began: number;
  /** The clock (milliseconds) when the read began: pages sent at most S before may answer it. */
  readonly beganAt: number;
  /** The pages it was shown since it began, without a match. */
  readonly missed: Set<number>;
  readonly single: () => void;
  readonly answer: (record: R, earlier: boolean) => void;
}

/** A record as a page showed it, and when that page was sent. */
interface Seen<R> {
  readonly record: R;
  /** Every identity of the record (a read may ask by any; a write may have named any). */
  readonly identities: readonly string[];
  readonly page: number;
  /** The logical clock when the page's last attempt was sent. */
  readonly sentTick: number;
  /** The clock (milliseconds) then. */
  readonly sentAt: number;
}

/**
 * Reads answered from one page (within S) before the next page is fetched ahead: as many as say the
 * reads are streaming through that page's records (a refresh), not a few of a small stack's keys
 * that happen to share it. At most one page ahead per this many reads answered.
 */
export const PREFETCH_AFTER_READS = 25;

/**
 * How long the reads must stop arriving before a gathering ends (see {@link ReadCoalescer}): longer
 * than the pauses measured between the reads of one `pulumi refresh --parallel 1000` (up to 70 ms in
 * the plugin, 141 ms once in Pulumi's dynamic provider host).
 */
export const GATHER_QUIET_MS = 250;
/** The longest one gathering holds the reads waiting (the reads of 1000 resources arrive within about 1.2 s). */
export const GATHER_MAX_MS = 3000;

/** Macrotask turn: the reads started in the same turn as the first are all waiting after it. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Answers reads of single records of one list, from its pages when that costs fewer requests (a page
 * is sent only when at least two waiting reads may be on it; every other read is a single read).
 */
export class ReadCoalescer<R> {
  readonly #list: PagedList<R>;
  readonly #timing: CoalescerTiming;
  readonly #waiting = new Set<Waiter<R>>();
  /** A logical clock: reads beginning and requests being sent, in order. */
  #tick = 0;
  #pumping = false;
  /** The page each identity was last seen on. */
  readonly #located = new Map<string, number>();
  /** The first page never fetched: pages before it have been seen at least once. */
  #frontier = 0;
  /** The index of the last page, once a short page has shown where the list ends. */
  #lastPage: number | undefined;
  /** Probes since the last one that answered a read, that answered none. */
  #wastedProbes = 0;
  /** How many reads had begun (`counts.reads`) at the last decision. */
  #readsDecided = 0;
  /**
   * How many reads arrive together, learned when a gathering saw them stop: as many as the engine
   * sends at once (its parallelism), so a later batch of that size is not held again. Any other
   * count is held (more than that: the pause was not the batch's end), and learned again.
   */
  #burst = Number.POSITIVE_INFINITY;
  /** The records of the pages sent within the last S, by identity (only kept when S > 0). */
  readonly #seen = new Map<string, Seen<R>>();
  /** The logical clock of this process's last answered write of each identity. */
  readonly #wrote = new Map<string, number>();
  /** When each page was last decided (clock, ms): a page fetched within S is not fetched ahead again. */
  readonly #decidedAt = new Map<number, number>();
  /** Reads answered from each page (within S) since it was last fetched: the prefetch rule's count. */
  readonly #answeredFrom = new Map<number, number>();
  /** The page to fetch ahead when no read waits, if any. */
  #ahead: number | undefined;
  /** What was counted so far. */
  readonly counts: CoalescerCounts = {
    reads: 0,
    fromPages: 0,
    fromEarlierPages: 0,
    singles: 0,
    pages: 0,
    prefetched: 0,
  };

  constructor(list: PagedList<R>, timing: CoalescerTiming) {
    this.#list = list;
    this.#timing = timing;
  }

  /**
   * Reads one record: the record with this identity on a page sent after this call or at most S
   * before it (and after this process's last answered write of it, see {@link wrote}), or else what
   * `single` returns (a read of that object alone, which may say it does not exist).
   */
  read<T>(identity: string, single: () => Promise<T>): Promise<R | T> {
    this.counts.reads++;
    return new Promise<R | T>((resolve, reject) => {
      const waiter: Waiter<R> = {
        identity,
        began: ++this.#tick,
        beganAt: this.#timing.now(),
        missed: new Set(),
        answer: (record, earlier) => {
          this.counts.fromPages++;
          if (earlier) this.counts.fromEarlierPages++;
          resolve(record);
        },
        single: () => {
          this.counts.singles++;
          single().then(resolve, reject);
        },
      };
      const seen = this.#seen.get(identity);
      if (seen !== undefined) {
        if (this.#mayAnswer(waiter, seen.sentTick, seen.sentAt, seen.identities)) {
          waiter.answer(seen.record, true);
          this.#answered(seen.page);
          return;
        }
        // Too old for this read, and so for every later one.
        if (seen.sentAt < waiter.beganAt - this.#timing.stalenessMs) this.#seen.delete(identity);
      }
      this.#waiting.add(waiter);
      if (!this.#pumping) void this.#pump();
    });
  }

  /**
   * Records that this process's write of the object with these identities was answered (or failed:
   * it may have been applied): no page sent before now answers a read of it.
   */
  wrote(identities: Iterable<string>): void {
    const tick = ++this.#tick;
    for (const identity of identities) this.#wrote.set(identity, tick);
  }

  /**
   * Whether a page sent at `sentTick` (logical) and `sentAt` (ms) may answer the waiter with a record
   * of these identities: sent after the read began; or at most S before it and after this
   * process's last answered write of the record.
   */
  #mayAnswer(waiter: Waiter<R>, sentTick: number, sentAt: number, identities: readonly string[]): boolean {
    if (sentTick > waiter.began) return true;
    if (this.#timing.stalenessMs <= 0 || sentAt < waiter.beganAt - this.#timing.stalenessMs) return false;
    for (const identity of [waiter.identity, ...identities])
      if ((this.#wrote.get(identity) ?? Number.NEGATIVE_INFINITY) > sentTick) return false;
    return true;
  }

  /**
   * Counts a read answered from `page` that began after the page was sent: reads streaming in
   * through its records (reads waiting together when it was sent say nothing of the reads to come).
   * Once {@link PREFETCH_AFTER_READS} did, the next page is fetched ahead (when no read waits),
   * unless it was fetched within S or `page` is the list's last.
   */
  #answered(page: number): void {
    const count = (this.#answeredFrom.get(page) ?? 0) + 1;
    this.#answeredFrom.set(page, count);
    if (count < PREFETCH_AFTER_READS || page === this.#lastPage) return;
    const next = page + 1;
    const decided = this.#decidedAt.get(next);
    if (this.#ahead !== undefined) return;
    if (decided !== undefined && decided >= this.#timing.now() - this.#timing.stalenessMs) return;
    this.#ahead = next;
    this.#answeredFrom.set(page, 0);
    if (!this.#pumping) void this.#pump();
  }

  /** Sends pages or single reads until no read waits. Never throws: failures go to the reads. */
  async #pump(): Promise<void> {
    this.#pumping = true;
    try {
      while (this.#waiting.size > 0 || this.#ahead !== undefined) {
        await this.#timing.calls.whenFree();
        const waitMs = this.#timing.nextSlotInMs();
        // When the run is cancelled these waits end early, and the requests decided next are
        // refused where requests are sent (`cancellation.ts`): no read needs ending here.
        await (waitMs > 0 ? this.#timing.sleep(waitMs) : nextTurn());
        await this.#gather();
        this.#readsDecided = this.counts.reads;
        const choice = this.#choosePage();
        if (choice !== undefined) {
          if (choice.page === this.#ahead) this.#ahead = undefined;
          await this.#fetch(choice.page, choice.probe);
        } else if (this.#ahead !== undefined) {
          // No page pays for itself yet: the slot goes to the page the streaming reads are about to
          // need, which may hold the few reads waiting too (the first of its records to be read).
          const ahead = this.#ahead;
          this.#ahead = undefined;
          this.counts.prefetched++;
          await this.#fetch(ahead, false);
        } else {
          // The oldest reads take what can be sent now (one slot under a rate limit, else the free
          // connections); the others wait for the next decision, which the reads arriving meanwhile
          // join. Their requests reserve their slots before the next look at the pacer.
          const now = this.#timing.paced() ? 1 : Math.max(1, this.#timing.calls.free);
          this.#singles([...this.#waiting].slice(0, now));
          await nextTurn();
        }
      }
    } finally {
      this.#pumping = false;
    }
  }

  /**
   * Holds the decision while reads keep arriving, when more wait than the connections could carry
   * at once: a page sent now could not answer the reads about to begin, which would need it again
   * (docs/decisions.md, "Pages or single reads"). Ends when no read began for {@link GATHER_QUIET_MS}
   * (the reads waiting are the engine's batch: a batch of that size is not held again), after
   * {@link GATHER_MAX_MS}, or at once when no read began since the last decision.
   */
  async #gather(): Promise<void> {
    if (this.counts.reads === this.#readsDecided) return;
    for (let held = 0; held < GATHER_MAX_MS; held += GATHER_QUIET_MS) {
      const waiting = this.#waiting.size;
      if (waiting <= this.#timing.calls.connections || waiting === this.#burst) return;
      // More than the batch learned: that pause was not the end of a batch.
      if (waiting > this.#burst) this.#burst = Number.POSITIVE_INFINITY;
      const before = this.counts.reads;
      await this.#timing.sleep(GATHER_QUIET_MS);
      if (this.counts.reads === before) {
        this.#burst = this.#waiting.size;
        return;
      }
    }
  }

  /** The page that may answer the most waiting reads, if at least two; `probe` when it is a guess. */
  #choosePage(): { page: number; probe: boolean } | undefined {
    const located = new Map<number, number>();
    let unplaced = 0;
    for (const waiter of this.#waiting) {
      const page = this.#located.get(waiter.identity);
      if (page !== undefined) located.set(page, (located.get(page) ?? 0) + 1);
      else if (!this.#sawLastPage(waiter)) unplaced++;
    }
    let best: { page: number; probe: boolean; reads: number } | undefined;
    for (const [page, reads] of located) if (reads > (best?.reads ?? 1)) best = { page, probe: false, reads };
    const allowance = Math.max(1, Math.floor(unplaced / this.#list.pageSize));
    if (unplaced > (best?.reads ?? 1) && this.#wastedProbes < allowance) {
      // Records not seen yet are on a page not fetched yet, or new, at the end of the list.
      best = { page: this.#lastPage ?? this.#frontier, probe: true, reads: unplaced };
    }
    return best;
  }

  /** Whether the waiter has already missed on the last page of a list whose end is known. */
  #sawLastPage(waiter: Waiter<R>): boolean {
    return this.#lastPage !== undefined && waiter.missed.has(this.#lastPage);
  }

  /** Sends one page and answers the reads it may answer. */
  async #fetch(index: number, probe: boolean): Promise<void> {
    this.counts.pages++;
    this.#decidedAt.set(index, this.#timing.now());
    this.#answeredFrom.set(index, 0);
    let sentTick = Number.POSITIVE_INFINITY;
    let sentAt = Number.NEGATIVE_INFINITY;
    let page: Page<R>;
    try {
      page = await this.#list.page(index, {
        onAttempt: () => {
          sentTick = ++this.#tick;
          sentAt = this.#timing.now();
        },
      });
    } catch {
      // The single reads will say what is wrong, each for its own object.
      this.#singles(this.#waiting);
      return;
    }
    const here = new Map<string, Seen<R>>();
    const keep = this.#timing.stalenessMs > 0;
    if (keep) this.#forget(index, sentAt);
    for (const record of this.#list.records(page)) {
      const identities = [...this.#list.identities(record)];
      const seen: Seen<R> = { record, identities, page: index, sentTick, sentAt };
      for (const identity of identities) {
        if (!here.has(identity)) here.set(identity, seen);
        this.#located.set(identity, index);
        if (keep) this.#seen.set(identity, seen);
      }
    }
    if (index >= this.#frontier) this.#frontier = index + 1;
    const short = page.results.length < this.#list.pageSize;
    if (short) this.#lastPage = index;
    else if (this.#lastPage !== undefined && index >= this.#lastPage) this.#lastPage = undefined;

    let answered = 0;
    for (const waiter of this.#waiting) {
      const fresh = sentTick > waiter.began;
      const seen = here.get(waiter.identity);
      if (seen === undefined || !this.#mayAnswer(waiter, sentTick, sentAt, seen.identities)) {
        // Only a page sent after the read began says where the record is not now.
        if (!fresh || seen !== undefined) continue;
        waiter.missed.add(index);
        // Not where it was last seen: it moved, or is gone. Its page is unknown again.
        if (this.#located.get(waiter.identity) === index) this.#located.delete(waiter.identity);
        continue;
      }
      this.#waiting.delete(waiter);
      answered++;
      waiter.answer(seen.record, !fresh);
      if (!fresh) this.#answered(index);
    }
    if (probe) this.#wastedProbes = answered === 0 ? this.#wastedProbes + 1 : 0;
    // Reads that every page of the list has been shown to without a match: their object may have
    // moved between pages, or be gone. Their single read says which.
    if (this.#lastPage !== undefined) {
      const last = this.#lastPage;
      this.#singles([...this.#waiting].filter((w) => this.#missedEveryPage(w, last)));
    }
  }

  /**
   * Forgets the records kept from earlier fetches of page `index` (the page sent at `sentAt` says
   * what is on it now) and every record kept from a page sent more than S ago: no read beginning
   * from now on may be answered by it.
   */
  #forget(index: number, sentAt: number): void {
    const horizon = this.#timing.now() - this.#timing.stalenessMs;
    for (const [identity, seen] of this.#seen)
      if ((seen.page === index && seen.sentAt <= sentAt) || seen.sentAt < horizon)
        this.#seen.delete(identity);
  }

  #missedEveryPage(waiter: Waiter<R>, lastIndex: number): boolean {
    for (let i = 0; i <= lastIndex; i++) if (!waiter.missed.has(i)) return false;
    return true;
  }

  /** Hands these reads to their single reads. */
  #singles(waiters: Iterable<Waiter<R>>): void {
    for (const waiter of [...waiters]) {
      this.#waiting.delete(waiter);
      waiter.single();
    }
  }
}
