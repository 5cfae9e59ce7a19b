import type { ExperimentsContext } from './context.ts';
import type { EvaluationIn, ResultRowIn } from './store.ts';

/** How a project's privacy settings store what a run records, before it is written. */
export interface RunRedaction {
  entry(entry: Record<string, unknown>): Record<string, unknown>;
  result(row: ResultRowIn): ResultRowIn;
  evaluation(e: EvaluationIn): EvaluationIn;
}

const UNCHANGED: RunRedaction = { entry: (e) => e, result: (r) => r, evaluation: (e) => e };

/**
 * Rows' entries, outputs and errors, and evaluations' labels, details and inputs, redacted (ids,
 * numbers and statuses stay). Read before the transaction that writes them (PGlite has one connection).
 */
export async function runRedaction(ctx: ExperimentsContext, projectId: string): Promise<RunRedaction> {
  const r = await ctx.redactor?.(projectId, 'experiments');
  if (!r?.active) return UNCHANGED;
  const done = <T>(value: T): T => {
    r.take();
    return value;
  };
  return {
    entry: (entry) => done(r.value(entry, 'entry')),
    result: (row) => done({ ...row, entry: r.value(row.entry, 'entry'), predicted: r.value(row.predicted, 'output'), error: r.value(row.error, 'error') }),
    evaluation: (e) => done({ ...e, label: r.value(e.label, 'label'), details: r.value(e.details, 'details'), inputs: r.value(e.inputs, 'inputs') }),
  };
}
