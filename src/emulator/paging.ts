/** Sorting and paging of list results. */
import type { ListQuery } from "./validation";

/** The fields a list can be ordered by, plus the `id` tie-breaker. */
export interface Sortable {
  id: number;
  name: string;
  createdAt: string;
}

function compareText(a: string, b: string): number {
  // Code-unit order, not localeCompare: the result must not depend on the machine's locale.
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * One page of `items`, sorted by `query.orderBy` with `id` as tie-breaker in the same direction:
 * `items[pageIndex * limit, pageIndex * limit + limit)`.
 */
export function pageOf<T extends Sortable>(items: readonly T[], query: ListQuery): T[] {
  const direction = query.order === "asc" ? 1 : -1;
  const sorted = [...items].sort(
    (a, b) => direction * (compareText(a[query.orderBy], b[query.orderBy]) || a.id - b.id),
  );
  const start = query.pageIndex * query.limit;
  return sorted.slice(start, start + query.limit);
}
