import { bigint, index, integer, json, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';

// Mirrors migrations/0018_datasets.sql. Only src/modules/datasets/store.ts touches these tables.

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export interface DatasetColumn {
  name: string;
  type: string;
}

export const datasets = pgTable(
  'datasets',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    columnTypes: jsonb('column_types').$type<DatasetColumn[]>().notNull().default([]),
    version: integer('version').notNull().default(0),
    recordCount: integer('record_count').notNull().default(0),
    nextPosition: bigint('next_position', { mode: 'number' }).notNull().default(0),
    traceMapping: jsonb('trace_mapping').$type<Record<string, unknown>>(),
    archivedAt: ts('archived_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('datasets_live_slug').on(t.projectId, t.slug).where(sql`archived_at IS NULL`),
    index('datasets_live_created').on(t.projectId, t.createdAt, t.id).where(sql`archived_at IS NULL`),
  ],
);

export const datasetRecords = pgTable(
  'dataset_records',
  {
    datasetId: text('dataset_id').notNull(),
    id: text('id').notNull(),
    projectId: text('project_id').notNull(),
    position: bigint('position', { mode: 'number' }).notNull(),
    entry: json('entry').$type<Record<string, unknown>>().notNull(),
    versionAdded: integer('version_added').notNull(),
    versionRemoved: integer('version_removed'),
    traceId: text('trace_id'),
    spanId: text('span_id'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    index('dataset_records_order').on(t.datasetId, t.position),
    uniqueIndex('dataset_records_live_id').on(t.datasetId, t.id).where(sql`version_removed IS NULL`),
  ],
);

export const datasetVersions = pgTable(
  'dataset_versions',
  {
    datasetId: text('dataset_id').notNull(),
    version: integer('version').notNull(),
    change: text('change').notNull(),
    added: integer('added').notNull().default(0),
    updated: integer('updated').notNull().default(0),
    removed: integer('removed').notNull().default(0),
    recordCount: integer('record_count').notNull(),
    columnTypes: jsonb('column_types').$type<DatasetColumn[]>().notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.datasetId, t.version] })],
);

export const datasetImports = pgTable('dataset_imports', {
  id: text('id').primaryKey(),
  projectId: text('project_id').notNull(),
  datasetId: text('dataset_id').notNull(),
  status: text('status').notNull(),
  total: integer('total').notNull().default(0),
  done: integer('done').notNull().default(0),
  error: text('error'),
  request: jsonb('request').$type<Record<string, unknown>>().notNull(),
  createdAt: ts('created_at').notNull(),
  updatedAt: ts('updated_at').notNull(),
});
