import type { ScoreSummary } from '../annotations/index.ts';
import type { ThreadRow } from '../traces/index.ts';
import type { ThreadEvaluationView, ThreadView } from './schemas.ts';
import type { ThreadEvaluationRow } from './store.ts';

const usd = (n: number) => Math.round(n * 1e10) / 1e10;

export function presentThreadEvaluation(r: ThreadEvaluationRow): ThreadEvaluationView {
  return {
    id: r.id,
    thread_id: r.thread_id,
    monitor_id: r.monitor_id,
    name: r.name,
    evaluator: r.evaluator,
    evaluator_version: r.evaluator_version,
    status: r.status,
    passed: r.passed,
    score: r.score,
    label: r.label,
    details: r.details,
    cost: r.cost_amount,
    covered: { turns: r.turns, trace_ids: r.trace_ids },
    inserted_at: r.inserted_at,
  };
}

export function presentThread(t: ThreadRow, results: readonly ThreadEvaluationRow[], reviewScores: ScoreSummary[]): ThreadView {
  return {
    thread_id: t.thread_id,
    turns: Number(t.turns),
    first_seen: Number(t.first_seen),
    last_seen: Number(t.last_seen),
    duration_ms: Number(t.duration_ms),
    cost: usd(Number(t.cost)),
    tokens: { prompt: Number(t.prompt_tokens), completion: Number(t.completion_tokens) },
    errors: Number(t.errors),
    users: t.users ?? [],
    user_count: Number(t.user_count),
    scores: results.map((r) => ({ name: r.name, monitor_id: r.monitor_id, status: r.status, passed: r.passed, score: r.score, label: r.label, turns: r.turns })),
    review_scores: reviewScores,
  };
}
