import type { z } from 'zod';
import { badRequest } from '../../platform/errors.ts';
import { judgeResultsByTrace, judgeResultVersions, type JudgeResultRow } from '../evaluators/index.ts';
import { judgeResultsOnRows, judgesOnRows, seedOf } from '../experiments/index.ts';
import type { JudgeAlignmentContext } from './context.ts';
import { threadPairs, threadResultVersions, type ThreadResult } from './thread-pairs.ts';
import { trustRuleOf } from './trust-rule.ts';
import type { alignmentQuery, alignmentResponse } from './schemas.ts';
import {
  accuracy,
  bootstrapPairs,
  confusion,
  correctedPassRate,
  kappa,
  meanAbsoluteError,
  spearman,
  trueNegativeRate,
  truePositiveRate,
  trustOf,
  type Estimate,
  type TrustRule,
} from './statistics.ts';

type Alignment = z.output<typeof alignmentResponse>;
const LISTED_DISAGREEMENTS = 50;

function numberParam(text: string | undefined, field: string, fallback: number, check: (v: number) => boolean, expected: string): number {
  if (text === undefined) return fallback;
  const v = Number(text);
  if (text.trim() === '' || !Number.isFinite(v) || !check(v)) throw badRequest('validation_error', `${field}: ${expected}`, field);
  return v;
}

/** A judge as its results name it, at a version (null: all versions), against a human score config. */
export interface JudgeRef {
  evaluator: string;
  version: number | null;
  scoreConfig: string;
}

type Result = JudgeResultRow | ThreadResult;
type Value = number | string | boolean;

/**
 * How a config's values are read and coded: the judge's answer of the config's kind (pass/fail
 * as 1/0, a score, a label), a value's code (boolean 1/0, a category's position, a number) and
 * a value as people read it.
 */
export function codingOf(config: { kind: string; categories: string[] }) {
  const judgeValue = (r: { passed: boolean | null; score: number | null; label: string | null }): number | string | null =>
    config.kind === 'boolean' ? (r.passed === null ? null : Number(r.passed)) : config.kind === 'numeric' ? r.score : r.label;
  const categories = config.kind === 'boolean' ? ['fail', 'pass'] : config.kind === 'categorical' ? config.categories : null;
  const codeOf = (v: number | string | boolean) => (config.kind === 'categorical' ? categories!.indexOf(String(v)) : Number(v));
  const show = (v: number | string): Value => (config.kind === 'boolean' ? Number(v) === 1 : config.kind === 'numeric' ? Number(v) : String(v));
  return { judgeValue, codeOf, categories, show };
}

/**
 * What a judge and people both said: the config, the judge's results of the config's kind, and
 * the pairs on traces both scored (coded: boolean 1/0, a category's position, a number).
 * Unknown config or version, or a judge that gives nothing of the config's kind: 400 naming it.
 */
export async function gatherPairs(
  ctx: JudgeAlignmentContext,
  projectId: string,
  judge: JudgeRef,
  fieldOf: (name: string) => string = (n) => `querystring.${n}`,
  options: { threads?: boolean } = {},
) {
  const { version } = judge;
  const human = await ctx.scoreConfigs.humanScores(projectId, judge.scoreConfig);
  if (!human) throw badRequest('unknown_score_config', `${fieldOf('scoreConfig')}: no score config ${judge.scoreConfig} in this project`, fieldOf('scoreConfig'));
  const known = async () =>
    (await judgeResultVersions(ctx.db, projectId, judge.evaluator)).includes(version!) ||
    (await judgesOnRows(ctx.db, projectId)).some((j) => j.evaluator === judge.evaluator && j.versions.includes(version!)) ||
    (!!options.threads && (await threadResultVersions(ctx, projectId, judge.evaluator)).includes(version!));
  if (version !== null && !(await known())) {
    throw badRequest('unknown_evaluator_version', `${fieldOf('version')}: ${judge.evaluator} has no results at version ${version}`, fieldOf('version'));
  }
  // With options.threads, the judge's results on whole threads count too, paired with people's scores of those threads.
  const threads = options.threads ? await threadPairs(ctx, projectId, judge.evaluator, version, human.config) : { results: [], scores: [] };
  // The judge's results on traces, then on experiment rows whose trace it did not judge itself (people score a row's trace).
  const onTraces = await judgeResultsByTrace(ctx.db, projectId, judge.evaluator, version);
  const judgedTraces = new Set(onTraces.map((r) => r.traceId));
  const onRows = (await judgeResultsOnRows(ctx.db, projectId, judge.evaluator, version)).filter((r) => !judgedTraces.has(r.traceId));
  const results: Result[] = [...onTraces, ...onRows, ...threads.results];
  const { config } = human;
  const { judgeValue, codeOf, show, categories } = codingOf(config);
  const judged = results.filter((r) => judgeValue(r) !== null);
  if (results.length > 0 && judged.length === 0) {
    const gives = config.kind === 'boolean' ? 'pass/fail' : config.kind === 'numeric' ? 'scores' : 'labels';
    throw badRequest('kinds_do_not_match', `${fieldOf('evaluator')}: ${judge.evaluator} gives no ${gives}, so it cannot be measured against ${config.kind} score config ${config.name}`, fieldOf('evaluator'));
  }
  const onThread = (r: Result) => 'threadId' in r;
  const byTrace = new Map(judged.filter((r) => !onThread(r)).map((r) => [r.traceId, r]));
  const byThreadTurn = new Map(judged.filter(onThread).map((r) => [r.traceId, r]));
  const pairs = [
    ...human.scores.map((s) => ({ traceId: s.traceId, human: s.value, result: byTrace.get(s.traceId) })),
    ...threads.scores.map((s) => ({ traceId: s.traceId, human: s.value, result: byThreadTurn.get(s.traceId) })),
  ]
    .filter((p): p is { traceId: string; human: number | string; result: Result } => p.result !== undefined)
    // a judge's label outside the config's categories cannot be placed in the matrix
    .filter((p) => config.kind !== 'categorical' || (codeOf(p.human) >= 0 && codeOf(judgeValue(p.result)!) >= 0));
  const h = Float64Array.from(pairs, (p) => codeOf(p.human));
  const j = Float64Array.from(pairs, (p) => codeOf(judgeValue(p.result)!));
  const labelled = new Set(human.scores.map((s) => s.traceId));
  // a numeric judge disagrees when it is off by more than a quarter of the config's range
  const disagreeing = pairs.filter((_, i) => (config.kind === 'numeric' ? Math.abs(h[i] - j[i]) > ((config.max ?? 1) - (config.min ?? 0)) / 4 : h[i] !== j[i]));
  return { config, judged, judgeValue, codeOf, categories, pairs, h, j, show, labelled, disagreeing };
}

/**
 * GET /api/judge-alignment: a judge against people on the traces both scored (docs/judge-alignment.md).
 * Boolean configs pair with the judge's pass/fail, categorical ones with its label, numeric ones
 * with its score; a judge that gives none of that kind cannot be measured (400 naming evaluator).
 * The trust rule is the project's (or the default); `atLeast` and `minimumLabels` override it for one answer.
 */
export async function measureAlignment(ctx: JudgeAlignmentContext, projectId: string, query: z.output<typeof alignmentQuery>): Promise<Alignment> {
  return (await align(ctx, projectId, query)).answer;
}

/**
 * The alignment, with what correcting another raw rate needs: the coded pairs and the seed
 * (another pass count is corrected with the same resamples as the judge's own).
 */
export async function align(ctx: JudgeAlignmentContext, projectId: string, query: z.output<typeof alignmentQuery>) {
  const version = query.version === undefined ? null : numberParam(query.version, 'querystring.version', 0, (v) => Number.isInteger(v) && v >= 1, 'a version number (1, 2, ...)');
  const stored = await trustRuleOf(ctx, projectId);
  const atLeast = numberParam(query.atLeast, 'querystring.atLeast', stored.atLeast, (v) => v >= -1 && v <= 1, 'a bound between -1 and 1');
  const minimumLabels = numberParam(query.minimumLabels, 'querystring.minimumLabels', stored.minimumLabels, (v) => Number.isInteger(v) && v >= 1 && v <= 100_000, 'a whole number of labels, 1..100000');
  const { config, judged, categories, pairs, h, j, show, judgeValue, disagreeing } = await gatherPairs(ctx, projectId, { evaluator: query.evaluator, version, scoreConfig: query.scoreConfig }, undefined, { threads: true });
  const seed = (stat: string) => seedOf(projectId, query.evaluator, String(version), config.id, stat);
  const n = pairs.length;
  const ordered = config.kind === 'categorical' && query.ordered === 'true';
  const est = (stat: Parameters<typeof bootstrapPairs>[2], name: string): Estimate | null => (n > 0 ? bootstrapPairs(h, j, stat, seed(name)) : null);

  let alignment: Pick<Alignment, 'confusion' | 'accuracy' | 'kappa' | 'truePositiveRate' | 'trueNegativeRate' | 'spearman' | 'meanAbsoluteError' | 'passRate'>;
  let rule: TrustRule;
  if (categories) {
    const k = categories.length;
    const kappaEstimate = est(kappa(k, ordered), 'kappa');
    const binary = config.kind === 'boolean';
    const passed = judged.filter((r) => r.passed === true).length;
    alignment = {
      confusion: confusion(h, j, k),
      accuracy: est((a, b) => accuracy(a, b), 'accuracy'),
      kappa: kappaEstimate,
      truePositiveRate: binary ? est(truePositiveRate, 'tpr') : null,
      trueNegativeRate: binary ? est(trueNegativeRate, 'tnr') : null,
      spearman: null,
      meanAbsoluteError: null,
      passRate: binary && judged.length > 0 ? { judged: judged.length, passed, raw: passed / judged.length, corrected: n > 0 ? correctedPassRate(passed, judged.length, h, j, seed('corrected')) : null } : null,
    };
    rule = { statistic: stored.statistic, atLeast, minimumLabels };
  } else {
    alignment = {
      confusion: null,
      accuracy: null,
      kappa: null,
      truePositiveRate: null,
      trueNegativeRate: null,
      spearman: est(spearman, 'spearman'),
      meanAbsoluteError: est(meanAbsoluteError, 'mae'),
      passRate: null,
    };
    rule = { statistic: 'spearman', atLeast, minimumLabels };
  }
  const held = rule.statistic === 'kappa' ? alignment.kappa : rule.statistic === 'accuracy' ? alignment.accuracy : alignment.spearman;
  const state = trustOf(held, n, rule);
  const bound = held ? held.low.toFixed(2) : 'undefined';
  const reason =
    state === 'not enough labels'
      ? n < minimumLabels
        ? `${n} of ${minimumLabels} labels`
        : `${rule.statistic} is undefined on these labels (one class only)`
      : `${rule.statistic}'s 95 % lower bound is ${bound} on ${n} labels; the bar is ${atLeast}`;

  const answer: Alignment = {
    evaluator: query.evaluator,
    version,
    scoreConfig: { id: config.id, name: config.name, kind: config.kind },
    n,
    trust: { state, rule, reason },
    categories,
    weighted: ordered,
    ...alignment,
    disagreements: disagreeing.slice(0, LISTED_DISAGREEMENTS).map((p) => ({
      traceId: p.traceId,
      ...('threadId' in p.result ? { threadId: p.result.threadId } : {}),
      human: show(p.human),
      judge: show(judgeValue(p.result)!),
      reasoning: p.result.details,
    })),
    moreDisagreements: Math.max(0, disagreeing.length - LISTED_DISAGREEMENTS),
  };
  const correct = (passedOf: number, judgedOf: number) => (config.kind === 'boolean' && n > 0 && judgedOf > 0 ? correctedPassRate(passedOf, judgedOf, h, j, seed('corrected')) : null);
  return { answer, correct };
}
