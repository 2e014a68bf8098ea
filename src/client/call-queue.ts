/**
 * The client's calls and its connections: at most as many calls at once as its undici `Pool` has
 * connections, the others queued here, in order, before they take a slot of the rate limit. A slot
 * is taken only by a request that can be sent when it comes: queued in the pool instead, a hundred
 * creates made at once would all hold slots of "now" before the first 429 taught the pace, and each
 * would be refused.
 *
 * The read coalescer (`read-coalescer.ts`) reads it, and only through {@link CallQueue.whenFree} and
 * {@link CallQueue.free}: it decides when a call could go out, after the calls queued before it.
 */
export class CallQueue {
  /** How many calls the connections carry at once. */
  readonly connections: number;
  /** Calls holding a connection (sent, or waiting on the rate limit to be sent). */
  #inFlight = 0;
  /** Calls queued for a connection, in order. */
  readonly #queued: (() => void)[] = [];
  /** Who waits for a connection to be free with no call queued. */
  readonly #waitingForFree: (() => void)[] = [];

  constructor(connections: number) {
    this.connections = connections;
  }

  /** Runs `call` on a connection, after the calls queued before it. */
  async run<T>(call: () => Promise<T>): Promise<T> {
    await this.#take();
    try {
      return await call();
    } finally {
      this.#release();
    }
  }

  /** How many more calls the connections can carry now. */
  get free(): number {
    return this.connections - this.#inFlight;
  }

  /**
   * Resolves when a connection is free and no call is queued for one: a create's read-back waits
   * behind the `POST`s still queued, and the reads they answer join it.
   */
  whenFree(): Promise<void> {
    if (this.#inFlight < this.connections) return Promise.resolve();
    return new Promise((resolve) => this.#waitingForFree.push(resolve));
  }

  #take(): Promise<void> {
    if (this.#inFlight < this.connections) {
      this.#inFlight++;
      return Promise.resolve();
    }
    // Handed over by the call that ends (the count stays), so no newcomer can take it first.
    return new Promise((resolve) => this.#queued.push(resolve));
  }

  #release(): void {
    const next = this.#queued.shift();
    if (next !== undefined) {
      next();
      return;
    }
    this.#inFlight--;
    for (const wake of this.#waitingForFree.splice(0)) wake();
  }
}
