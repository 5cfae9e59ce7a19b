import { latestThreadScores, type ScoreConfigView } from '../annotations/index.ts';
import type { JudgeResultRow } from '../evaluators/index.ts';
import { threadJudgeResults, threadJudgesWithResults } from '../threads/index.ts';
import type { JudgeAlignmentContext } from './context.ts';

/** A judge's result on a whole thread, keyed as a trace's is: by the thread's last turn covered, with the thread named. */
export type ThreadResult = JudgeResultRow & { threadId: string };

/**
 * Thread scores feed the alignment as trace scores do: a judge that evaluated whole threads
 * (thread monitors) is paired with people's scores of the same threads (review queues' thread
 * items) under the same config. Each pair is keyed by the thread's last turn the result covered.
 */
export async function threadPairs(ctx: JudgeAlignmentContext, projectId: string, evaluator: string, version: number | null, config: ScoreConfigView) {
  const results: ThreadResult[] = (await threadJudgeResults(ctx.db, projectId, evaluator, version)).map((r) => ({
    traceId: r.traceIds.at(-1) ?? r.threadId,
    threadId: r.threadId,
    passed: r.passed,
    score: r.score,
    label: r.label,
    details: r.details,
  }));
  const human = results.length ? await latestThreadScores(ctx.db, projectId, config) : [];
  const byThread = new Map(results.map((r) => [r.threadId, r]));
  const scores = human.filter((s) => byThread.has(s.threadId)).map((s) => ({ traceId: byThread.get(s.threadId)!.traceId, value: s.value }));
  return { results, scores };
}

/** The versions of `evaluator` that left thread results. */
export async function threadResultVersions(ctx: JudgeAlignmentContext, projectId: string, evaluator: string): Promise<number[]> {
  return (await threadJudgesWithResults(ctx.db, projectId)).find((j) => j.evaluator === evaluator)?.versions ?? [];
}

/** The judges list: judges of traces, of experiment rows and of threads together (a judge used on several is listed once). */
export function mergedJudges(...lists: { evaluator: string; versions: number[]; results: number }[][]): { evaluator: string; versions: number[]; results: number }[] {
  const out = new Map<string, { evaluator: string; versions: number[]; results: number }>();
  for (const j of lists.flat()) {
    const e = out.get(j.evaluator);
    if (!e) out.set(j.evaluator, { ...j, versions: [...j.versions] });
    else {
      e.versions = [...new Set([...e.versions, ...j.versions])].sort((a, b) => a - b);
      e.results += j.results;
    }
  }
  return [...out.values()].sort((a, b) => a.evaluator.localeCompare(b.evaluator));
}
