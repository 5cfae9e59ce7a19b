import type { z } from 'zod';
import type {
  Column,
  datasetListItemSchema,
  datasetSchema,
  recordSchema,
  uploadCreatedSchema,
  versionSchema,
} from './schemas.ts';
import { entryOf, type DatasetRow, type RecordRow, type VersionRow } from './store.ts';

/** Where links to the web app point: SPYGLASS_PUBLIC_URL, else the origin the request came to. */
export type LinkBase = string;

export function presentDataset(row: DatasetRow, base: LinkBase): z.output<typeof datasetSchema> {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    columnTypes: row.columnTypes as Column[],
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    platformUrl: `${base}/p/${encodeURIComponent(row.projectId)}/datasets/${encodeURIComponent(row.id)}`,
  };
}

export function presentListItem(row: DatasetRow, base: LinkBase): z.output<typeof datasetListItemSchema> {
  return { ...presentDataset(row, base), recordCount: row.recordCount };
}

export function presentRecord(r: RecordRow): z.output<typeof recordSchema> {
  return {
    id: r.id,
    datasetId: r.datasetId,
    projectId: r.projectId,
    entry: entryOf(r),
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/** The dataset an upload created, flat as the SDKs read it: the dataset without its link, and the rows stored. */
export function presentUploadCreated(row: DatasetRow, recordsCreated: number): z.output<typeof uploadCreatedSchema> {
  const { platformUrl: _link, ...dataset } = presentDataset(row, '');
  return { ...dataset, recordsCreated };
}

export function presentVersion(v: VersionRow): z.output<typeof versionSchema> {
  return {
    version: v.version,
    createdAt: v.createdAt.toISOString(),
    change: v.change as z.output<typeof versionSchema>['change'],
    added: v.added,
    updated: v.updated,
    removed: v.removed,
    recordCount: v.recordCount,
  };
}

export function pagination(page: number, limit: number, total: number) {
  return { page, limit, total, totalPages: Math.ceil(total / limit) };
}

/**
 * JSON.stringify(presentRecord(r)), without parsing the stored entry and writing it again:
 * the whole-dataset read answers thousands of these at once (pages have the database write
 * the same text: store.ts RECORD_JSON).
 */
export function recordJson(r: RecordRow): string {
  return `{"id":${JSON.stringify(r.id)},"datasetId":${JSON.stringify(r.datasetId)},"projectId":${JSON.stringify(r.projectId)},"entry":${r.entryJson},"createdAt":"${r.createdAt.toISOString()}","updatedAt":"${r.updatedAt.toISOString()}"}`;
}

/** An answer whose `data` is records as JSON text: `{...head, "data": [records]}` (+ `tail` fields). */
export function withRecordsJson(head: Record<string, unknown>, records: RecordRow[], tail: Record<string, unknown> = {}): string {
  return withRecordsText(head, records.map(recordJson).join(','), tail);
}

/** The same with the records' JSON texts joined by commas already (store.pageRecordsText). */
export function withRecordsText(head: Record<string, unknown>, records: string, tail: Record<string, unknown> = {}): string {
  const opening = Object.keys(head).length ? `${JSON.stringify(head).slice(0, -1)},` : '{';
  const closing = Object.keys(tail).length ? `,${JSON.stringify(tail).slice(1)}` : '}';
  return `${opening}"data":[${records}]${closing}`;
}
