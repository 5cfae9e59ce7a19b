import type { z } from 'zod';
import { AppError, badRequest } from '../../platform/errors.ts';
import type { JudgeAlignmentContext } from './context.ts';
import { align } from './measure-alignment.ts';
import type { judgeTrustQuery, judgeTrustResponse } from './schemas.ts';

type Answer = z.output<typeof judgeTrustResponse>;

function count(text: string | undefined, fieldName: string): number | null {
  if (text === undefined) return null;
  const v = Number(text);
  if (text.trim() === '' || !Number.isInteger(v) || v < 0) throw badRequest('validation_error', `${fieldName}: a count (0, 1, 2, ...)`, fieldName);
  return v;
}

/**
 * GET /api/judge-alignment/trust: where a judge's numbers appear (monitors, runs, comparisons,
 * the MCP tools), whether it can be trusted: against every human score config people labelled
 * some of its traces with, most labels first. With `passed` and `judged`, that raw rate corrected
 * for the judge's measured errors.
 */
export async function judgeTrust(ctx: JudgeAlignmentContext, projectId: string, query: z.output<typeof judgeTrustQuery>): Promise<Answer> {
  const passed = count(query.passed, 'querystring.passed');
  const judged = count(query.judged, 'querystring.judged');
  if ((passed === null) !== (judged === null)) throw badRequest('validation_error', 'querystring.judged: give passed and judged together', 'querystring.judged');
  if (passed !== null && judged !== null && passed > judged) throw badRequest('validation_error', 'querystring.passed: at most judged', 'querystring.passed');
  const configs = await ctx.scoreConfigs.list(projectId);
  const data: Answer['data'] = [];
  for (const config of configs) {
    try {
      const { answer, correct } = await align(ctx, projectId, { evaluator: query.evaluator, version: query.version, scoreConfig: config.id });
      if (answer.n === 0) continue;
      data.push({ scoreConfig: answer.scoreConfig, n: answer.n, trust: answer.trust, corrected: passed !== null && judged !== null ? correct(passed, judged) : null });
    } catch (err) {
      // a config of another kind than the judge gives is no measure of it; a bad version is the caller's
      if (err instanceof AppError && err.code === 'kinds_do_not_match') continue;
      throw err;
    }
  }
  data.sort((a, b) => b.n - a.n);
  return { evaluator: query.evaluator, version: query.version === undefined ? null : Number(query.version), data };
}
