/** Experiment and run listings: invalid values fall back to the defaults, pageSize is capped (never an error). */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export interface Paging {
  page: number;
  pageSize: number;
}

const positive = (value: string | undefined): number | null => (value !== undefined && /^\d+$/.test(value.trim()) && Number(value) > 0 ? Number(value) : null);

export function lenientPaging(query: { page?: string; pageSize?: string }): Paging {
  const page = positive(query.page) ?? 1;
  const pageSize = Math.min(positive(query.pageSize) ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  return { page: Math.min(page, 1_000_000), pageSize };
}

export function pagination(p: Paging, totalHits: number) {
  return { page: p.page, pageSize: p.pageSize, totalHits, hasMore: p.page * p.pageSize < totalHits };
}
