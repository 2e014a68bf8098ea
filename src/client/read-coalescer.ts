/**
 * Coalesced reads: many reads of single objects answered by a few pages of the list.
 *
 * A refresh reads every resource of a stack at once, and each read is one request
 * (`GET /access-key/{key}/permissions`, `GET /workspace?id=…`). The lists (`GET /access-key`,
 * `GET /workspace`) return up to 100 whole records per page, so under a rate limit, where requests
 * are what users wait for, a thousand reads cost ten pages instead of a thousand requests. This
 * module decides, for the reads waiting at a moment, whether pages or single reads cost fewer
 * requests, and answers each read from the pages when it can.
 *
 * What makes it correct (docs/architecture.md, "Coalesced reads"):
 * - **Fresh**: a page answers only the reads that began before the page's request was sent (its
 *   last attempt). So whatever a page says of an object, the server said it during the read, after
 *   every write the reader made before the read: a read-back always sees its own write.
 * - **Never a false "not found"**: a read whose object no page showed is answered by its own single
 *   read, never by the pages' silence (a create or a removal can shift records across pages).
 * - **Bounded cost**: a walk through the pages goes on only while it has answered about as many
 *   reads as it has sent pages (see {@link ReadCoalescer}); when it stops, the reads left take
 *   single reads. So the pages never cost more than one request, or one per hundred reads waiting,
 *   beyond what single reads would have.
 *
 * The moment to decide is when a request could be sent: the coalescer waits for the rate limiter's
 * next free slot before it chooses, so the reads that arrive meanwhile (the rest of a refresh, the
 * read-backs of creates queued behind the limit) are decided together.
 */
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
}

/** When the coalescer may send its next request. */
export interface CoalescerTiming {
  /** Milliseconds until a request would be sent, were it queued now (the rate limiter's next slot). */
  readonly nextSlotInMs: () => number;
  readonly sleep: (ms: number) => Promise<void>;
}

/** What the coalescer counts, for benchmarks and tests. */
export interface CoalescerCounts {
  /** Reads asked for. */
  reads: number;
  /** Reads answered from a page. */
  fromPages: number;
  /** Reads answered by their own single read. */
  singles: number;
  /** Pages requested. */
  pages: number;
}

interface Waiter<R> {
  readonly matches: (record: R) => boolean;
  /** The coalescer's clock when the read began: pages sent later may answer it. */
  readonly began: number;
  /** The page indexes it was shown by pages sent after it began. */
  readonly seen: Set<number>;
  readonly single: () => void;
  readonly answer: (record: R) => void;
}

/** A walk through the pages, from page 0. */
interface Walk {
  next: number;
  pages: number;
  answered: number;
}

/** Macrotask turn: the reads started in the same turn as the first are all waiting after it. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Answers reads of single records of one list, from its pages when that costs fewer requests.
 *
 * The cost rule (docs/decisions.md, "Pages or single reads"): with `n` reads waiting and `T`
 * records on the broker, a walk costs `⌊T/100⌋ + 1` pages and single reads cost `n`. A walk starts
 * when at least two reads wait and, once pages have shown something of `T` (exactly, or a lower
 * bound when a walk stopped early), when it costs fewer requests than the reads waiting; before
 * that, its first page is the probe. A walk
 * goes on while the pages it sent exceed the reads it answered by less than
 * `max(1, ⌊waiting/100⌋)`; otherwise the reads left take single reads.
 */
export class ReadCoalescer<R> {
  readonly #list: PagedList<R>;
  readonly #timing: CoalescerTiming;
  readonly #waiting = new Set<Waiter<R>>();
  /** A logical clock: reads beginning and requests being sent, in order. */
  #tick = 0;
  #pumping = false;
  #walk: Walk | undefined;
  /**
   * How many records the list holds at least, as far as pages have shown: exactly when a walk
   * reached the last page, at least the pages' worth when it stopped before.
   */
  #knownTotal: number | undefined;
  /** What was counted so far. */
  readonly counts: CoalescerCounts = { reads: 0, fromPages: 0, singles: 0, pages: 0 };

  constructor(list: PagedList<R>, timing: CoalescerTiming) {
    this.#list = list;
    this.#timing = timing;
  }

  /**
   * Reads one record: the first record of a page (sent after this call) that `matches`, or else
   * what `single` returns (a read of that object alone, which may say it does not exist).
   */
  read<T>(matches: (record: R) => boolean, single: () => Promise<T>): Promise<R | T> {
    this.counts.reads++;
    return new Promise<R | T>((resolve, reject) => {
      const waiter: Waiter<R> = {
        matches,
        began: ++this.#tick,
        seen: new Set(),
        answer: (record) => {
          this.counts.fromPages++;
          resolve(record);
        },
        single: () => {
          this.counts.singles++;
          single().then(resolve, reject);
        },
      };
      this.#waiting.add(waiter);
      if (!this.#pumping) void this.#pump();
    });
  }

  /** Sends pages or single reads until no read waits. Never throws: failures go to the reads. */
  async #pump(): Promise<void> {
    this.#pumping = true;
    try {
      while (this.#waiting.size > 0) {
        const waitMs = this.#timing.nextSlotInMs();
        await (waitMs > 0 ? this.#timing.sleep(waitMs) : nextTurn());
        if (this.#walk === undefined && !this.#walkPays()) this.#singles(this.#waiting);
        else await this.#nextPage((this.#walk ??= { next: 0, pages: 0, answered: 0 }));
      }
      // Nothing waits: a read that comes later starts afresh, not in the middle of this walk.
      this.#walk = undefined;
    } finally {
      this.#pumping = false;
    }
  }

  /** Whether a walk costs fewer requests than the reads waiting now. */
  #walkPays(): boolean {
    const waiting = this.#waiting.size;
    if (waiting < 2) return false;
    if (this.#knownTotal === undefined) return true;
    return Math.floor(this.#knownTotal / this.#list.pageSize) + 1 < waiting;
  }

  /** Sends the walk's next page and answers the reads it may answer. */
  async #nextPage(walk: Walk): Promise<void> {
    const index = walk.next++;
    walk.pages++;
    this.counts.pages++;
    let sentAt = Number.POSITIVE_INFINITY;
    let page: Page<R>;
    try {
      page = await this.#list.page(index, { onAttempt: () => (sentAt = ++this.#tick) });
    } catch {
      // The single reads will say what is wrong, each for its own object.
      this.#walk = undefined;
      this.#singles(this.#waiting);
      return;
    }
    const records = [...this.#list.records(page)];
    for (const waiter of this.#waiting) {
      if (waiter.began >= sentAt) continue;
      waiter.seen.add(index);
      const record = records.find((r) => waiter.matches(r));
      if (record === undefined) continue;
      this.#waiting.delete(waiter);
      walk.answered++;
      waiter.answer(record);
    }
    const last = page.results.length < this.#list.pageSize;
    const shown = index * this.#list.pageSize + page.results.length;
    this.#knownTotal = last ? shown : Math.max(this.#knownTotal ?? 0, shown);
    if (last) {
      this.#walk = undefined;
      // Reads that every page has been shown to without a match: their object may have moved
      // between pages, or be gone. Their single read says which.
      this.#singles([...this.#waiting].filter((w) => this.#sawEveryPage(w, index)));
      return;
    }
    const allowance = Math.max(1, Math.floor(this.#waiting.size / this.#list.pageSize));
    if (walk.pages - walk.answered >= allowance) {
      this.#walk = undefined;
      this.#singles(this.#waiting);
    }
  }

  #sawEveryPage(waiter: Waiter<R>, lastIndex: number): boolean {
    for (let i = 0; i <= lastIndex; i++) if (!waiter.seen.has(i)) return false;
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
