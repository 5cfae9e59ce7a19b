import type { z } from 'zod';
import { badRequest } from '../../platform/errors.ts';
import type { JudgeAlignmentContext } from './context.ts';
import { gatherPairs } from './measure-alignment.ts';
import type { labelMoreQuery, labelMoreResponse } from './schemas.ts';
import { bootstrapPairs, trueNegativeRate, truePositiveRate } from './statistics.ts';
import { seedOf } from '../experiments/index.ts';

type Answer = z.output<typeof labelMoreResponse>;
const DEFAULT_PROPOSALS = 20;

function whole(text: string | undefined, fieldName: string, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  const v = Number(text);
  if (text.trim() === '' || !Number.isInteger(v) || v < min || v > max) throw badRequest('validation_error', `${fieldName}: a whole number, ${min}..${max}`, fieldName);
  return v;
}

/**
 * GET /api/judge-alignment/label-more: traces the judge scored that nobody labelled with the
 * config yet, the ones whose labels narrow the widest interval first (docs/judge-alignment.md,
 * "Label more"):
 * - pass/fail: the true-positive rate rests on people's passes, the true-negative rate on their
 *   fails. Whichever interval is wider (or undefined) needs labels of that class, and the judge's
 *   own verdict is the best guess of it: traces the judge passed (or failed) come first. Within
 *   them, those whose score lies nearest the judge's boundary (halfway between its mean passing
 *   and mean failing score), where it is most likely wrong.
 * - categories: the judge's labels people have labelled least come first.
 * - numbers: scores nearest the middle of the config's range first.
 */
export async function labelMore(ctx: JudgeAlignmentContext, projectId: string, query: z.output<typeof labelMoreQuery>): Promise<Answer> {
  const version = query.version === undefined ? null : whole(query.version, 'querystring.version', 0, 1, 1_000_000);
  const limit = whole(query.limit, 'querystring.limit', DEFAULT_PROPOSALS, 1, 200);
  const { config, judged, judgeValue, labelled, h, j, show, pairs } = await gatherPairs(ctx, projectId, { evaluator: query.evaluator, version, scoreConfig: query.scoreConfig });
  const open = judged.filter((r) => !labelled.has(r.traceId));
  let rule: string;
  let order: (typeof open)[number][];
  const nearest = (list: typeof open, centre: number | null) =>
    centre === null ? list : [...list].sort((a, b) => Math.abs((a.score ?? Infinity) - centre) - Math.abs((b.score ?? Infinity) - centre));
  if (config.kind === 'boolean') {
    const seed = (stat: string) => seedOf(projectId, query.evaluator, String(version), config.id, stat);
    const width = (e: ReturnType<typeof bootstrapPairs>) => (e === null ? Infinity : e.high - e.low);
    const tpr = pairs.length ? bootstrapPairs(h, j, truePositiveRate, seed('tpr')) : null;
    const tnr = pairs.length ? bootstrapPairs(h, j, trueNegativeRate, seed('tnr')) : null;
    const wantPass = width(tpr) >= width(tnr);
    const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
    const passScore = mean(judged.filter((r) => r.passed === true && r.score !== null).map((r) => r.score!));
    const failScore = mean(judged.filter((r) => r.passed === false && r.score !== null).map((r) => r.score!));
    const boundary = passScore !== null && failScore !== null ? (passScore + failScore) / 2 : null;
    const [first, then] = [open.filter((r) => r.passed === wantPass), open.filter((r) => r.passed !== wantPass)];
    order = [...nearest(first, boundary), ...nearest(then, boundary)];
    const which = wantPass ? 'true-positive rate' : 'true-negative rate';
    rule = `The ${which} has the widest interval, so traces the judge ${wantPass ? 'passed' : 'failed'} come first${boundary === null ? '' : `, those scored nearest its boundary (${boundary.toFixed(2)}) before the others`}.`;
  } else if (config.kind === 'categorical') {
    const seen = new Map<string, number>();
    for (const p of pairs) seen.set(String(judgeValue(p.result)), (seen.get(String(judgeValue(p.result))) ?? 0) + 1);
    order = [...open].sort((a, b) => (seen.get(String(judgeValue(a))) ?? 0) - (seen.get(String(judgeValue(b))) ?? 0));
    rule = 'Traces with the labels people have checked least come first.';
  } else {
    const centre = ((config.min ?? 0) + (config.max ?? 1)) / 2;
    order = nearest(open, centre);
    rule = `Traces scored nearest the middle of the range (${centre}) come first.`;
  }
  return {
    rule,
    unlabelled: open.length,
    data: order.slice(0, limit).map((r) => ({ traceId: r.traceId, judge: show(judgeValue(r)!), score: r.score, reasoning: r.details })),
  };
}
