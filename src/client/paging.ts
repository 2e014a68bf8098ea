/**
 * Paging over the list operations. `resultsLength` counts the current page only (docs/decisions.md), so the
 * only end-of-list signal is a page shorter than the page size.
 */
import { DEFAULT_PAGE_SIZE } from "./constants";
import type { ListOptions, Page, SortField, SortOrder, WorkspaceRecord } from "./types";

/** List options with the defaults filled in. */
export interface ResolvedListOptions {
  limit: number;
  order: SortOrder;
  orderBy: SortField;
}

/** Fills the list defaults: `limit` 100, `order` ASC, `orderBy` createdAt. */
export function listDefaults(options: ListOptions = {}): ResolvedListOptions {
  return {
    limit: options.limit ?? DEFAULT_PAGE_SIZE,
    order: options.order ?? "ASC",
    orderBy: options.orderBy ?? "createdAt",
  };
}

/**
 * Yields every item of every page, fetching page 0, 1, … until a page is shorter than `limit`.
 * Pages are fetched lazily: a consumer that stops early (`break`) sends no further requests.
 */
export async function* allPages<T>(
  limit: number,
  fetchPage: (pageIndex: number) => Promise<Page<T>>,
): AsyncGenerator<T, void, undefined> {
  for (let pageIndex = 0; ; pageIndex++) {
    const page = await fetchPage(pageIndex);
    yield* page.results;
    if (page.results.length < limit) return;
  }
}

/** A workspace and its descendants, as a list may nest them under it. */
export function* flattenWorkspaces(record: WorkspaceRecord): Generator<WorkspaceRecord> {
  yield record;
  for (const child of record.children) yield* flattenWorkspaces(child);
}
