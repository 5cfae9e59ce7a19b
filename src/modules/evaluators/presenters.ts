import type { MonitorResultsResponse } from '../monitors/schemas.ts';
import type { TraceEvaluation } from './schemas.ts';
import type { EvaluationRow } from './store.ts';

/** The spec's "Trace evaluation" object of a stored result. */
export function presentTraceEvaluation(row: EvaluationRow): TraceEvaluation {
  return {
    evaluation_id: row.id,
    name: row.name,
    type: row.evaluator,
    trace_id: row.traceId,
    project_id: row.projectId,
    status: row.status,
    score: row.score,
    passed: row.passed,
    label: row.label,
    details: row.details,
    cost: row.costAmount !== null ? { currency: row.costCurrency ?? 'USD', amount: row.costAmount } : null,
    is_guardrail: row.isGuardrail,
    timestamps: { inserted_at: Number(row.insertedAt), updated_at: Number(row.updatedAt) },
    error:
      row.status === 'error'
        ? {
            stacktrace: row.errorStacktrace ?? [],
            message: row.errorMessage ?? '',
            has_error: true,
            error_type: row.errorType,
          }
        : null,
  };
}

export type MonitorResult = MonitorResultsResponse['data'][number];

/** A monitor's stored result, as its results page lists it. */
export function presentMonitorResult(r: EvaluationRow): MonitorResult {
  return {
    evaluation_id: r.id,
    trace_id: r.traceId,
    status: r.status,
    passed: r.passed,
    score: r.score,
    label: r.label,
    details: r.details,
    evaluator_version: r.evaluatorVersion,
    inserted_at: Number(r.insertedAt),
  };
}
