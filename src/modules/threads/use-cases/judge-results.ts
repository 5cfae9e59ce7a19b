import type { Database } from '../../../db/index.ts';
import * as store from '../store.ts';

/**
 * What judge alignment reads of thread results: a judge (evaluator path) that evaluated whole
 * threads is measured on them too, against people's scores of the same threads.
 */
export async function threadJudgeResults(db: Database, projectId: string, evaluator: string, version: number | null) {
  return store.latestJudgeResults(db.orm, projectId, evaluator, version);
}

/** The evaluators with thread results: their versions and how many results. */
export async function threadJudgesWithResults(db: Database, projectId: string): Promise<{ evaluator: string; versions: number[]; results: number }[]> {
  const byEvaluator = new Map<string, { evaluator: string; versions: number[]; results: number }>();
  for (const r of await store.judgesWithResults(db.orm, projectId)) {
    const e = byEvaluator.get(r.evaluator) ?? { evaluator: r.evaluator, versions: [], results: 0 };
    if (r.version !== null) e.versions.push(Number(r.version));
    e.results += Number(r.results);
    byEvaluator.set(r.evaluator, e);
  }
  return [...byEvaluator.values()];
}

/** Alerts: thread results per window of when they ran (thread_pass_rate, thread_score_mean). */
export async function threadResultWindows(db: Database, projectId: string, q: { origin: number; windowMs: number; end: number; name: string | null; byName: boolean }) {
  return store.windowResults(db.orm, projectId, q);
}

/** Alerts: whether a thread monitor of this name (or evaluator path) left results. */
export async function threadResultsExist(db: Database, projectId: string, nameOrPath: string): Promise<boolean> {
  return store.hasResultsOf(db.orm, projectId, nameOrPath);
}
