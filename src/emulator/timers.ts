/** Delays that a closing emulator can cut short, so `close()` never waits for a latency fault. */

/** Sleeps that end early, all at once, when the emulator closes. */
export class Timers {
  private readonly pending = new Map<NodeJS.Timeout, () => void>();
  private closedFlag = false;

  /** True once {@link cancelAll} ran: work after a delay should stop. */
  get closed(): boolean {
    return this.closedFlag;
  }

  /**
   * Resolves after `ms`, or at once when the emulator closes or `signal` aborts (a held request
   * whose client went away: nobody waits for it any more).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (ms <= 0 || this.closedFlag || signal?.aborted === true) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.pending.delete(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.pending.set(timer, done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  cancelAll(): void {
    this.closedFlag = true;
    for (const [timer, resolve] of this.pending) {
      clearTimeout(timer);
      resolve();
    }
    this.pending.clear();
  }
}
