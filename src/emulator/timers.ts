/** Delays that a closing emulator can cut short, so `close()` never waits for a latency fault. */

/** Sleeps that end early, all at once, when the emulator closes. */
export class Timers {
  private readonly pending = new Map<NodeJS.Timeout, () => void>();
  private closedFlag = false;

  /** True once {@link cancelAll} ran: work after a delay should stop. */
  get closed(): boolean {
    return this.closedFlag;
  }

  sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.closedFlag) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(timer);
        resolve();
      }, ms);
      this.pending.set(timer, resolve);
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
