import { and, desc, eq, isNull, sql, type SQL } from 'drizzle-orm';
import { containsPattern, rows, storableJson, textArray, type Executor } from '../../db/index.ts';
import { datasetImports, datasets, datasetVersions, type DatasetColumn } from '../../db/schema/datasets.ts';

// The only code that touches the datasets tables (migrations/0018_datasets.sql).

export type DatasetRow = typeof datasets.$inferSelect;
export type VersionRow = typeof datasetVersions.$inferSelect;
export type ImportRow = typeof datasetImports.$inferSelect;

export interface RecordRow {
  id: string;
  datasetId: string;
  projectId: string;
  position: number;
  /**
   * The entry as stored: JSON text (a json column keeps it verbatim, keys in their order).
   * Pages are answered with it spliced in, never parsed and written again.
   */
  entryJson: string;
  createdAt: Date;
  updatedAt: Date;
}

export const entryOf = (r: RecordRow) => JSON.parse(r.entryJson) as Record<string, unknown>;

export type NewRecord = NewRecordBase & ({ entry: Record<string, unknown> } | { /** The entry as JSON text (an upload's rows, written as JSON once already). */ entryJson: string });

interface NewRecordBase {
  id: string;
  /** Kept by an edit (the record stays where it was); null: the next free position. */
  position?: number | null;
  createdAt?: Date | null;
  traceId?: string | null;
  spanId?: string | null;
}

export { isUniqueViolation } from '../../db/index.ts';

const live = (projectId: string) => and(eq(datasets.projectId, projectId), isNull(datasets.archivedAt));

/** A live dataset of the project by id (it contains `_`) or by slug; null otherwise. */
export async function findLive(db: Executor, projectId: string, slugOrId: string, forUpdate = false): Promise<DatasetRow | null> {
  const key = slugOrId.includes('_') ? eq(datasets.id, slugOrId) : eq(datasets.slug, slugOrId);
  const q = db.select().from(datasets).where(and(live(projectId), key));
  const [row] = forUpdate ? await q.for('update') : await q;
  return row ?? null;
}

/** The name of a dataset of the project by id, archived or not (what an experiment that used it calls it). */
export async function nameById(db: Executor, projectId: string, id: string): Promise<string | null> {
  const [row] = await db.select({ name: datasets.name }).from(datasets).where(and(eq(datasets.projectId, projectId), eq(datasets.id, id)));
  return row?.name ?? null;
}

export async function slugHolder(db: Executor, projectId: string, slug: string): Promise<DatasetRow | null> {
  const [row] = await db.select().from(datasets).where(and(live(projectId), eq(datasets.slug, slug)));
  return row ?? null;
}

export async function listLive(db: Executor, projectId: string, offset: number, limit: number): Promise<{ rows: DatasetRow[]; total: number }> {
  const page = await db.select().from(datasets).where(live(projectId)).orderBy(desc(datasets.createdAt), desc(datasets.id)).offset(offset).limit(limit);
  const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(datasets).where(live(projectId));
  return { rows: page, total: Number(count?.n ?? 0) };
}

export async function insertDataset(db: Executor, row: typeof datasets.$inferInsert): Promise<DatasetRow> {
  const [created] = await db.insert(datasets).values(row).returning();
  return created;
}

export async function updateDataset(
  db: Executor,
  id: string,
  set: Partial<{ name: string; slug: string; columnTypes: DatasetColumn[]; updatedAt: Date; archivedAt: Date; traceMapping: Record<string, unknown> }>,
): Promise<DatasetRow> {
  const [row] = await db.update(datasets).set(set).where(eq(datasets.id, id)).returning();
  return row;
}

/**
 * Starts a new version of the dataset's records: numbers it, reserves `positions` positions
 * for new records, and locks the dataset row until the transaction ends (one writer at a time
 * per dataset, so versions are numbered in commit order).
 */
export async function beginVersion(db: Executor, datasetId: string, positions: number, now: Date): Promise<{ version: number; firstPosition: number }> {
  const [row] = await rows<{ version: number; first: string | number }>(
    db,
    sql`UPDATE datasets SET version = version + 1, next_position = next_position + ${positions}, updated_at = ${now}
        WHERE id = ${datasetId} RETURNING version, next_position - ${positions} AS first`,
  );
  return { version: Number(row.version), firstPosition: Number(row.first) };
}

/** Closes a version: the dataset's live count moves by added - removed, and the version is recorded. */
export async function endVersion(
  db: Executor,
  v: { datasetId: string; version: number; change: string; added: number; updated: number; removed: number; columnTypes: DatasetColumn[]; now: Date },
): Promise<number> {
  const [row] = await rows<{ record_count: number }>(
    db,
    sql`UPDATE datasets SET record_count = record_count + ${v.added - v.removed} WHERE id = ${v.datasetId} RETURNING record_count`,
  );
  const recordCount = Number(row.record_count);
  await db.insert(datasetVersions).values({
    datasetId: v.datasetId,
    version: v.version,
    change: v.change,
    added: v.added,
    updated: v.updated,
    removed: v.removed,
    recordCount,
    columnTypes: v.columnTypes,
    createdAt: v.now,
  });
  return recordCount;
}

/**
 * Adds records at `version`, in the order given: new ones take positions from `firstPosition`
 * on, edited ones keep theirs. One statement (one JSON parameter, written as text: each entry
 * is serialized once, for the parameter and the answer) per call.
 */
export async function insertRecords(
  db: Executor,
  d: { datasetId: string; projectId: string; version: number; firstPosition: number; now: Date },
  records: NewRecord[],
): Promise<RecordRow[]> {
  if (!records.length) return [];
  let next = d.firstPosition;
  const now = d.now.toISOString();
  const added = new Array<RecordRow>(records.length);
  const values = new Array<string>(records.length);
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    const entryJson = 'entryJson' in r ? r.entryJson : JSON.stringify(r.entry);
    const position = r.position ?? next++;
    const createdAt = r.createdAt ?? d.now;
    const created = r.createdAt ? createdAt.toISOString() : now;
    values[i] = `{"id":${JSON.stringify(r.id)},"position":${position},"entry":${entryJson},"created_at":"${created}","trace_id":${JSON.stringify(r.traceId ?? null)},"span_id":${JSON.stringify(r.spanId ?? null)}}`;
    added[i] = { id: r.id, datasetId: d.datasetId, projectId: d.projectId, position, entryJson, createdAt, updatedAt: d.now };
  }
  await db.execute(sql`
    INSERT INTO dataset_records (dataset_id, id, project_id, position, entry, version_added, trace_id, span_id, created_at, updated_at)
    SELECT ${d.datasetId}, x.id, ${d.projectId}, x.position, x.entry, ${d.version}, x.trace_id, x.span_id, x.created_at, ${d.now}
    FROM json_to_recordset(${storableJson(`[${values.join(',')}]`)}::json) AS x(id text, position bigint, entry json, trace_id text, span_id text, created_at timestamptz)`);
  return added;
}

/** Ends the live rows of these record ids at `version`; answers what they were. */
export async function endRecords(db: Executor, datasetId: string, ids: readonly string[], version: number): Promise<{ id: string; position: number; createdAt: Date }[]> {
  if (!ids.length) return [];
  const ended = await rows<{ id: string; position: string | number; created_at: Date | string }>(
    db,
    sql`UPDATE dataset_records SET version_removed = ${version}
        WHERE dataset_id = ${datasetId} AND version_removed IS NULL AND id = ANY(${textArray(ids)})
        RETURNING id, position, created_at`,
  );
  return ended.map((r) => ({ id: r.id, position: Number(r.position), createdAt: new Date(r.created_at) }));
}

const asOf = (version: number | null) =>
  version === null
    ? sql`version_removed IS NULL`
    : sql`version_added <= ${version} AND (version_removed IS NULL OR version_removed > ${version})`;

interface RawRecord {
  id: string;
  dataset_id: string;
  project_id: string;
  position: string | number;
  entry: string;
  created_at: Date | string;
  updated_at: Date | string;
}

const toRecord = (r: RawRecord): RecordRow => ({
  id: r.id,
  datasetId: r.dataset_id,
  projectId: r.project_id,
  position: Number(r.position),
  entryJson: r.entry,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

// entry as text: neither driver parses it, and pages splice it into their answer as it is.
const RECORD_COLUMNS = sql`id, dataset_id, project_id, position, entry::text AS entry, created_at, updated_at`;

/**
 * A record in its API shape as JSON text, written by the database: presenters.recordJson, key
 * for key. A page of 1,000 records is then one text value from the driver instead of 7,000
 * cells (on PGlite, decoding and handing over the cells cost more than the query itself).
 */
const RECORD_JSON = sql.raw(
  `'{"id":' || to_json(r.id)::text || ',"datasetId":' || to_json(r.dataset_id)::text || ',"projectId":' || to_json(r.project_id)::text ||
   ',"entry":' || r.entry::text ||
   ',"createdAt":"' || to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') ||
   '","updatedAt":"' || to_char(r.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"}'`,
);

/** The records a query selects (`r`, ordered by position), as their JSON texts joined by commas. */
async function recordsText(db: Executor, selected: SQL): Promise<string> {
  const [found] = await rows<{ page: string | null }>(db, sql`SELECT string_agg(${RECORD_JSON}, ',' ORDER BY r.position) AS page FROM (${selected}) r`);
  return found?.page ?? '';
}

/** One page of the dataset's records (now, or as of `version`), oldest first, as JSON texts joined by commas. */
export function pageRecordsText(db: Executor, datasetId: string, version: number | null, offset: number, limit: number): Promise<string> {
  return recordsText(
    db,
    sql`SELECT * FROM dataset_records WHERE dataset_id = ${datasetId} AND ${asOf(version)} ORDER BY position OFFSET ${offset} LIMIT ${limit}`,
  );
}

/** A page of the records (now, or as of `version`) whose entry's JSON text contains `text` (any case), as JSON texts, with their count. */
export async function searchRecordsText(db: Executor, datasetId: string, version: number | null, text: string, offset: number, limit: number): Promise<{ page: string; total: number }> {
  const match = sql`dataset_id = ${datasetId} AND ${asOf(version)} AND entry::text ILIKE ${containsPattern(text)}`;
  const page = await recordsText(db, sql`SELECT * FROM dataset_records WHERE ${match} ORDER BY position OFFSET ${offset} LIMIT ${limit}`);
  const [count] = await rows<{ n: string | number }>(db, sql`SELECT count(*) AS n FROM dataset_records WHERE ${match}`);
  return { page, total: Number(count?.n ?? 0) };
}

/**
 * The position each page of `limit` records starts at (now, or as of `version`): one walk of
 * the dataset's index, so that deep pages are read from a position instead of walking an
 * OFFSET each time.
 */
export async function pageStarts(db: Executor, datasetId: string, version: number | null, limit: number): Promise<number[]> {
  const found = await rows<{ position: string | number }>(
    db,
    sql`SELECT position FROM (
          SELECT position, row_number() OVER (ORDER BY position) - 1 AS n FROM dataset_records
          WHERE dataset_id = ${datasetId} AND ${asOf(version)}
        ) x WHERE n % ${limit} = 0 ORDER BY position`,
  );
  return found.map((r) => Number(r.position));
}

/** One page from a position on (see pageStarts), as JSON texts joined by commas. */
export function pageFromText(db: Executor, datasetId: string, version: number | null, fromPosition: number, limit: number): Promise<string> {
  return recordsText(
    db,
    sql`SELECT * FROM dataset_records WHERE dataset_id = ${datasetId} AND ${asOf(version)} AND position >= ${fromPosition} ORDER BY position LIMIT ${limit}`,
  );
}

/**
 * Fresh planner statistics for the records, after a write of many rows: without them a
 * dataset just written is taken for a few rows, and its pages are read by sorting the whole
 * dataset (1-2 s a page at 100,000 rows) instead of walking the position index (a few ms).
 * PostgreSQL's autovacuum comes to it later; PGlite has none.
 */
export async function refreshStatistics(db: Executor): Promise<void> {
  await db.execute(sql`ANALYZE dataset_records`);
}

/** Records after `afterPosition` in order (keyset): whole reads, exports and rewrites walk with it. */
export async function recordsAfter(db: Executor, datasetId: string, version: number | null, afterPosition: number, limit: number): Promise<RecordRow[]> {
  const found = await rows<RawRecord>(
    db,
    sql`SELECT ${RECORD_COLUMNS} FROM dataset_records
        WHERE dataset_id = ${datasetId} AND ${asOf(version)} AND position > ${afterPosition}
        ORDER BY position LIMIT ${limit}`,
  );
  return found.map(toRecord);
}

export async function liveRecord(db: Executor, datasetId: string, id: string): Promise<RecordRow | null> {
  const [found] = await rows<RawRecord>(
    db,
    sql`SELECT ${RECORD_COLUMNS} FROM dataset_records WHERE dataset_id = ${datasetId} AND version_removed IS NULL AND id = ${id}`,
  );
  return found ? toRecord(found) : null;
}

/** One version's row (its record count and columns); version 0 has none. */
export async function versionRow(db: Executor, datasetId: string, version: number): Promise<VersionRow | null> {
  const [row] = await db
    .select()
    .from(datasetVersions)
    .where(and(eq(datasetVersions.datasetId, datasetId), eq(datasetVersions.version, version)));
  return row ?? null;
}

export async function listVersions(db: Executor, datasetId: string, offset: number, limit: number): Promise<VersionRow[]> {
  return db
    .select()
    .from(datasetVersions)
    .where(eq(datasetVersions.datasetId, datasetId))
    .orderBy(desc(datasetVersions.version))
    .offset(offset)
    .limit(limit);
}

/**
 * A deleted project's records (its datasets and versions go by their foreign keys, before
 * this runs). A scan of the table: deleting a project is rare, an index on every row is not free.
 */
export async function deleteProjectRecords(db: Executor, projectId: string): Promise<void> {
  await db.execute(sql`DELETE FROM dataset_records WHERE project_id = ${projectId}`);
}

export async function insertImport(db: Executor, row: typeof datasetImports.$inferInsert): Promise<void> {
  await db.insert(datasetImports).values(row);
}

export async function findImport(db: Executor, projectId: string, datasetId: string, id: string): Promise<ImportRow | null> {
  const [row] = await db
    .select()
    .from(datasetImports)
    .where(and(eq(datasetImports.id, id), eq(datasetImports.projectId, projectId), eq(datasetImports.datasetId, datasetId)));
  return row ?? null;
}

export async function importById(db: Executor, id: string): Promise<ImportRow | null> {
  const [row] = await db.select().from(datasetImports).where(eq(datasetImports.id, id));
  return row ?? null;
}

export async function updateImport(db: Executor, id: string, set: Partial<Pick<ImportRow, 'status' | 'total' | 'done' | 'error' | 'updatedAt'>>): Promise<void> {
  await db.update(datasetImports).set(set).where(eq(datasetImports.id, id));
}
