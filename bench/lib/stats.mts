/** Small statistics helpers. */

/** The `p`-th percentile (0..100) of `values`, by nearest rank; NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? Number.NaN;
}

/** The median of `values`. */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Rounds to `digits` decimals, keeping results.json readable. */
export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/**
 * What a limit cost against the least it can cost: the time a run under it took beyond the same run
 * without it, over the least time its requests allow (requests ÷ the limit). Rounded.
 */
export function ratioBeyondUnlimited(
  seconds: number,
  unlimitedSeconds: number,
  floorSeconds: number,
): number {
  return round((seconds - unlimitedSeconds) / floorSeconds);
}

/**
 * Runs `task` for each of `items` with at most `concurrency` in flight, in order of `items`, and
 * resolves when all are done; the first failure rejects.
 */
export async function runConcurrently<T>(
  items: readonly T[],
  concurrency: number,
  task: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      await task(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
