/** The topics module's SQL: `topic_settings`, `topics`, `trace_topics` (migrations/0052_topics.sql). */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import { rows, textArray, type Executor } from '../../db/index.ts';
import { topicSettings, topics, traceTopics } from '../../db/schema/topics.ts';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import type { TraceInputsPick, TraceRowRef } from '../traces/index.ts';

export type SettingsRow = typeof topicSettings.$inferSelect;

export async function getSettings(db: Executor, projectId: string): Promise<SettingsRow | null> {
  const [row] = await db.select().from(topicSettings).where(eq(topicSettings.projectId, projectId));
  return row ?? null;
}

export async function saveSettings(
  db: Executor,
  scope: { organizationId: string; projectId: string },
  s: { embeddingsModel: string | null; namingModel: string | null; reclusterHours: number },
  now: number,
): Promise<void> {
  await db
    .insert(topicSettings)
    .values({ ...scope, ...s, updatedAt: now })
    // Another embeddings model (or topics turned on again) starts from the oldest stored trace not embedded.
    .onConflictDoUpdate({
      target: topicSettings.projectId,
      set: { ...s, updatedAt: now, embeddedThrough: sql`CASE WHEN ${topicSettings.embeddingsModel} IS NOT DISTINCT FROM ${s.embeddingsModel} THEN ${topicSettings.embeddedThrough} END` },
    });
}

/** The projects with topics on (an embeddings model set). */
export async function enabledProjects(db: Executor): Promise<SettingsRow[]> {
  return db.select().from(topicSettings).where(sql`${topicSettings.embeddingsModel} IS NOT NULL`);
}

export async function requestBuild(db: Executor, projectId: string, now: number): Promise<void> {
  await db.update(topicSettings).set({ buildRequestedAt: now }).where(eq(topicSettings.projectId, projectId));
}

/** Takes the project's build for `leaseMs` unless another process holds it: true when taken. */
export async function claimBuild(db: Executor, projectId: string, now: number, leaseMs: number): Promise<boolean> {
  const taken = await rows<{ project_id: string }>(
    db,
    sql`UPDATE topic_settings SET build_claimed_until = ${now + leaseMs}
        WHERE project_id = ${projectId} AND (build_claimed_until IS NULL OR build_claimed_until < ${now})
        RETURNING project_id`,
  );
  return taken.length > 0;
}

export async function recordError(db: Executor, projectId: string, message: string, now: number, releaseBuild: boolean): Promise<void> {
  await db
    .update(topicSettings)
    .set({ lastError: message.slice(0, 2000), lastErrorAt: now, ...(releaseBuild ? { buildClaimedUntil: null } : {}) })
    .where(eq(topicSettings.projectId, projectId));
}

export async function clearError(db: Executor, projectId: string): Promise<void> {
  await db.update(topicSettings).set({ lastError: null, lastErrorAt: null }).where(and(eq(topicSettings.projectId, projectId), sql`${topicSettings.lastError} IS NOT NULL`));
}

export interface EmbeddedTrace {
  traceId: string;
  startedAt: number;
  embedding: Float32Array | null;
  topicId: string | null;
  similarity: number | null;
}

/** Stores traces' embeddings (and the topic each joined); a trace already stored (another process got there first) is left. */
export async function insertEmbeddings(db: Executor, projectId: string, traces: readonly EmbeddedTrace[], now: number): Promise<void> {
  if (traces.length === 0) return;
  await db
    .insert(traceTopics)
    .values(traces.map((t) => ({ projectId, traceId: t.traceId, startedAt: t.startedAt, embedding: t.embedding, topicId: t.topicId, similarity: t.similarity, embeddedAt: now })))
    .onConflictDoNothing();
}

export async function countEmbedded(db: Executor, projectId: string): Promise<number> {
  const [r] = await rows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM trace_topics WHERE project_id = ${projectId} AND embedding IS NOT NULL`);
  return Number(r.n);
}

/** The newest `limit` embedded traces' vectors, row after row. */
export async function loadEmbeddings(db: Executor, projectId: string, limit: number): Promise<{ traceIds: string[]; vectors: Float32Array[] }> {
  const found = await db
    .select({ traceId: traceTopics.traceId, embedding: traceTopics.embedding })
    .from(traceTopics)
    .where(and(eq(traceTopics.projectId, projectId), sql`${traceTopics.embedding} IS NOT NULL`))
    .orderBy(sql`${traceTopics.embeddedAt} DESC, ${traceTopics.traceId}`)
    .limit(limit);
  return { traceIds: found.map((r) => r.traceId), vectors: found.map((r) => r.embedding!) };
}

export type TopicRow = typeof topics.$inferSelect;

export async function listTopics(db: Executor, projectId: string): Promise<TopicRow[]> {
  return db.select().from(topics).where(eq(topics.projectId, projectId)).orderBy(sql`${topics.size} DESC, ${topics.topicId}`);
}

/**
 * A build's outcome in one transaction: the old topics replaced, every clustered trace moved to
 * its topic, the build recorded, its claim released.
 */
export async function replaceTopics(
  db: Executor,
  projectId: string,
  build: { topics: Omit<TopicRow, 'projectId'>[]; traceIds: readonly string[]; topicIds: readonly string[]; similarities: Float32Array; builtAt: number },
): Promise<void> {
  await db.delete(topics).where(eq(topics.projectId, projectId));
  if (build.topics.length) await db.insert(topics).values(build.topics.map((t) => ({ ...t, projectId })));
  const CHUNK = 5_000;
  for (let i = 0; i < build.traceIds.length; i += CHUNK) {
    const ids = build.traceIds.slice(i, i + CHUNK);
    const topicIds = build.topicIds.slice(i, i + CHUNK);
    const sims = Array.from(build.similarities.subarray(i, i + CHUNK), (s) => Math.round(s * 1e6) / 1e6);
    await db.execute(sql`UPDATE trace_topics AS t SET topic_id = v.topic_id, similarity = v.similarity
      FROM (SELECT unnest(${textArray(ids)}) AS trace_id, unnest(${textArray(topicIds)}) AS topic_id, unnest(${`{${sims.join(',')}}`}::real[]) AS similarity) AS v
      WHERE t.project_id = ${projectId} AND t.trace_id = v.trace_id`);
  }
  // Traces embedded after the build read its embeddings keep their topic only if it still exists.
  await db.execute(sql`UPDATE trace_topics SET topic_id = NULL, similarity = NULL WHERE project_id = ${projectId} AND topic_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM topics WHERE topics.project_id = trace_topics.project_id AND topics.topic_id = trace_topics.topic_id)`);
  await db
    .update(topicSettings)
    .set({ builtAt: build.builtAt, builtTraces: build.traceIds.length, buildRequestedAt: null, buildClaimedUntil: null, lastError: null, lastErrorAt: null })
    .where(eq(topicSettings.projectId, projectId));
}

/** Traces per topic now (the built ones and those joined since). */
export async function topicSizes(db: Executor, projectId: string): Promise<Map<string, number>> {
  const found = await rows<{ topic_id: string; n: number }>(db, sql`SELECT topic_id, count(*)::int AS n FROM trace_topics WHERE project_id = ${projectId} AND topic_id IS NOT NULL GROUP BY topic_id`);
  return new Map(found.map((r) => [r.topic_id, Number(r.n)]));
}

/** Traces per topic and day (days counted from `start`) over a range. */
export async function dailyCounts(db: Executor, projectId: string, start: number, end: number): Promise<{ topic_id: string; day: number; traces: number }[]> {
  const found = await rows<{ topic_id: string; day: number; traces: number }>(
    db,
    sql`SELECT topic_id, floor((started_at - ${start}) / 86400000.0)::int AS day, count(*)::int AS traces FROM trace_topics
        WHERE project_id = ${projectId} AND topic_id IS NOT NULL AND started_at BETWEEN ${start} AND ${end} GROUP BY 1, 2`,
  );
  return found.map((r) => ({ topic_id: r.topic_id, day: Number(r.day), traces: Number(r.traces) }));
}

/** The traces of each topic nearest its centroid: their inputs show what the topic is about. */
export async function nearestTraces(db: Executor, projectId: string, perTopic: number): Promise<{ topic_id: string; trace_id: string }[]> {
  return rows(
    db,
    sql`SELECT topic_id, trace_id FROM (
          SELECT topic_id, trace_id, row_number() OVER (PARTITION BY topic_id ORDER BY similarity DESC, trace_id) AS rank
          FROM trace_topics WHERE project_id = ${projectId} AND topic_id IS NOT NULL) ranked
        WHERE rank <= ${perTopic}`,
  );
}

/**
 * A project's traces with their topic (one row per embedded trace; topic null: in none), as a
 * typed relation: analytics groups by it, joined by the traces module without naming this table.
 */
export function topicOfTracesRelation(projectId: string) {
  return new QueryBuilder()
    .select({ traceId: traceTopics.traceId, topicId: traceTopics.topicId })
    .from(traceTopics)
    .where(eq(traceTopics.projectId, projectId))
    .as('trace_topic');
}

/** The caller's trace rows in any of these topics: the trace filter's `topic`. */
export function inTopicsCondition(trace: TraceRowRef, topicIds: readonly string[]): SQL {
  return sql`EXISTS (SELECT 1 FROM trace_topics tt WHERE tt.project_id = ${trace.projectId} AND tt.trace_id = ${trace.traceId} AND tt.topic_id = ANY(${textArray(topicIds)}))`;
}

/**
 * How far before the watermark a round looks again: a trace stamped with its first-ingested time
 * can commit after a later-stamped one (a long ingest transaction, another process's clock), and
 * must not be passed over. Traces already embedded in that margin are skipped by their row here.
 */
export const LATE_COMMIT_MARGIN_MS = 60_000;

/**
 * Which traces the next round embeds: those first ingested since the watermark (less the margin)
 * that have no row here yet. The traces module reads them on its (project_id, inserted_at)
 * index, so a round costs the traces that arrived since, not the whole table.
 */
export function notEmbeddedSince(projectId: string, embeddedThrough: number | null): TraceInputsPick {
  return {
    insertedFrom: embeddedThrough === null ? null : embeddedThrough - LATE_COMMIT_MARGIN_MS,
    without: new QueryBuilder().select({ traceId: traceTopics.traceId }).from(traceTopics).where(eq(traceTopics.projectId, projectId)).as('embedded_traces'),
  };
}

/** Moves the project's watermark forward to `through` (never back: two processes may run rounds). */
export async function advanceWatermark(db: Executor, projectId: string, through: number): Promise<void> {
  await db.execute(sql`UPDATE topic_settings SET embedded_through = GREATEST(COALESCE(embedded_through, 0), ${through}) WHERE project_id = ${projectId}`);
}

export async function deleteTraces(db: Executor, projectId: string, traceIds: readonly string[]): Promise<void> {
  if (traceIds.length === 0) return;
  await db.execute(sql`DELETE FROM trace_topics WHERE project_id = ${projectId} AND trace_id = ANY(${textArray(traceIds)})`);
}

export async function deleteProject(db: Executor, projectId: string): Promise<void> {
  await db.delete(traceTopics).where(eq(traceTopics.projectId, projectId));
  await db.delete(topics).where(eq(topics.projectId, projectId));
  await db.delete(topicSettings).where(eq(topicSettings.projectId, projectId));
}
