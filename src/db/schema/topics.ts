import { bigint, customType, integer, pgTable, primaryKey, real, text } from 'drizzle-orm/pg-core';

/** float32 vectors as bytes (4 per dimension, little-endian): a tenth of `real[]`'s text form to read. */
const vector = customType<{ data: Float32Array; driverData: Uint8Array | Buffer }>({
  dataType: () => 'bytea',
  toDriver: (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength),
  fromDriver: (b) => {
    const bytes = new Uint8Array(b);
    return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  },
});

/** The topics module's tables. Mirror migrations/0052_topics.sql and 0056_topics_watermark.sql; only topics/store.ts touches them. */
export const topicSettings = pgTable('topic_settings', {
  projectId: text('project_id').primaryKey(),
  organizationId: text('organization_id').notNull(),
  embeddingsModel: text('embeddings_model'),
  namingModel: text('naming_model'),
  reclusterHours: integer('recluster_hours').notNull().default(24),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  builtAt: bigint('built_at', { mode: 'number' }),
  builtTraces: integer('built_traces'),
  buildRequestedAt: bigint('build_requested_at', { mode: 'number' }),
  buildClaimedUntil: bigint('build_claimed_until', { mode: 'number' }),
  lastError: text('last_error'),
  lastErrorAt: bigint('last_error_at', { mode: 'number' }),
  /** 0056: the first-ingested time (traces.inserted_at) of the last trace a round embedded. */
  embeddedThrough: bigint('embedded_through', { mode: 'number' }),
});

export const topics = pgTable(
  'topics',
  {
    projectId: text('project_id').notNull(),
    topicId: text('topic_id').notNull(),
    name: text('name').notNull(),
    keywords: text('keywords').array().notNull().default([]),
    centroid: vector('centroid').notNull(),
    size: integer('size').notNull(),
    builtAt: bigint('built_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.topicId] })],
);

export const traceTopics = pgTable(
  'trace_topics',
  {
    projectId: text('project_id').notNull(),
    traceId: text('trace_id').notNull(),
    embedding: vector('embedding'),
    topicId: text('topic_id'),
    similarity: real('similarity'),
    startedAt: bigint('started_at', { mode: 'number' }).notNull(),
    embeddedAt: bigint('embedded_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.traceId] })],
);
