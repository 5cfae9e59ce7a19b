import * as z from 'zod/mini';
import { matching, oneOf, searchValidator, words } from './search.ts';
import type { SearchRequest } from '../api/types.ts';
import { filterCount, toSearchFilters, traceFilterUrl } from './trace-filters.ts';

/**
 * The traces list's filters as they live in the URL (`?q=refund&error=1&sort=cost`), so a
 * filtered view is a link. Every value is a string; lists are comma-separated.
 */
export type ListSort = 'time' | 'cost' | 'latency' | `score:${string}`;

/** The traces list's URL search (also the analytics page's): each field absent when it does not fit. */
export const listSearchSchema = z.object({
  q: words(),
  /** A preset (15m, 1h, 24h, 7d, 30d) or "custom" with from/to. */
  range: words(),
  from: words(),
  to: words(),
  /** The filters (lib/trace-filters.ts): user, thread, customer, labels, model, type, error, annotated, eval, evaluator, meta, score, topic. */
  ...traceFilterUrl,
  /** A column, or `score:<config id>` (a numeric or boolean score's mean) */
  sort: matching<ListSort>((v) => ['time', 'cost', 'latency'].includes(v) || /^score:.{1,128}$/.test(v)),
  dir: oneOf(['asc', 'desc']),
  /** The columns shown, in order (encodeColumns); absent: the default columns. */
  cols: words(),
  /** The saved view the list was opened from. */
  view: words(),
});
export type ListSearch = z.output<typeof listSearchSchema>;
/** The list's URL search read as its route reads it (router.tsx), and as index.html's early request does (early.ts). */
// Named, not inline: inferred inside createRoute beside loaderDeps, the type comes out empty.
export const readListSearch = searchValidator(listSearchSchema);

/** Columns in the URL: each one URI-encoded (a metadata key may hold a comma), comma-separated. */
export const encodeColumns = (columns: readonly string[]) => columns.map((c) => encodeURIComponent(c)).join(',');
export function decodeColumns(cols: string | undefined): string[] | null {
  if (!cols) return null;
  const out: string[] = [];
  for (const part of cols.split(',')) {
    try {
      const c = decodeURIComponent(part);
      if (c && !out.includes(c)) out.push(c);
    } catch {
      /* a mangled column is left out */
    }
  }
  return out.length ? out : null;
}

/** The part of the list's URL a saved view keeps as its search: everything but the columns and the view itself. */
export function viewSearchOf(s: ListSearch): Record<string, string> {
  const { cols: _c, view: _v, ...rest } = s;
  return Object.fromEntries(Object.entries(rest).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''));
}

export const RANGE_PRESETS: { value: string; label: string; ms: number }[] = [
  { value: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { value: '1h', label: 'Last hour', ms: 3_600_000 },
  { value: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { value: '30d', label: 'Last 30 days', ms: 30 * 86_400_000 },
];

/** The anchor the page will take for `search` (useRangeAnchor): a route's loader, and index.html's early request, ask for the page's data with the request the page then makes. */
export const rangeAnchor = (search: Pick<ListSearch, 'range' | 'from' | 'to'>): number => recentAnchor(anchorKey(search));
export const anchorKey = ({ range, from, to }: Pick<ListSearch, 'range' | 'from' | 'to'>) => JSON.stringify([range, from, to]);

/**
 * The anchor a page of the same range used a moment ago: Back from a trace reopens the
 * list with the same request (so its loaded pages, cached under it, come back at once).
 */
// On the window, not in the module: index.html's early request (early.ts, a bundle of its own
// with its own copy of this module) takes the anchor the app's loader and page then reuse.
const anchors: Map<string, number> = ((globalThis as { __spyglassAnchors?: Map<string, number> }).__spyglassAnchors ??= new Map<string, number>());
const ANCHOR_REUSE_MS = 10 * 60_000;
function recentAnchor(key: string): number {
  const now = Date.now();
  const last = anchors.get(key);
  if (last !== undefined && now - last < ANCHOR_REUSE_MS) return last;
  anchors.set(key, now);
  return now;
}

/**
 * The search request of the URL's filters. `now` anchors relative ranges (useRangeAnchor
 * keeps it fixed while the range stays the same, so the query key does not change every render).
 */
export function toSearchRequest(s: ListSearch, now: number): Omit<SearchRequest, 'pageSize' | 'scrollId'> {
  const filters = toSearchFilters(s);

  const req: Omit<SearchRequest, 'pageSize' | 'scrollId'> = {};
  if (s.q?.trim()) req.query = s.q.trim();
  const preset = RANGE_PRESETS.find((p) => p.value === s.range);
  if (preset) req.startDate = now - preset.ms;
  else if (s.range === 'custom') {
    const from = s.from ? Date.parse(s.from) : NaN;
    const to = s.to ? Date.parse(s.to) : NaN;
    if (!Number.isNaN(from)) req.startDate = from;
    if (!Number.isNaN(to)) req.endDate = to;
  }
  if (Object.keys(filters).length) req.filters = filters;
  if (s.sort?.startsWith('score:')) req.sortByScore = s.sort.slice('score:'.length);
  else if (s.sort && s.sort !== 'time') req.sortBy = s.sort as 'cost' | 'latency';
  if (s.dir) req.sortDirection = s.dir;
  return req;
}

/** Traces in a page of the list. */
export const TRACE_LIST_PAGE = 100;

/** The body of the list's first page (api/traces.ts traceListQuery): the page and index.html's early request make it here. */
export const firstPageBody = (request: Omit<SearchRequest, 'pageSize' | 'scrollId'>): SearchRequest => ({ ...request, pageSize: TRACE_LIST_PAGE });

/** Which traces a search selects (the server's TraceSearch): what imports, queues and the new-traces poll take. */
export type TraceSearch = Pick<SearchRequest, 'query' | 'startDate' | 'endDate' | 'filters'>;

/**
 * Which traces a search selects, without the order it lists them in: what the new-traces poll
 * and imports from a search take, whatever the list is sorted by (they refuse sort keys).
 */
export function searchConditions(req: Omit<SearchRequest, 'pageSize' | 'scrollId'>): TraceSearch {
  const { query, startDate, endDate, filters } = req;
  return { query, startDate, endDate, filters };
}

/** How many filters (beyond search and sort) are active, the time range among them. */
export const activeFilterCount = (s: ListSearch) => (s.range ? 1 : 0) + filterCount(s);

// The dashboards page reads a score filter's text through here.
export { formatScoreFilter } from './trace-filters.ts';
