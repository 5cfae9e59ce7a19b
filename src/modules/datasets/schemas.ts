import { z } from 'zod';

// Request and response schemas of the datasets routes (docs/datasets.md; the contract is
// the spec's datasets-experiments.md). Plain zod, no server imports: the web app reads these.

export const COLUMN_TYPES = [
  'string',
  'boolean',
  'number',
  'date',
  'list',
  'json',
  'spans',
  'rag_contexts',
  'chat_messages',
  'annotations',
  'evaluations',
  'image',
] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

/** Columns of one dataset at most (an upload of more is refused naming the count). */
export const MAX_COLUMNS = 1_000;
export const MAX_NAME = 255;
export const MAX_RECORD_ID = 255;
export const MAX_BATCH = 1_000;

export const columnSchema = z.object({
  name: z.string().min(1, 'a column name is at least 1 character').max(MAX_NAME),
  type: z.enum(COLUMN_TYPES),
});
export type Column = z.infer<typeof columnSchema>;

export const columnTypesSchema = z
  .array(columnSchema)
  .max(MAX_COLUMNS, `at most ${MAX_COLUMNS} columns`)
  .superRefine((columns, ctx) => {
    const seen = new Set<string>();
    columns.forEach((c, i) => {
      if (seen.has(c.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `the column name "${c.name}" is used twice` });
      seen.add(c.name);
    });
  });

const isoString = z.string().describe('ISO 8601');
const entrySchema = z.record(z.string(), z.unknown()).describe('column name to any JSON value');

export const datasetSchema = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  columnTypes: z.array(columnSchema),
  createdAt: isoString,
  updatedAt: isoString,
  platformUrl: z.string().describe("the dataset's page in the web app"),
});
export const datasetListItemSchema = datasetSchema.extend({ recordCount: z.number().int() });

export const recordSchema = z.object({
  id: z.string(),
  datasetId: z.string(),
  projectId: z.string(),
  entry: entrySchema,
  createdAt: isoString,
  updatedAt: isoString,
});

export const paginationSchema = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
});

export const datasetListSchema = z.object({ data: z.array(datasetListItemSchema), pagination: paginationSchema });
export const datasetWithRecordsSchema = datasetSchema.extend({ data: z.array(recordSchema) });
export const recordPageSchema = z.object({ data: z.array(recordSchema), pagination: paginationSchema });
export const recordListSchema = z.object({ data: z.array(recordSchema) });
export const archivedSchema = z.object({ id: z.string(), archived: z.literal(true) });
export const deletedCountSchema = z.object({ deletedCount: z.number().int() });
export const entriesAddedSchema = z.object({ success: z.literal(true) });
export const uploadCreatedSchema = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  columnTypes: z.array(columnSchema),
  createdAt: isoString,
  updatedAt: isoString,
  recordsCreated: z.number().int(),
});
export const uploadAppendedSchema = z.object({ datasetId: z.string(), recordsCreated: z.number().int() });

export const versionSchema = z.object({
  version: z.number().int().describe('1, 2, ...: every change to the records makes one'),
  createdAt: isoString,
  change: z
    .enum(['records_added', 'record_updated', 'records_deleted', 'columns_changed', 'file_uploaded', 'from_traces'])
    .describe('what made the version'),
  added: z.number().int(),
  updated: z.number().int(),
  removed: z.number().int(),
  recordCount: z.number().int().describe('records as of this version'),
});
export const versionListSchema = z.object({ currentVersion: z.number().int(), data: z.array(versionSchema), pagination: paginationSchema });

// ---- requests

export const slugOrIdParams = z.object({
  slugOrId: z.string().min(1).max(MAX_NAME).describe('the dataset slug, or its id (ids contain `_`, slugs never do)'),
});
export const recordParams = slugOrIdParams.extend({
  recordId: z.string().min(1).max(MAX_RECORD_ID).describe('a record id (1..255 characters)'),
});

export const pageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1).describe('1 or more'),
  limit: z.coerce.number().int().min(1).max(1000).default(50).describe('1..1000'),
});
const versionParam = z.coerce
  .number()
  .int()
  .min(0)
  .optional()
  .describe('read the dataset as of this version (GET .../versions lists them); default: now');
export const recordsQuery = pageQuery.extend({
  version: versionParam,
  q: z.string().max(500).optional().describe('only records whose entry contains this text (any column, case-insensitive)'),
});
export const traceMappingAnswer = z.object({
  mapping: z.record(z.string(), z.string()).nullable().describe('dataset column -> trace source, as last used (null: none yet)'),
});
export const versionQuery = z.object({ version: versionParam });
export const exportQuery = z.object({
  format: z.enum(['csv', 'jsonl']).default('csv'),
  version: versionParam,
  cells: z
    .enum(['spreadsheet', 'exact'])
    .default('spreadsheet')
    .describe("CSV only. spreadsheet: text starting with = + - @, a tab or a carriage return gets a leading ' so a spreadsheet shows it instead of running it; exact: every value as stored, so the file uploads back unchanged"),
});

export const createDatasetBody = z.object({
  name: z.string().min(1).max(MAX_NAME),
  columnTypes: columnTypesSchema.default([]),
});
export const updateDatasetBody = z.object({
  name: z.string().min(1).max(MAX_NAME).optional(),
  columnTypes: columnTypesSchema.optional(),
});
export const addRecordsBody = z.object({
  entries: z.array(entrySchema).min(1, 'at least 1 entry').max(MAX_BATCH, `at most ${MAX_BATCH} entries per request`),
});
export const upsertRecordBody = z.object({ entry: entrySchema });
export const deleteRecordsBody = z.object({
  recordIds: z
    .array(z.string().min(1).max(MAX_RECORD_ID))
    .min(1, 'at least 1 record id')
    .max(MAX_BATCH, `at most ${MAX_BATCH} record ids per request`),
});

export type CreateDatasetBody = z.infer<typeof createDatasetBody>;
export type UpdateDatasetBody = z.infer<typeof updateDatasetBody>;
