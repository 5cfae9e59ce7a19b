import type { z } from 'zod';
import type { Executor } from '../../db/index.ts';
import type { runJudgeSchema } from './schemas.ts';
import * as store from './store.ts';

type RunJudge = z.output<typeof runJudgeSchema>;

/**
 * The judge behind each evaluator of some runs, as its results elsewhere name it (the judge
 * alignment's `evaluator`): a server run's evaluator id (`exact`) ran a catalogue evaluator or a
 * custom judge at a pinned version, which its plan records; an SDK-logged evaluator is its own
 * name. The first run named that has the id decides.
 */
export async function judgesOf(db: Executor, experimentId: string, runIds: string[], evaluatorIds: string[]): Promise<RunJudge[]> {
  const planned = await store.platformRunJudges(db, experimentId, runIds);
  const order = (runId: string) => runIds.indexOf(runId);
  planned.sort((a, b) => order(a.runId) - order(b.runId));
  return [...new Set(evaluatorIds)].map((evaluator) => {
    const p = planned.find((x) => x.id === evaluator);
    return { evaluator, judge: p?.evaluator ?? evaluator, version: p?.version ?? null };
  });
}
