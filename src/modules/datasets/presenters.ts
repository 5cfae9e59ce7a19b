import type { z } from 'zod';
import type {
  Column,
  datasetListItemSchema,
  datasetSchema,
  recordSchema,
  uploadCreatedSchema,
  versionSchema,
} from './schemas.ts';
import type { DatasetRow, RecordRow, VersionRow } from './store.ts';

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
    entry: r.entry,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export function presentUploadCreated(row: DatasetRow, recordsCreated: number): z.output<typeof uploadCreatedSchema> {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    columnTypes: row.columnTypes as Column[],
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    recordsCreated,
  };
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
