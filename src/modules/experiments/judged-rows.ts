import type { Database } from '../../db/index.ts';
import * as store from './store.ts';

/*
 * A judge's results on experiment rows, as judge alignment reads them: people score a row's
 * trace (the traces list and the run's rows show those scores), the run's evaluator judged the
 * row; paired by the trace.
 */

/** A judge's latest processed result per trace on experiment rows (at a custom judge's version when given). */
export function judgeResultsOnRows(db: Database, projectId: string, judge: string, version: number | null): Promise<store.RowJudgeResult[]> {
  return store.judgeResultsOnRows(db.orm, projectId, judge, version);
}

/** The judges that left processed results on experiment rows with a trace: their versions and result counts. */
export async function judgesOnRows(db: Database, projectId: string): Promise<{ evaluator: string; versions: number[]; results: number }[]> {
  const byJudge = new Map<string, { evaluator: string; versions: number[]; results: number }>();
  for (const r of await store.judgesOnRows(db.orm, projectId)) {
    const j = byJudge.get(r.evaluator) ?? { evaluator: r.evaluator, versions: [], results: 0 };
    if (r.version !== null) j.versions.push(r.version);
    j.results += r.results;
    byJudge.set(r.evaluator, j);
  }
  return [...byJudge.values()];
}
