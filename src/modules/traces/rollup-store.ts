/**
 * Hourly rollups of trace summaries (migrations 0076, 0079): trace_rollups holds, per project and
 * hour, the count and sums of the hour's traces and their latency sketch (the buckets of
 * LATENCY_BUCKET met and the traces in each, as two arrays), over all of them and per model group; beside them (0077) trace_thumb_rollups the hour's thumbs (all, and per
 * model group) and trace_verdict_rollups its verdicts per evaluation name and evaluator; trace_hours_dirty
 * the hours changed since (the triggers of traces, annotations and evaluations mark every write's hours,
 * a thumb's or verdict's the hour of its trace, in its transaction). Recomputing a dirty hour deletes its marks first, then
 * reads the summaries in a later statement: a writer holding a mark (shared lock) is waited
 * for, and a writer after it marks the hour again.
 */
import { sql } from 'drizzle-orm';
import { rows, textArray, type Executor } from '../../db/index.ts';
import type { ThumbsRelation, VerdictsRelation } from './relations.ts';

/** An hour in epoch ms. */
export const HOUR_MS = 3_600_000;

/**
 * The latency sketch's bucket of a trace (0076: log-spaced, each bucket's value within 1 % of
 * the latencies in it): what the live charts and the rollups both group latencies by, so that
 * both give the same percentiles.
 */
export const LATENCY_BUCKET = sql`latency_sketch_bucket(traces.total_time_ms)`;

/** Up to `limit` dirty hours, by project (any order). */
export async function dirtyHours(db: Executor, limit: number): Promise<{ projectId: string; hours: number[] }[]> {
  const found = await rows<{ project_id: string; hours: string[] }>(
    db,
    sql`SELECT project_id, array_agg(DISTINCT hour::text) AS hours FROM (SELECT project_id, hour FROM trace_hours_dirty LIMIT ${limit}) d GROUP BY project_id`,
  );
  return found.map((r) => ({ projectId: r.project_id, hours: r.hours.map(Number) }));
}

/** Up to `limit` distinct dirty hours of a project in [from, to). */
export async function dirtyHoursIn(db: Executor, projectId: string, from: number, to: number, limit: number): Promise<number[]> {
  const found = await rows<{ hour: number }>(
    db,
    sql`SELECT DISTINCT hour::float8 AS hour FROM trace_hours_dirty WHERE project_id = ${projectId} AND hour >= ${from}::bigint AND hour < ${to}::bigint LIMIT ${limit}`,
  );
  return found.map((r) => Number(r.hour));
}

/** Whether any trace of the project starts in [from, to). */
export async function tracesStartIn(db: Executor, projectId: string, from: number, to: number): Promise<boolean> {
  const [found] = await rows<{ any: boolean }>(
    db,
    sql`SELECT EXISTS (SELECT 1 FROM traces WHERE project_id = ${projectId} AND started_at >= ${from}::bigint AND started_at < ${to}::bigint) AS any`,
  );
  return Boolean(found.any);
}

/** Per latency bucket: a bar of the hour's histogram (folded by FOLDED_SUMS into one row per hour and group). */
const ROLLUP_SUMS = sql.raw(`count(*) AS traces, sum(span_count) AS spans, count(*) FILTER (WHERE has_error) AS errors, sum(total_cost) AS cost,
  sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens, sum(cached_input_tokens) AS cached_input_tokens, sum(reasoning_tokens) AS reasoning_tokens`);

/** The bars of an hour and group (rows of ROLLUP_SUMS with latency_bucket) as one row: the sums, and the sketch as two arrays. */
const FOLDED_SUMS = sql.raw(`sum(traces), sum(spans), sum(errors), sum(cost), sum(prompt_tokens), sum(completion_tokens), sum(cached_input_tokens), sum(reasoning_tokens),
  coalesce(array_agg(latency_bucket ORDER BY latency_bucket) FILTER (WHERE latency_bucket IS NOT NULL), '{}'),
  coalesce(array_agg(traces::integer ORDER BY latency_bucket) FILTER (WHERE latency_bucket IS NOT NULL), '{}')`);
const ROLLUP_COLUMNS = sql.raw(`project_id, hour, by_model, model, traces, spans, errors, cost, prompt_tokens, completion_tokens, cached_input_tokens, reasoning_tokens,
  latency_buckets, latency_counts`);

/** Each of a trace's model groups (grp.g): its normalized models, or one null group for a trace without one. */
const MODEL_GROUPS = sql.raw('CROSS JOIN LATERAL unnest(CASE WHEN cardinality(t.normalized_models) = 0 THEN ARRAY[NULL]::text[] ELSE t.normalized_models END) AS grp(g)');

/** The project's thumbs and verdicts as their owners' typed relations (absent: no such module, nothing counted). */
export interface FeedbackRelations {
  thumbs?: ThumbsRelation;
  verdicts?: VerdictsRelation;
}

/**
 * Recomputes these hours of a project, in the caller's transaction: marks deleted first, then
 * the rows made again from the summaries, and the thumbs and verdicts joined to the hours'
 * traces (each statement reads what is committed when it starts).
 */
export async function rollUpHours(tx: Executor, projectId: string, hours: number[], feedback: FeedbackRelations = {}): Promise<void> {
  const list = sql`${textArray(hours.map(String))}::bigint[]`;
  await tx.execute(sql`DELETE FROM trace_hours_dirty WHERE project_id = ${projectId} AND hour = ANY(${list})`);
  await tx.execute(sql`DELETE FROM trace_rollups WHERE project_id = ${projectId} AND hour = ANY(${list})`);
  await tx.execute(sql`DELETE FROM trace_thumb_rollups WHERE project_id = ${projectId} AND hour = ANY(${list})`);
  await tx.execute(sql`DELETE FROM trace_verdict_rollups WHERE project_id = ${projectId} AND hour = ANY(${list})`);
  // One range of the summaries' covering index (traces_time_sums) from the first hour to the
  // last (the caller passes nearby hours): a range the planner prunes the day partitions by,
  // where a join to each hour scanned every partition whole.
  const from = Math.min(...hours);
  const to = Math.max(...hours) + HOUR_MS;
  const ofHours = sql`FROM (
      SELECT traces.started_at - traces.started_at % ${HOUR_MS}::bigint AS hour, ${LATENCY_BUCKET} AS latency_bucket,
        span_count, has_error, total_cost, prompt_tokens, completion_tokens, cached_input_tokens, reasoning_tokens, normalized_models
      FROM traces WHERE traces.project_id = ${projectId} AND traces.started_at >= ${from}::bigint AND traces.started_at < ${to}::bigint) t
    WHERE t.hour = ANY(${list})`;
  await tx.execute(
    sql`INSERT INTO trace_rollups (${ROLLUP_COLUMNS})
        SELECT ${projectId}, hour, false, NULL, ${FOLDED_SUMS}
        FROM (SELECT t.hour, t.latency_bucket, ${ROLLUP_SUMS} ${ofHours} GROUP BY t.hour, t.latency_bucket) bars
        GROUP BY hour`,
  );
  await tx.execute(
    sql`INSERT INTO trace_rollups (${ROLLUP_COLUMNS})
        SELECT ${projectId}, hour, true, g, ${FOLDED_SUMS}
        FROM (SELECT t.hour, grp.g, t.latency_bucket, ${ROLLUP_SUMS}
              FROM (SELECT t.* ${ofHours}) t
                ${MODEL_GROUPS}
              GROUP BY t.hour, grp.g, t.latency_bucket) bars
        GROUP BY hour, g`,
  );
  // The hours' traces (id, hour, models), joined by their owners' relations.
  const ofTraces = sql`(SELECT x.trace_id, x.hour, x.normalized_models FROM (
      SELECT traces.trace_id, traces.started_at - traces.started_at % ${HOUR_MS}::bigint AS hour, traces.normalized_models
      FROM traces WHERE traces.project_id = ${projectId} AND traces.started_at >= ${from}::bigint AND traces.started_at < ${to}::bigint) x
    WHERE x.hour = ANY(${list})) t`;
  const th = feedback.thumbs;
  if (th) {
    const counts = sql`count(*) FILTER (WHERE ${th.isThumbsUp}), count(*) FILTER (WHERE NOT ${th.isThumbsUp})`;
    await tx.execute(
      sql`INSERT INTO trace_thumb_rollups (project_id, hour, by_model, model, up, down)
          SELECT ${projectId}, t.hour, false, NULL, ${counts} FROM ${th} JOIN ${ofTraces} ON t.trace_id = ${th.traceId} GROUP BY t.hour`,
    );
    await tx.execute(
      sql`INSERT INTO trace_thumb_rollups (project_id, hour, by_model, model, up, down)
          SELECT ${projectId}, t.hour, true, grp.g, ${counts} FROM ${th} JOIN ${ofTraces} ON t.trace_id = ${th.traceId}
            ${MODEL_GROUPS}
          GROUP BY t.hour, grp.g`,
    );
  }
  const v = feedback.verdicts;
  if (v) {
    await tx.execute(
      sql`INSERT INTO trace_verdict_rollups (project_id, hour, name, evaluator, passed, failed)
          SELECT ${projectId}, t.hour, ${v.name}, ${v.evaluator}, count(*) FILTER (WHERE ${v.passed}), count(*) FILTER (WHERE NOT ${v.passed})
          FROM ${v} JOIN ${ofTraces} ON t.trace_id = ${v.traceId} GROUP BY t.hour, ${v.name}, ${v.evaluator}`,
    );
  }
}

/**
 * In the transaction that drops one day's partitions (which runs no trigger): the hours of the
 * day's traces (a trace is kept in the day it was first stored in, and its start may have moved
 * earlier since) are marked dirty, and their rollup rows (sums, thumbs, verdicts) deleted: read from the summaries left
 * until the task recomputes them.
 */
export async function dropDayRollups(tx: Executor, day: number): Promise<void> {
  const hours = sql`SELECT DISTINCT project_id, started_at - started_at % ${HOUR_MS}::bigint AS hour FROM traces WHERE day = ${day}`;
  await tx.execute(sql`INSERT INTO trace_hours_dirty (project_id, hour) ${hours}`);
  for (const table of ['trace_rollups', 'trace_thumb_rollups', 'trace_verdict_rollups']) {
    await tx.execute(sql`DELETE FROM ${sql.identifier(table)} r USING (${hours}) h WHERE r.project_id = h.project_id AND r.hour = h.hour`);
  }
}
