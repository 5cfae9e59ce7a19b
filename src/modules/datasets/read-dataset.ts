import { badRequest } from '../../platform/errors.ts';
import { checkVersion, requireDataset, WHOLE_READ_MAX_BYTES, type DatasetDeps, type Scope } from './context.ts';
import { pagination, presentDataset, presentListItem, presentVersion, withRecordsJson, withRecordsText } from './presenters.ts';
import * as store from './store.ts';
import type { DatasetRow, RecordRow } from './store.ts';

/** Rows per statement when a dataset is walked whole (reads, exports, rewrites). */
export const WALK_BATCH = 1_000;

export async function listDatasets(deps: DatasetDeps, scope: Scope, page: number, limit: number) {
  const { rows, total } = await store.listLive(deps.db.orm, scope.projectId, (page - 1) * limit, limit);
  return { data: rows.map((r) => presentListItem(r, scope.linkBase)), pagination: pagination(page, limit, total) };
}

/**
 * The dataset with every record, oldest first, as of `version` (default: now), as JSON text. Read in
 * batches as of one version, so concurrent writes never tear it; more than 25 MB of records
 * answers 400 dataset_too_large once that much has been read.
 */
export async function getDatasetWithRecords(deps: DatasetDeps, scope: Scope, slugOrId: string, version?: number) {
  const d = await requireDataset(deps.db.orm, scope, slugOrId);
  const asOf = checkVersion(d, version) ?? d.version;
  const records: RecordRow[] = [];
  let bytes = 0;
  for (let after = -1; ; ) {
    const batch = await store.recordsAfter(deps.db.orm, d.id, asOf, after, WALK_BATCH);
    for (const r of batch) {
      bytes += Buffer.byteLength(r.entryJson);
      if (bytes > WHOLE_READ_MAX_BYTES) {
        throw badRequest(
          'dataset_too_large',
          `dataset "${d.slug}" holds more than ${WHOLE_READ_MAX_BYTES} bytes of records: read it page by page (GET /api/dataset/${d.slug}/records?page=1&limit=1000)`,
        );
      }
      records.push(r);
    }
    if (batch.length < WALK_BATCH) break;
    after = batch[batch.length - 1].position;
  }
  return withRecordsJson(presentDataset(d, scope.linkBase), records);
}

/**
 * Where each page starts, per dataset version (a version names one set of records, so an entry
 * never goes stale; a newer version is another key). Reading page after page of a big dataset
 * then costs one walk of its index instead of an ever longer OFFSET per page.
 */
const PAGE_STARTS = new Map<string, number[]>();
const PAGE_STARTS_KEPT = 64;
/** Offsets below this are walked by OFFSET: cheaper than computing every page's start. */
const OFFSET_WALK_MAX = 5_000;

async function pageStart(deps: DatasetDeps, d: DatasetRow, asOf: number | null, page: number, limit: number): Promise<number | null> {
  const key = `${d.id}:${d.version}:${asOf ?? 'now'}:${limit}`;
  let starts = PAGE_STARTS.get(key);
  if (!starts) {
    starts = await store.pageStarts(deps.db.orm, d.id, asOf, limit);
    if (PAGE_STARTS.size >= PAGE_STARTS_KEPT) PAGE_STARTS.delete(PAGE_STARTS.keys().next().value!);
    PAGE_STARTS.set(key, starts);
  } else {
    // Most recently used last.
    PAGE_STARTS.delete(key);
    PAGE_STARTS.set(key, starts);
  }
  return starts[page - 1] ?? null;
}

/** A page of records as JSON text ({data, pagination}). */
export async function listRecords(deps: DatasetDeps, scope: Scope, slugOrId: string, q: { page: number; limit: number; version?: number; q?: string }) {
  const d = await requireDataset(deps.db.orm, scope, slugOrId);
  const asOf = checkVersion(d, q.version);
  const needle = q.q?.trim();
  if (needle) {
    const found = await store.searchRecordsText(deps.db.orm, d.id, asOf, needle, (q.page - 1) * q.limit, q.limit);
    return withRecordsText({}, found.page, { pagination: pagination(q.page, q.limit, found.total) });
  }
  const total = asOf === null ? d.recordCount : ((await store.versionRow(deps.db.orm, d.id, asOf))?.recordCount ?? 0);
  const offset = (q.page - 1) * q.limit;
  let page = '';
  if (offset < total) {
    if (offset <= OFFSET_WALK_MAX) page = await store.pageRecordsText(deps.db.orm, d.id, asOf, offset, q.limit);
    else {
      const from = await pageStart(deps, d, asOf, q.page, q.limit);
      if (from !== null) page = await store.pageFromText(deps.db.orm, d.id, asOf, from, q.limit);
    }
  }
  return withRecordsText({}, page, { pagination: pagination(q.page, q.limit, total) });
}

/** The column mapping last used to add traces to the dataset (null: none yet). */
export async function traceMapping(deps: DatasetDeps, scope: Scope, slugOrId: string) {
  const d = await requireDataset(deps.db.orm, scope, slugOrId);
  return { mapping: (d.traceMapping as Record<string, string> | null) ?? null };
}

export async function listVersions(deps: DatasetDeps, scope: Scope, slugOrId: string, page: number, limit: number) {
  const d = await requireDataset(deps.db.orm, scope, slugOrId);
  const rows = await store.listVersions(deps.db.orm, d.id, (page - 1) * limit, limit);
  return { currentVersion: d.version, data: rows.map(presentVersion), pagination: pagination(page, limit, d.version) };
}
