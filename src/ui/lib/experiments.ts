import type { ExperimentRun, RunRows } from '../api/experiments.ts';
import { asText } from './format.ts';

/**
 * A run's rows as the run page shows them: one line per dataset row and target, read a page at a
 * time from GET /api/experiments/{slug}/runs/{runId}/rows, which filters and sorts by any column.
 * A column's id is the route's column name (`entry.<key>`, `output`, `cost`, ...).
 */

/** Entry fields taken for the expected output, in this order. */
const EXPECTED_KEYS = ['expected_output', 'expectedOutput', 'expected', 'ground_truth', 'groundTruth', 'reference'];

export type RunLine = RunRows['rows'][number];
export type LineEvaluation = RunLine['evaluations'][string];

export type ColumnKind = 'text' | 'number' | 'eval';
export interface Column {
  id: string;
  label: string;
  kind: ColumnKind;
  width: number;
  /** The route's column to sort on; null: not sortable or filterable (the trace link, review scores). */
  sortBy: string | null;
  evaluator?: string;
}

/** The columns of a run, from its first page: dataset columns, target, output, evaluators, cost, latency, error, trace. */
export function runColumns(first: RunRows): Column[] {
  const keys = [...new Set(first.rows.flatMap((r) => Object.keys(r.entry)))];
  const expectedKey = EXPECTED_KEYS.find((k) => keys.includes(k)) ?? null;
  // What a reader looks for first comes first: the verdicts, then the output beside what was
  // expected, then the row's other columns (a wide dataset pushed the verdicts off screen).
  const cols: Column[] = [{ id: 'index', label: '#', kind: 'number', width: 56, sortBy: 'index' }];
  if (new Set(first.rows.map((r) => r.targetId)).size > 1) cols.push({ id: 'targetId', label: 'Target', kind: 'text', width: 140, sortBy: 'targetId' });
  for (const e of first.evaluators) cols.push({ id: `ev:${e.evaluator}`, label: e.name, kind: 'eval', width: 130, sortBy: `score:${e.evaluator}`, evaluator: e.evaluator });
  cols.push({ id: 'output', label: 'Output', kind: 'text', width: 240, sortBy: 'output' });
  if (expectedKey) cols.push({ id: `entry.${expectedKey}`, label: `Expected (${expectedKey})`, kind: 'text', width: 200, sortBy: `entry.${expectedKey}` });
  for (const k of keys.filter((k) => k !== expectedKey)) cols.push({ id: `entry.${k}`, label: k, kind: 'text', width: 220, sortBy: `entry.${k}` });
  cols.push({ id: 'cost', label: 'Cost', kind: 'number', width: 90, sortBy: 'cost' });
  cols.push({ id: 'duration', label: 'Latency', kind: 'number', width: 90, sortBy: 'duration' });
  cols.push({ id: 'error', label: 'Error', kind: 'text', width: 160, sortBy: 'error' });
  // Rows with a trace: its review scores (once a reviewer scored it).
  if (first.rows.some((r) => r.traceId)) cols.push({ id: 'review', label: 'Review', kind: 'text', width: 200, sortBy: null });
  cols.push({ id: 'trace', label: 'Trace', kind: 'text', width: 90, sortBy: null });
  return cols;
}

/** A target's output as text: `predicted.output` when it is there, else the whole object. */
export function outputText(predicted: Record<string, unknown> | null | undefined): string {
  if (!predicted) return '';
  const keys = Object.keys(predicted);
  if ('output' in predicted && keys.length === 1) return asText(predicted.output);
  if (keys.length === 1) return asText(predicted[keys[0]]);
  return JSON.stringify(predicted);
}

/**
 * A column filter as typed, as the rows route's `where`: `>0.5`, `<=3`, `=1`, `!=0` on numbers
 * and scores; `pass`, `fail`, `error`, `skipped` on evaluators; `empty`, `!empty` anywhere; words
 * to find (case-insensitive) on text and on an evaluator's label. Null: not understood.
 */
export function conditionFor(column: Column, expr: string): string | null {
  const text = expr.trim();
  const lower = text.toLowerCase();
  const col = column.kind === 'eval' ? `score:${column.evaluator}` : column.id;
  if (lower === 'empty') return `${column.kind === 'eval' ? `status:${column.evaluator}` : col}=null`;
  if (lower === '!empty' || lower === 'not empty') return `${column.kind === 'eval' ? `status:${column.evaluator}` : col}!=null`;
  if (column.kind === 'eval') {
    if (lower === 'pass' || lower === 'passed') return `passed:${column.evaluator}=true`;
    if (lower === 'fail' || lower === 'failed') return `passed:${column.evaluator}=false`;
    if (lower === 'error' || lower === 'skipped') return `status:${column.evaluator}=${lower}`;
  }
  const cmp = /^(<=|>=|!=|<|>|=)\s*(-?\d+(?:\.\d+)?)$/.exec(text);
  // The # column shows rows counted from 1; the API's index counts from 0.
  if (cmp && column.id === 'index') return `${col}${cmp[1]}${Number(cmp[2]) - 1}`;
  if (cmp && column.kind !== 'text') return `${col}${cmp[1]}${cmp[2]}`;
  if (column.kind === 'number' || column.id === 'trace') return null;
  return `${column.kind === 'eval' ? `label:${column.evaluator}` : col}~${text}`;
}

// ---- numbers as the pages show them (statistics and verdicts are the server's)

export const signed = (v: number) => (Number.isFinite(v) ? `${v > 0 ? '+' : v < 0 ? '−' : ''}${fmt(Math.abs(v))}` : '–');
export const fmt = (v: number | null | undefined) => (v === null || v === undefined || !Number.isFinite(v) ? '–' : Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(Math.abs(v) < 1 && v !== 0 ? 3 : 2));
/** A difference of two rates in percentage points: "+12.5 pts". */
export const points = (v: number) => `${v > 0 ? '+' : v < 0 ? '−' : ''}${Math.abs(v * 100).toFixed(1)} pts`;
export const pct = (v: number | null | undefined) => (v === null || v === undefined || !Number.isFinite(v) ? '–' : `${(v * 100).toFixed(v === 0 || v === 1 ? 0 : 1)}%`);

/**
 * The experiment's main score for the list's trend: the first evaluator (by id) with a score
 * in the runs, else the first with a pass rate. Per run, null when the run lacks it.
 */
export function mainScore(runs: ExperimentRun[]): { evaluator: string; name: string; measure: 'score' | 'pass rate'; values: (number | null)[] } | null {
  const ids = [...new Set(runs.flatMap((r) => Object.keys(r.summary.evaluations)))].sort();
  for (const measure of ['score', 'pass rate'] as const) {
    for (const id of ids) {
      const values = runs.map((r) => {
        const e = r.summary.evaluations[id];
        const v = !e ? null : measure === 'score' ? e.averageScore : (e.averagePassed ?? null);
        return v === null || v === undefined || !Number.isFinite(v) ? null : v;
      });
      if (values.some((v) => v !== null)) {
        const name = runs.map((r) => r.summary.evaluations[id]?.name).find(Boolean) ?? id;
        return { evaluator: id, name, measure, values };
      }
    }
  }
  return null;
}
