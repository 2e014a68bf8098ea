/**
 * Peak memory of a running process and of its process tree, read from Linux's /proc while it runs
 * (a process's own peak, `VmHWM`, is exact; the tree's is the largest sum of `VmRSS` seen at one
 * sample, so a short spike between samples can be missed). Elsewhere it reports nothing.
 */
import * as fs from "node:fs";

/** How often the tree is sampled: often enough for commands that run for seconds. */
export const SAMPLE_MS = 200;

/** Peak resident memory, in MiB. */
export interface PeakMemory {
  /** The process's own peak (`VmHWM`). */
  processMiB: number;
  /** The process and all its descendants (for the CLI: the language host and provider processes). */
  treeMiB: number;
}

function statusKiB(pid: number, field: "VmHWM" | "VmRSS"): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "mu").exec(status);
    return match ? Number(match[1]) : 0;
  } catch {
    // The process is gone (or this is not Linux).
    return 0;
  }
}

/** Parent pid of every process, from /proc/<pid>/stat (the field after the parenthesised name). */
function parents(): Map<number, number> {
  const result = new Map<number, number>();
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return result;
  }
  for (const entry of entries) {
    if (!/^\d+$/u.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      result.set(Number(entry), ppid);
    } catch {
      // Exited between the listing and the read.
    }
  }
  return result;
}

function descendants(root: number): number[] {
  const byParent = new Map<number, number[]>();
  for (const [pid, ppid] of parents()) byParent.set(ppid, [...(byParent.get(ppid) ?? []), pid]);
  const found: number[] = [];
  const queue = [root];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    found.push(pid);
    queue.push(...(byParent.get(pid) ?? []));
  }
  return found;
}

/** Samples a process tree until {@link stop}; start it with the root's pid as soon as it is known. */
export class PeakMemorySampler {
  #pid: number | undefined;
  #processKiB = 0;
  #treeKiB = 0;
  #timer: NodeJS.Timeout | undefined;

  /** Starts sampling `pid` and its descendants. */
  start(pid: number): void {
    this.#pid = pid;
    this.#sample();
    this.#timer = setInterval(() => {
      this.#sample();
    }, SAMPLE_MS);
  }

  /** Stops sampling and returns the peaks (zeros when nothing could be read). */
  stop(): PeakMemory {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    const mib = (kib: number): number => Math.round(kib / 1024);
    return { processMiB: mib(this.#processKiB), treeMiB: mib(this.#treeKiB) };
  }

  #sample(): void {
    if (this.#pid === undefined) return;
    this.#processKiB = Math.max(this.#processKiB, statusKiB(this.#pid, "VmHWM"));
    const tree = descendants(this.#pid).reduce((sum, pid) => sum + statusKiB(pid, "VmRSS"), 0);
    this.#treeKiB = Math.max(this.#treeKiB, tree);
  }
}
