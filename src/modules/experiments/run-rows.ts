import type { z } from 'zod';
import { badRequest } from '../../platform/errors.ts';
import type { PlatformDeps } from './platform-context.ts';
import * as cstore from './comparison-store.ts';
import * as store from './store.ts';
import { lenientPaging, pagination } from './paging.ts';
import { experimentOf, runsOf } from './run-analysis.ts';
import type { rowEvaluationSchema, runRowsResponse } from './schemas.ts';

type RowEvaluation = z.output<typeof rowEvaluationSchema>;

const ROW_COLUMNS: Record<string, { column: 'idx' | 'target_id' | 'cost' | 'duration' | 'error'; type: 'number' | 'text' }> = {
  index: { column: 'idx', type: 'number' },
  targetId: { column: 'target_id', type: 'text' },
  cost: { column: 'cost', type: 'number' },
  duration: { column: 'duration', type: 'number' },
  latency: { column: 'duration', type: 'number' },
  error: { column: 'error', type: 'text' },
};
const EVALUATION_COLUMNS = { score: 'number', passed: 'boolean', label: 'text', status: 'text' } as const;

/**
 * A column name of the rows table: `index`, `targetId`, `cost`, `duration` (or `latency`),
 * `error`, `output` (the target's output as text), `entry.<column>` (a dataset column as text),
 * or `score:<evaluator>`, `passed:<evaluator>`, `label:<evaluator>`, `status:<evaluator>`.
 */
export function parseColumn(name: string, field: string): { column: cstore.RowColumn; type: 'number' | 'text' | 'boolean' } {
  const row = ROW_COLUMNS[name];
  if (row) return { column: { kind: 'row', column: row.column }, type: row.type };
  if (name === 'output') return { column: { kind: 'json', source: 'output' }, type: 'text' };
  if (name.startsWith('entry.') && name.length > 'entry.'.length) return { column: { kind: 'json', source: 'entry', key: name.slice('entry.'.length) }, type: 'text' };
  const colon = name.indexOf(':');
  const kind = colon > 0 ? name.slice(0, colon) : '';
  const evaluator = name.slice(colon + 1);
  if (colon > 0 && kind in EVALUATION_COLUMNS && evaluator.length > 0) {
    const k = kind as keyof typeof EVALUATION_COLUMNS;
    return { column: { kind: 'evaluation', column: k, evaluator }, type: EVALUATION_COLUMNS[k] };
  }
  throw badRequest(
    'validation_error',
    `${field}: unknown column ${JSON.stringify(name)}; use index, targetId, cost, duration, latency, error, output, entry.<column>, or score:<evaluator>, passed:<evaluator>, label:<evaluator>, status:<evaluator>`,
    field,
  );
}

const CONDITION = /^(.+?)(>=|<=|!=|=|>|<|~)(.*)$/s;

/** `<column><op><value>`: ops = != > >= < <= and ~ (contains, text columns); the value `null` tests for no value. */
export function parseCondition(text: string, field: string): cstore.RowCondition {
  const m = CONDITION.exec(text);
  if (!m) throw badRequest('validation_error', `${field}: ${JSON.stringify(text)} is not <column><op><value> (op one of = != > >= < <= ~)`, field);
  const [, name, op, raw] = m as unknown as [string, string, cstore.RowCondition['op'], string];
  const { column, type } = parseColumn(name.trim(), field);
  const value = raw.trim();
  if (value === 'null') {
    if (op !== '=' && op !== '!=') throw badRequest('validation_error', `${field}: null takes = or != only`, field);
    return { column, op, value: null };
  }
  if (type === 'number') {
    const n = Number(value);
    if (value === '' || !Number.isFinite(n) || op === '~') throw badRequest('validation_error', `${field}: ${name} takes a number and = != > >= < <=`, field);
    return { column, op, value: n };
  }
  if (type === 'boolean') {
    if ((value !== 'true' && value !== 'false') || (op !== '=' && op !== '!=')) throw badRequest('validation_error', `${field}: ${name} takes true, false or null, with = or !=`, field);
    return { column, op, value: value === 'true' };
  }
  return { column, op, value: raw };
}

export const presentRowEvaluation = (e: cstore.StoredEvaluation): RowEvaluation => ({
  name: e.name,
  status: e.status,
  score: e.score,
  passed: e.passed,
  label: e.label,
  details: e.details,
  cost: e.cost,
  duration: e.duration,
});

export const keyOf = (idx: number, targetId: string, repetition = 0) => `${idx}\u0000${targetId}\u0000${repetition}`;

/** GET /api/experiments/{slug}/runs/{runId}/rows: filtered, sorted, paged, each row with its evaluations. */
export async function runRows(
  ctx: PlatformDeps,
  projectId: string,
  slug: string,
  runId: string,
  query: { page?: string; pageSize?: string; sortBy?: string; sortDirection?: 'asc' | 'desc'; where?: string | string[] },
): Promise<z.output<typeof runRowsResponse>> {
  const where = (query.where === undefined ? [] : Array.isArray(query.where) ? query.where : [query.where]).map((w) => parseCondition(w, 'querystring.where'));
  const sortBy = query.sortBy === undefined ? ({ kind: 'row', column: 'idx' } as const) : parseColumn(query.sortBy, 'querystring.sortBy').column;
  const experiment = await experimentOf(ctx, projectId, slug);
  await runsOf(ctx, experiment, [runId], 'runId');
  const paging = lenientPaging(query);
  const { rows, total } = await cstore.pageRows(ctx.db.orm, experiment.id, runId, {
    where,
    sortBy,
    descending: query.sortDirection === 'desc',
    limit: paging.pageSize,
    offset: (paging.page - 1) * paging.pageSize,
  });
  const evaluations = await cstore.evaluationsOf(ctx.db.orm, experiment.id, [runId], rows);
  const byKey = new Map<string, Record<string, RowEvaluation>>();
  for (const e of evaluations) {
    const k = keyOf(e.idx, e.targetId, e.repetition);
    const m = byKey.get(k) ?? {};
    m[e.evaluator] = presentRowEvaluation(e);
    byKey.set(k, m);
  }
  const names = await cstore.evaluatorNames(ctx.db.orm, experiment.id, [runId]);
  const versions = await store.platformRunEvaluatorVersions(ctx.db.orm, experiment.id, runId);
  const scores = await ctx.traceScores(projectId, [...new Set(rows.flatMap((r) => (r.traceId ? [r.traceId] : [])))]);
  return {
    experimentSlug: experiment.slug,
    runId,
    evaluators: names.map((n) => ({ evaluator: n.evaluator, name: n.name ?? n.evaluator, version: versions.get(n.evaluator) ?? null })),
    rows: rows.map((r) => ({
      index: r.idx,
      repetition: r.repetition,
      targetId: r.targetId === '' ? null : r.targetId,
      entry: r.entry,
      predicted: r.predicted,
      cost: r.cost,
      duration: r.duration,
      error: r.error,
      traceId: r.traceId,
      evaluations: byKey.get(keyOf(r.idx, r.targetId, r.repetition)) ?? {},
      scores: (r.traceId && scores.get(r.traceId)) || [],
    })),
    pagination: pagination(paging, total),
  };
}
