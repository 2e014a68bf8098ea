/**
 * The read coalescer's decisions, over an in-memory list: which reads pages answer, when it sends
 * single reads instead, and how many requests each costs.
 */
import { describe, expect, it } from "vitest";

import {
  GATHER_MAX_MS,
  GATHER_QUIET_MS,
  PREFETCH_AFTER_READS,
  ReadCoalescer,
  type PagedList,
} from "../../src/client/read-coalescer";
import type { CallHooks } from "../../src/client/request";
import type { Page } from "../../src/client/types";

interface Item {
  id: number;
  version: number;
}

/** A list of `total` items (ids 1…total) with request counts, and a hook to hold a page in flight. */
class FakeList implements PagedList<Item> {
  readonly pageSize = 100;
  items: Item[];
  pages: number[] = [];
  singles = 0;
  failPages = false;
  /** When set, each page waits on it after its attempt is sent (the request is on the wire). */
  inFlight: ((pageIndex: number) => Promise<void>) | undefined;

  constructor(total: number) {
    this.items = Array.from({ length: total }, (_, i) => ({ id: i + 1, version: 0 }));
  }

  async page(pageIndex: number, hooks: CallHooks): Promise<Page<Item>> {
    this.pages.push(pageIndex);
    hooks.onAttempt?.();
    // What the server sends is what it holds when the request arrives.
    const results = this.items
      .slice(pageIndex * this.pageSize, (pageIndex + 1) * this.pageSize)
      .map((item) => ({ ...item }));
    await this.inFlight?.(pageIndex);
    if (this.failPages) throw new Error("page failed");
    return { resultsLength: results.length, results };
  }

  *records(page: Page<Item>): Iterable<Item> {
    yield* page.results;
  }

  /** Two identities per item, as a key has its id and its value: a write may name either. */
  identities(item: Item): string[] {
    return [`id:${item.id}`, `alt:${item.id}`];
  }

  single(id: number): Promise<Item | undefined> {
    this.singles++;
    const item = this.items.find((i) => i.id === id);
    return Promise.resolve(item === undefined ? undefined : { ...item });
  }
}

/** A fake clock: tests move it; no test reads the real one. */
const clock = { ms: 0 };

/** No pace, instant sleeps, and today's rule (S = 0) unless a test gives S. */
const UNPACED = {
  nextSlotInMs: () => 0,
  paced: () => false,
  calls: { whenFree: () => Promise.resolve(), free: 8, connections: 8 },
  sleep: () => Promise.resolve(),
  now: () => clock.ms,
  stalenessMs: 0,
};

function coalescerOf(list: FakeList): ReadCoalescer<Item> {
  return new ReadCoalescer(list, UNPACED);
}

const readAll = (c: ReadCoalescer<Item>, list: FakeList, ids: readonly number[]) =>
  Promise.all(ids.map((id) => c.read(`id:${id}`, () => list.single(id))));

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("read coalescer", () => {
  it("answers 1000 reads made together with the 10 pages of a 1000-item list (no 11th: nothing waits)", async () => {
    const list = new FakeList(1000);
    const c = coalescerOf(list);
    const found = await readAll(c, list, range(1, 1000));
    expect(found.map((i) => i?.id)).toEqual(range(1, 1000));
    expect(list.pages).toEqual(range(0, 9));
    expect(list.singles).toBe(0);
    expect(c.counts).toEqual({
      reads: 1000,
      fromPages: 1000,
      fromEarlierPages: 0,
      singles: 0,
      pages: 10,
      prefetched: 0,
    });
  });

  it("sends a lone read as a single read, with no page", async () => {
    const list = new FakeList(50);
    const c = coalescerOf(list);
    expect(await c.read("id:7", () => list.single(7))).toEqual({ id: 7, version: 0 });
    expect(list.pages).toEqual([]);
    expect(list.singles).toBe(1);
  });

  it("5 reads of the newest items of 2000: one probe page, then single reads (6 requests)", async () => {
    const list = new FakeList(2005);
    const c = coalescerOf(list);
    const found = await readAll(c, list, range(2001, 2005));
    expect(found.map((i) => i?.id)).toEqual(range(2001, 2005));
    expect(list.pages.length + list.singles).toBe(6);
  });

  it("once a walk has counted the list, reads too few to pay for it take single reads at once", async () => {
    const list = new FakeList(2000);
    const c = coalescerOf(list);
    // A refresh of everything: the walk's 20 pages show that the list holds at least 2000 items.
    await readAll(c, list, range(1, 2000));
    expect(list.pages).toHaveLength(20);
    list.pages = [];
    list.singles = 0;
    await readAll(c, list, [5, 900, 1999]);
    expect(list.pages).toEqual([]);
    expect(list.singles).toBe(3);
  });

  it("keeps walking past pages of other items while it has read allowance: 1000 reads behind 200 others", async () => {
    const list = new FakeList(1200);
    const c = coalescerOf(list);
    await readAll(c, list, range(201, 1200));
    expect(list.singles).toBe(0);
    expect(list.pages).toEqual(range(0, 11));
  });

  it("never answers 'not found' from pages: an item on no page takes its single read", async () => {
    const list = new FakeList(150);
    const c = coalescerOf(list);
    const missing = c.read("id:9999", () => list.single(9999));
    const present = c.read("id:3", () => list.single(3));
    expect(await missing).toBeUndefined();
    expect(await present).toEqual({ id: 3, version: 0 });
    expect(list.pages).toEqual([0]);
    expect(list.singles).toBe(1);
  });

  it("a page in flight does not answer a read that began after it was sent", async () => {
    const list = new FakeList(120);
    const c = coalescerOf(list);
    let release!: () => void;
    let sent!: () => void;
    const pageSent = new Promise<void>((resolve) => (sent = resolve));
    list.inFlight = (pageIndex) =>
      pageIndex === 0 && list.pages.length === 1
        ? new Promise<void>((resolve) => {
            release = resolve;
            sent();
          })
        : Promise.resolve();
    const early = readAll(c, list, [1, 2]);
    await pageSent;
    // Written after page 0 left: a read that begins now must see version 1.
    list.items[0] = { id: 1, version: 1 };
    const late = c.read("id:1", () => list.single(1));
    release();
    expect((await early).map((i) => i?.version)).toEqual([0, 0]);
    expect(await late).toEqual({ id: 1, version: 1 });
  });

  it("reads that come a few at a time (the engine's parallelism) each take one page, found where the walk saw them", async () => {
    const list = new FakeList(1000);
    const c = coalescerOf(list);
    // 8 reads in flight at a time, in the order of the list, as a refresh reads a stack.
    for (let first = 1; first <= 1000; first += 8) {
      const found = await readAll(c, list, range(first, Math.min(first + 7, 1000)));
      expect(found.every((item) => item !== undefined)).toBe(true);
    }
    expect(list.singles).toBe(0);
    // 125 batches; a batch across a page boundary takes a page on each side.
    expect(list.pages.length).toBeGreaterThanOrEqual(125);
    expect(list.pages.length).toBeLessThanOrEqual(125 + 10);
  });

  it("a read of a record that moved away from the page it was seen on is not answered 'not found' by that page", async () => {
    const list = new FakeList(250);
    const c = coalescerOf(list);
    await readAll(c, list, range(1, 250));
    // Items 1 and 2 are removed: every later item moves up two places, 101 and 102 onto page 0.
    list.items.splice(0, 2);
    list.pages = [];
    list.singles = 0;
    const found = await readAll(c, list, [101, 102, 150, 160]);
    expect(found.map((i) => i?.id)).toEqual([101, 102, 150, 160]);
    expect(found.every((item) => item?.version === 0)).toBe(true);
  });

  it("a failed page hands every waiting read to its single read", async () => {
    const list = new FakeList(300);
    list.failPages = true;
    const c = coalescerOf(list);
    const found = await readAll(c, list, [1, 2, 3]);
    expect(found.map((i) => i?.id)).toEqual([1, 2, 3]);
    expect(list.pages).toEqual([0]);
    expect(list.singles).toBe(3);
  });

  it("a single read's failure reaches its reader alone", async () => {
    const list = new FakeList(10);
    const c = coalescerOf(list);
    await expect(c.read("id:none", () => Promise.reject(new Error("404 for this one")))).rejects.toThrow(
      "404 for this one",
    );
  });

  it("waits for the rate limiter's next slot before it decides, so reads arriving meanwhile share a page", async () => {
    const list = new FakeList(100);
    const sleeps: number[] = [];
    let wake!: () => void;
    const c = new ReadCoalescer(list, {
      calls: { whenFree: () => Promise.resolve(), free: 8, connections: 8 },
      paced: () => true,
      nextSlotInMs: () => 250,
      now: () => clock.ms,
      stalenessMs: 0,
      sleep: (ms) => {
        sleeps.push(ms);
        return new Promise<void>((resolve) => (wake = resolve));
      },
    });
    const first = c.read("id:1", () => list.single(1));
    // Arrives while the first waits for the slot: decided together with it.
    await Promise.resolve();
    const second = c.read("id:2", () => list.single(2));
    wake();
    expect([(await first)?.id, (await second)?.id]).toEqual([1, 2]);
    expect(sleeps[0]).toBe(250);
    expect(list.pages).toEqual([0]);
    expect(list.singles).toBe(0);
  });

  describe("gathering reads that keep arriving", () => {
    /**
     * A coalescer whose gathering waits are steps of a script: each wait of GATHER_QUIET_MS starts
     * `arrive(step)` reads (the engine's reads still coming in), and records itself.
     */
    function arriving(list: FakeList, arrive: (step: number) => readonly number[]) {
      const waits: number[] = [];
      const reads: Promise<Item | undefined>[] = [];
      const c = new ReadCoalescer(list, {
        ...UNPACED,
        sleep: (ms) => {
          waits.push(ms);
          for (const id of arrive(waits.length)) reads.push(c.read(`id:${id}`, () => list.single(id)));
          return Promise.resolve();
        },
      });
      const start = (ids: readonly number[]) => {
        for (const id of ids) reads.push(c.read(`id:${id}`, () => list.single(id)));
      };
      return { c, waits, reads, start };
    }

    it("1000 reads arriving 100 per wait, in the list's order, take the list's 10 pages once each", async () => {
      const list = new FakeList(1000);
      const { waits, reads, start } = arriving(list, (step) =>
        step < 10 ? range(100 * step + 1, 100 * step + 100) : [],
      );
      start(range(1, 100));
      for (let turn = 0; turn < 1000 && reads.length < 1000; turn++) await new Promise(setImmediate);
      const found = await Promise.all(reads);
      expect(found.map((i) => i?.id)).toEqual(range(1, 1000));
      expect(list.pages).toEqual(range(0, 9));
      expect(list.singles).toBe(0);
      // 9 waits that saw reads begin, and one that saw none: then the reads are decided.
      expect(waits).toEqual(Array<number>(10).fill(GATHER_QUIET_MS));
    });

    it("holds nothing when no more reads wait than the connections carry (the default parallelism)", async () => {
      const list = new FakeList(100);
      const { waits, reads, start } = arriving(list, () => range(9, 16));
      start(range(1, 8));
      await Promise.all(reads);
      expect(waits).toEqual([]);
      expect(list.pages).toEqual([0]);
    });

    it("holds a batch of 16 once; later batches of that size are decided at once", async () => {
      const list = new FakeList(100);
      const { c, waits, reads, start } = arriving(list, () => []);
      start(range(1, 16));
      await Promise.all(reads);
      expect(waits).toEqual([GATHER_QUIET_MS]);
      start(range(17, 32));
      await Promise.all(reads);
      expect(waits).toEqual([GATHER_QUIET_MS]);
      expect(c.counts).toMatchObject({ reads: 32, fromPages: 32, pages: 2 });
    });

    it("holds again when more reads than the learned batch wait (that pause was not the batch's end)", async () => {
      const list = new FakeList(100);
      let more: number[] = [];
      const { waits, reads, start } = arriving(list, () => {
        const ids = more;
        more = [];
        return ids;
      });
      start(range(1, 16));
      await Promise.all(reads);
      expect(waits).toHaveLength(1);
      more = range(25, 40);
      start(range(17, 24));
      start(range(41, 49));
      for (let turn = 0; turn < 1000 && reads.length < 49; turn++) await new Promise(setImmediate);
      await Promise.all(reads);
      // 17 waiting (more than 16): held, 16 more arrive, held again until none do.
      expect(waits).toHaveLength(3);
      expect(list.pages).toEqual([0, 0]);
      expect(list.singles).toBe(0);
    });

    it("stops holding after GATHER_MAX_MS even while reads keep arriving", async () => {
      const list = new FakeList(100_000);
      let next = 21;
      const { waits, reads, start } = arriving(list, () => {
        const ids = range(next, next + 9);
        next += 10;
        return ids;
      });
      start(range(1, 20));
      while (list.pages.length === 0) await new Promise(setImmediate);
      expect(waits.reduce((a, b) => a + b, 0)).toBe(GATHER_MAX_MS);
      // The stream ends; every read begun is answered.
      next = Number.NaN;
      let settled = 0;
      while (settled < reads.length) {
        settled = reads.length;
        await Promise.all(reads);
      }
      expect(list.singles).toBe(0);
    });
  });

  describe("bounded staleness S", () => {
    const S = 2000;
    const within = (list: FakeList, stalenessMs = S) => new ReadCoalescer(list, { ...UNPACED, stalenessMs });
    /** Lets the coalescer's turns run (it waits a macrotask before each decision). */
    const settle = async () => {
      for (let turn = 0; turn < 20; turn++) await new Promise(setImmediate);
    };

    it("answers a read from a page sent at most S before the read began, without a request", async () => {
      clock.ms = 10_000;
      const list = new FakeList(150);
      const c = within(list);
      await readAll(c, list, [1, 2]);
      expect(list.pages).toEqual([0]);
      clock.ms += S;
      // Changed on the server since the page was sent: an answer S old may not show it.
      list.items[2] = { id: 3, version: 1 };
      expect(await c.read("id:3", () => list.single(3))).toEqual({ id: 3, version: 0 });
      expect(list.pages).toEqual([0]);
      expect(list.singles).toBe(0);
      expect(c.counts).toMatchObject({ fromPages: 3, fromEarlierPages: 1 });
    });

    it("does not answer a read from a page sent more than S before it began", async () => {
      clock.ms = 10_000;
      const list = new FakeList(150);
      const c = within(list);
      await readAll(c, list, [1, 2]);
      clock.ms += S + 1;
      list.items[2] = { id: 3, version: 1 };
      expect(await c.read("id:3", () => list.single(3))).toEqual({ id: 3, version: 1 });
      expect(list.singles).toBe(1);
    });

    it("with S = 0, answers only from pages sent after the read began (the rule before S)", async () => {
      clock.ms = 10_000;
      const list = new FakeList(150);
      const c = within(list, 0);
      await readAll(c, list, [1, 2]);
      list.items[2] = { id: 3, version: 1 };
      expect(await c.read("id:3", () => list.single(3))).toEqual({ id: 3, version: 1 });
      expect(list.singles).toBe(1);
      expect(c.counts.fromEarlierPages).toBe(0);
    });

    it("never answers from a page sent before the reader's own last answered write of that object, by any of its identities", async () => {
      clock.ms = 10_000;
      const list = new FakeList(150);
      const c = within(list);
      await readAll(c, list, [1, 2]);
      // The process writes items 3 and 4 (one named by id, one by its other identity) after page 0 left.
      list.items[2] = { id: 3, version: 1 };
      list.items[3] = { id: 4, version: 1 };
      c.wrote(["id:3"]);
      c.wrote(["alt:4"]);
      clock.ms += 10;
      expect(await c.read("id:3", () => list.single(3))).toEqual({ id: 3, version: 1 });
      expect(await c.read("id:4", () => list.single(4))).toEqual({ id: 4, version: 1 });
      // Another object of the same page, not written: still answered from the page.
      expect(await c.read("id:5", () => list.single(5))).toEqual({ id: 5, version: 0 });
      expect(list.singles).toBe(2);
    });

    it("a page sent after the reader's write answers the read-back again within S", async () => {
      clock.ms = 10_000;
      const list = new FakeList(150);
      const c = within(list);
      c.wrote(["id:3"]);
      list.items[2] = { id: 3, version: 1 };
      await readAll(c, list, [1, 2]);
      expect(await c.read("id:3", () => list.single(3))).toEqual({ id: 3, version: 1 });
      expect(list.singles).toBe(0);
    });

    it("a page in flight when a read began answers it when it arrives (sent within S before)", async () => {
      clock.ms = 10_000;
      const list = new FakeList(150);
      const c = within(list);
      let release!: () => void;
      let sent!: () => void;
      const pageSent = new Promise<void>((resolve) => (sent = resolve));
      list.inFlight = () =>
        new Promise<void>((resolve) => {
          release = resolve;
          sent();
        });
      const early = readAll(c, list, [1, 2]);
      await pageSent;
      clock.ms += 50;
      const late = c.read("id:3", () => list.single(3));
      release();
      expect((await early).map((i) => i?.id)).toEqual([1, 2]);
      expect(await late).toEqual({ id: 3, version: 0 });
      expect(list.pages).toEqual([0]);
      expect(list.singles).toBe(0);
    });

    it("reads made together still cost one page per hundred, and nothing is fetched ahead", async () => {
      clock.ms = 10_000;
      const list = new FakeList(1000);
      const c = within(list);
      await readAll(c, list, range(1, 1000));
      await settle();
      expect(list.pages).toEqual(range(0, 9));
      expect(c.counts.prefetched).toBe(0);
    });

    it("reads streaming in 8 at a time (the engine's default parallelism) cost one page per hundred, each fetched ahead", async () => {
      clock.ms = 10_000;
      const list = new FakeList(250);
      const c = within(list);
      for (let first = 1; first <= 250; first += 8) {
        const found = await readAll(c, list, range(first, Math.min(first + 7, 250)));
        expect(found.every((item) => item !== undefined)).toBe(true);
        await settle();
        clock.ms += 5;
      }
      expect(list.pages).toEqual([0, 1, 2]);
      expect(list.singles).toBe(0);
      // Pages 1 and 2 were fetched ahead, after PREFETCH_AFTER_READS reads of the page before:
      // every read but the first batch found its page already there.
      expect(c.counts.prefetched).toBe(2);
      expect(c.counts.fromEarlierPages).toBe(250 - 8);
      expect(PREFETCH_AFTER_READS).toBeLessThan(100);
    });

    it("the same stream with S = 0 costs a page per batch", async () => {
      clock.ms = 10_000;
      const list = new FakeList(250);
      const c = within(list, 0);
      for (let first = 1; first <= 250; first += 8) {
        await readAll(c, list, range(first, Math.min(first + 7, 250)));
        await settle();
      }
      expect(list.pages.length).toBeGreaterThanOrEqual(32);
      expect(c.counts.prefetched).toBe(0);
    });

    it("a few reads of a small stack on a shared page fetch nothing ahead", async () => {
      clock.ms = 10_000;
      const list = new FakeList(2000);
      const c = within(list);
      await readAll(c, list, [1, 2]);
      for (const id of range(3, 20)) await c.read(`id:${id}`, () => list.single(id));
      await settle();
      expect(list.pages).toEqual([0]);
      expect(c.counts.prefetched).toBe(0);
    });
  });
});
