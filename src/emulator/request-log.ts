/** The request log the controls expose: what happened, never what was sent. */
import type { RequestLogEntry } from "./control-types";

/** Most entries kept: a long-running emulator must not grow without bound. */
export const MAX_LOG_ENTRIES = 10_000;

/** Records `/v1` requests in arrival order. */
export class RequestLog {
  private entries: RequestLogEntry[] = [];
  private lastSeq = 0;

  /** The next sequence number; taken when a request arrives. */
  nextSeq(): number {
    return ++this.lastSeq;
  }

  record(entry: RequestLogEntry): void {
    this.entries.push(entry);
    if (this.entries.length > MAX_LOG_ENTRIES) this.entries.shift();
  }

  /** All entries in arrival order (a request that waited on a latency fault may finish later). */
  list(): RequestLogEntry[] {
    return [...this.entries].sort((a, b) => a.seq - b.seq);
  }

  clear(): void {
    this.entries = [];
  }
}
