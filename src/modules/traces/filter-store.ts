/**
 * The trace filter's SQL interpreter (filter.ts holds the schema and the in-memory one): the
 * search's words, dates and filter as conditions on rows of `traces`. Other modules' keys
 * (annotations, evaluations, scores, topics) come as their own conditions, built in their
 * stores against the trace rows named here (TraceRowRef), never against hard-coded names.
 */
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { textArray } from '../../db/text-array.ts';
import { toMillis } from '../../platform/time-buckets.ts';
import { asList, modelNames, type EvaluationFilter, type ScoreFilter, type TraceFilter } from './filter.ts';
import type { TraceSearch } from './schemas.ts';

/** The trace rows another module's condition is on: the caller's columns (the `traces` table, or an alias of it). */
export interface TraceRowRef {
  projectId: SQLWrapper;
  traceId: SQLWrapper;
}

/** The rows of `traces` itself, as the search and analytics read them. */
export const TRACES_ROW: TraceRowRef = { projectId: sql`traces.project_id`, traceId: sql`traces.trace_id` };

/** Conditions on the caller's trace rows for the keys whose tables other modules own: built against `trace`, never a hard-coded name. */
export interface ForeignFilterConditions {
  has_annotation?(trace: TraceRowRef, hasAnnotation: boolean): SQL;
  evaluation?(trace: TraceRowRef, filter: EvaluationFilter): SQL;
  score?(trace: TraceRowRef, filter: ScoreFilter): SQL;
  topic?(trace: TraceRowRef, topicIds: string[]): SQL;
}

/** The filter as SQL conditions on rows of `traces` (ANDed by the caller); other modules' conditions are on `trace`'s columns. */
export function toSql(f: TraceFilter | undefined, foreign: readonly ForeignFilterConditions[] = [], trace: TraceRowRef = TRACES_ROW): SQL[] {
  const c: SQL[] = [];
  if (!f) return c;
  const anyOf = (col: string, v: string | string[] | undefined) => {
    if (v !== undefined) c.push(sql`${sql.raw(col)} = ANY(${textArray(asList(v))})`);
  };
  const overlaps = (col: string, v: string[] | undefined) => {
    if (v !== undefined) c.push(sql`${sql.raw(col)} && ${textArray(v)}`);
  };
  anyOf('user_id', f.user_id);
  anyOf('thread_id', f.thread_id);
  anyOf('customer_id', f.customer_id);
  overlaps('labels', f.labels === undefined ? undefined : asList(f.labels));
  overlaps('model_names', f.model === undefined ? undefined : modelNames(f.model));
  overlaps('span_types', f.span_type === undefined ? undefined : asList(f.span_type));
  if (f.has_error !== undefined) c.push(sql`has_error = ${f.has_error}`);
  for (const [key, value] of Object.entries(f.metadata ?? {})) {
    c.push(sql`metadata @> ${JSON.stringify({ [key]: value })}::jsonb`);
  }
  for (const owner of foreign) {
    if (f.has_annotation !== undefined && owner.has_annotation) c.push(owner.has_annotation(trace, f.has_annotation));
    if (f.evaluation && owner.evaluation) c.push(owner.evaluation(trace, f.evaluation));
    if (f.score && owner.score) c.push(owner.score(trace, f.score));
    if (f.topic !== undefined && owner.topic) c.push(owner.topic(trace, asList(f.topic)));
  }
  return c;
}

/**
 * The trace search's query, dates and filters as SQL conditions on rows of `traces`: the
 * one filter compiler, also used by analytics so a dashboard and the list agree.
 */
export function searchConditions(req: TraceSearch, foreign: readonly ForeignFilterConditions[]): SQL[] {
  const c: SQL[] = [];
  // Words of input and output; web-search syntax: "a phrase", or, -excluded.
  if (req.query?.trim()) c.push(sql`search_tsv @@ websearch_to_tsquery('simple', ${req.query})`);
  if (req.startDate !== undefined) c.push(sql`started_at >= ${toMillis(req.startDate, 'startDate')}`);
  if (req.endDate !== undefined) c.push(sql`started_at <= ${toMillis(req.endDate, 'endDate')}`);
  c.push(...toSql(req.filters, foreign));
  return c;
}

/** Traces first stored at or before `snapshot` (a search's pages stay put). */
export function insertedUpTo(snapshot: number): SQL {
  return sql`inserted_at <= ${snapshot}`;
}

/** Traces first stored at or after `since` (the new-traces poll). */
export function insertedSince(since: number): SQL {
  return sql`inserted_at >= ${since}`;
}
