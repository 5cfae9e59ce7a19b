import type { Executor } from '../../../db/index.ts';
import * as store from '../store.ts';

/**
 * Analytics: thread monitors' results per bucket of when they ran, per evaluation name
 * (results, passed, failed, errors, the mean score), of the threads `threads` lists when given.
 */
export async function threadResultBuckets(db: Executor, projectId: string, q: store.ThreadSeriesRange) {
  return (await store.scoreBuckets(db, projectId, q)).map((r) => ({
    name: r.name,
    b: Number(r.b),
    evaluated: Number(r.evaluated),
    passed: Number(r.passed),
    failed: Number(r.failed),
    errors: Number(r.errors),
    scored: Number(r.scored),
    mean: r.mean === null ? null : Number(r.mean),
  }));
}
