import type { Database, Executor } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { AppError, badRequest } from '../../platform/errors.ts';
import { emitEvent } from '../../platform/events/index.ts';
import { presentDataset } from './presenters.ts';
import type { Column } from './schemas.ts';
import * as store from './store.ts';
import type { DatasetRow, NewRecord, RecordRow } from './store.ts';

/** What the use cases need: handed in by app.ts. */
export interface DatasetDeps {
  db: Database;
  clock: Clock;
  limits: DatasetLimits;
  /** Privacy at ingest (the privacy module): the project's redaction of incoming values. */
  redactor?: (projectId: string, path: string) => Promise<EntryRedactor>;
}

/** What datasets use of a project's redaction. */
export interface EntryRedactor {
  readonly active: boolean;
  value<T>(value: T, field: string): T;
  /** Ends one record: what was found is counted in /metrics. */
  take(): unknown;
}

/**
 * Each record's entry as the project's privacy settings store it (every column's value
 * redacted, counted under the column's name), applied before a record is written anywhere:
 * uploads before their rows are spooled to a file.
 */
export async function entryRedaction(deps: DatasetDeps, projectId: string): Promise<(entry: Record<string, unknown>) => Record<string, unknown>> {
  const r = await deps.redactor?.(projectId, 'datasets');
  if (!r?.active) return (entry) => entry;
  return (entry) => {
    const out = Object.fromEntries(Object.entries(entry).map(([column, v]) => [column, r.value(v, column)]));
    r.take();
    return out;
  };
}

export interface DatasetLimits {
  /** Bytes of one uploaded file (SPYGLASS_DATASET_UPLOAD_MAX_BYTES; the spec's 25 MiB by default). */
  uploadMaxBytes: number;
  /** Data rows of one uploaded file (SPYGLASS_DATASET_UPLOAD_MAX_ROWS; the spec's 10,000 by default). */
  uploadMaxRows: number;
}

/** Bytes of records a whole-dataset read answers at most (spec: 25 MB); beyond, read page by page. */
export const WHOLE_READ_MAX_BYTES = 25_000_000;

/** Records written at once from which the planner statistics are refreshed (store.refreshStatistics). */
const STATISTICS_AFTER_ROWS = 10_000;

/** After a write of `added` records has committed: fresh statistics when it was a big one. */
export async function afterBulkWrite(db: Executor, added: number): Promise<void> {
  if (added >= STATISTICS_AFTER_ROWS) await store.refreshStatistics(db);
}

/** Who acts, where: the project of the request, its organization (events), the base of links. */
export interface Scope {
  projectId: string;
  organizationId: string;
  linkBase: string;
}

export const datasetNotFound = (slugOrId: string) =>
  new AppError(404, 'dataset_not_found', `no dataset "${slugOrId}" in this project`, { field: 'slugOrId' });

export async function requireDataset(ex: Executor, scope: Scope, slugOrId: string, forUpdate = false): Promise<DatasetRow> {
  const row = await store.findLive(ex, scope.projectId, slugOrId, forUpdate);
  if (!row) throw datasetNotFound(slugOrId);
  return row;
}

/** A version that exists for this dataset (0..current); null: now. */
export function checkVersion(d: DatasetRow, version: number | undefined): number | null {
  if (version === undefined) return null;
  if (version > d.version) {
    throw badRequest('validation_error', `version: dataset "${d.slug}" has versions 0..${d.version}`, 'query.version');
  }
  return version;
}

export function emitDatasetEvent(
  tx: Executor,
  scope: Scope,
  type: 'dataset.created' | 'dataset.updated' | 'dataset.deleted',
  d: DatasetRow,
  now: Date,
  extra: Record<string, unknown> = {},
) {
  return emitEvent(tx, { organizationId: scope.organizationId, projectId: scope.projectId, type, data: { dataset: presentDataset(d, scope.linkBase), ...extra } }, now);
}

export type Change = 'records_added' | 'record_updated' | 'records_deleted' | 'columns_changed' | 'file_uploaded' | 'from_traces';

/**
 * One new version of a dataset's records, inside the caller's transaction: `end` are record
 * ids whose live rows leave at this version; `add` are rows that enter (an id also in `end`
 * is an edit: it keeps its position and creation time). Answers the rows added and the ids
 * that were really ended. Emits dataset.updated with the version.
 */
export async function writeVersion(
  tx: Executor,
  scope: Scope,
  d: DatasetRow,
  change: Change,
  ops: { end?: readonly string[]; add?: NewRecord[]; columnTypes?: Column[] },
  now: Date,
): Promise<{ version: number; added: RecordRow[]; ended: string[] }> {
  const newOnes = (ops.add ?? []).filter((r) => r.position == null).length;
  const { version, firstPosition } = await store.beginVersion(tx, d.id, newOnes, now);
  const ended = await store.endRecords(tx, d.id, ops.end ?? [], version);
  const kept = new Map(ended.map((e) => [e.id, e]));
  const add = (ops.add ?? []).map((r) => {
    const was = kept.get(r.id);
    return was ? { ...r, position: was.position, createdAt: was.createdAt } : r;
  });
  const added = await store.insertRecords(tx, { datasetId: d.id, projectId: scope.projectId, version, firstPosition, now }, add);
  const updated = add.filter((r) => kept.has(r.id)).length;
  const counts = { added: added.length - updated, updated, removed: ended.length - updated };
  const columnTypes = ops.columnTypes ?? (d.columnTypes as Column[]);
  const recordCount = await store.endVersion(tx, { datasetId: d.id, version, change, ...counts, columnTypes, now });
  await emitDatasetEvent(tx, scope, 'dataset.updated', { ...d, columnTypes, version, updatedAt: now }, now, { version, change, ...counts, recordCount });
  return { version, added, ended: ended.map((e) => e.id) };
}
