import { judgesOf } from './run-judges.ts';
import type { z } from 'zod';
import { badRequest } from '../../platform/errors.ts';
import type { ExperimentsContext } from './context.ts';
import * as cstore from './comparison-store.ts';
import { lenientPaging, pagination } from './paging.ts';
import { experimentOf, idList, METHODS, runsOf, runStatistics, statusOf } from './run-analysis.ts';
import { keyOf, presentRowEvaluation } from './run-rows.ts';
import type { compareResponse, compareRowsResponse, differenceSchema, evaluatorComparisonSchema, regressionsResponse, rowEvaluationSchema } from './schemas.ts';
import { derived, runValues } from './kept-run-values.ts';
import { byText, pairRuns, type EvaluatorPairs, type Flip } from './run-values.ts';
import { holm, mean, MIN_PAIRED_ROWS, pairedDifference, repeatedDifference, repeatedPairs, rowsNeeded, seedOf, signedCounts, verdictOf } from './statistics.ts';

type Difference = z.output<typeof differenceSchema>;
type EvaluatorComparison = z.output<typeof evaluatorComparisonSchema>;
export const MAX_COMPARED_RUNS = 10;

/**
 * The runs a comparison names, baseline first: `runs` (comma-separated), with `baseline` (else
 * the experiment's stored baseline, else the first run named) put first when not among them.
 */
async function comparedRuns(ctx: ExperimentsContext, projectId: string, slug: string, runsParam: string, baselineParam: string | undefined, max: number) {
  const named = idList(runsParam, 'querystring.runs');
  const experiment = await experimentOf(ctx, projectId, slug);
  const baseline = baselineParam ?? (experiment.baselineRunId !== null ? experiment.baselineRunId : named[0]);
  const runIds = [baseline, ...named.filter((id) => id !== baseline)];
  if (runIds.length < 2) {
    throw badRequest('validation_error', 'querystring.runs: name at least two runs, or one run when the experiment has a baseline (or `baseline` names one)', 'querystring.runs');
  }
  if (runIds.length > max) throw badRequest('validation_error', `querystring.runs: at most ${max} runs, baseline included`, 'querystring.runs');
  const heads = await runsOf(ctx, experiment, runIds, baselineParam !== undefined && baselineParam === baseline ? 'querystring.runs or querystring.baseline' : 'querystring.runs');
  return { experiment, runIds, heads };
}

/**
 * One difference of one evaluator: its interval and p-value before the Holm correction across the
 * run's evaluators (applied by `correct`, which sets the verdicts).
 */
function difference(base: number, current: number, values: Float64Array, seed: number, effect: number | null): Difference | null {
  const d = pairedDifference(values, seed);
  if (!d) return null;
  const needed = effect !== null ? rowsNeeded(d.sd, effect) : null;
  return {
    baseline: base,
    current,
    difference: d.difference,
    low: d.interval.low,
    high: d.interval.high,
    n: values.length,
    verdict: d.thin ? 'not enough data' : 'no detectable difference',
    pValue: d.pValue,
    adjustedPValue: d.pValue,
    minimumDetectableEffect: d.thin ? null : d.minimumDetectableEffect,
    notEnoughData: d.thin,
    rowsNeeded: d.thin === 'too few rows' ? Math.max(MIN_PAIRED_ROWS, needed ?? 0) : needed,
  };
}

/**
 * One evaluator of one run against the baseline: paired differences of mean score and pass rate,
 * all resampled with the comparison's one seed (the same data gives the same interval whatever
 * the evaluator or statistic).
 */
function compareEvaluator(seed: number, evaluator: string, name: string, paired: EvaluatorPairs | undefined, higherIsBetter: boolean, effect: number | null): EvaluatorComparison {
  const score = paired && paired.scoreN > 0 ? difference(paired.baseScore, paired.curScore, paired.scoreDiffs, seed, effect) : null;
  const passRate =
    paired && paired.passN > 0
      ? difference(
          paired.basePassed / paired.passN,
          paired.curPassed / paired.passN,
          signedCounts(paired.passMinus, paired.passN - paired.passMinus - paired.passPlus, paired.passPlus),
          seed,
          effect,
        )
      : null;
  const decidedBy = passRate ? 'passRate' : score ? 'score' : null;
  return {
    evaluator,
    name,
    higherIsBetter,
    decidedBy,
    verdict: passRate?.verdict ?? score?.verdict ?? 'not comparable',
    score,
    passRate,
    regressions: paired?.regressions ?? 0,
    improvements: paired?.improvements ?? 0,
    repetitions: null,
  };
}

/** One run's tries of one evaluator's value, by row key (index, target), each row's tries in order. */
function triesByRow(tries: cstore.TryResult[], runId: string, evaluator: string, value: (t: cstore.TryResult) => number | null): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const t of tries) {
    if (t.runId !== runId || t.evaluator !== evaluator) continue;
    const v = value(t);
    if (v === null) continue;
    const k = `${t.idx}\u0000${t.targetId}`;
    const list = out.get(k);
    if (list) list.push(v);
    else out.set(k, [v]);
  }
  return out;
}

const sd = (variance: number) => Math.sqrt(Math.max(0, variance));
const round = (x: number) => (Math.abs(x) >= 10 ? x.toFixed(1) : x.toPrecision(2));
/** tries per row as people count them: 3, or 2.5 on average */
const triesText = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));

/**
 * An evaluator compared when either run repeated its rows: each row's tries averaged before
 * pairing (the interval resamples rows), and the spread of the deciding difference split into the
 * noise within rows and the differences between rows (repeatedDifference).
 */
function compareRepeated(e: EvaluatorComparison, tries: cstore.TryResult[], baseRunId: string, runId: string, seed: number, effect: number | null): EvaluatorComparison {
  const sides = (value: (t: cstore.TryResult) => number | null) => {
    const base = triesByRow(tries, baseRunId, e.evaluator, value);
    const current = triesByRow(tries, runId, e.evaluator, value);
    const keys = [...base.keys()].filter((k) => current.has(k));
    return { base: keys.map((k) => Float64Array.from(base.get(k)!)), current: keys.map((k) => Float64Array.from(current.get(k)!)) };
  };
  const differenceOf = (side: ReturnType<typeof sides>) => {
    if (!side.base.length) return null;
    const baseMeans = Float64Array.from(side.base, (r) => mean(r));
    const curMeans = Float64Array.from(side.current, (r) => mean(r));
    return difference(mean(baseMeans), mean(curMeans), curMeans.map((v, i) => v - baseMeans[i]), seed, effect);
  };
  const scoreSide = sides((t) => t.score);
  const passSide = sides((t) => (t.passed === null ? null : t.passed ? 1 : 0));
  const score = differenceOf(scoreSide);
  const passRate = differenceOf(passSide);
  const decidedBy = passRate ? 'passRate' : score ? 'score' : null;
  const deciding = decidedBy === 'passRate' ? passSide : scoreSide;
  const spread = decidedBy ? repeatedDifference(repeatedPairs(deciding.base, deciding.current), seed) : null;
  const triesOf = (rows: Float64Array[]) => rows.reduce((n, r) => n + r.length, 0) / Math.max(1, rows.length);
  const repetitions = spread
    ? {
        baseline: triesOf(deciding.base),
        current: triesOf(deciding.current),
        rows: spread.rows,
        withinRowSd: sd(spread.withinRowVariance),
        betweenRowSd: sd(spread.betweenRowVariance),
        summary:
          `Rows were tried ${triesText(triesOf(deciding.base))} times on average in the baseline and ${triesText(triesOf(deciding.current))} in this run; ` +
          `each row's tries were averaged before pairing, so the interval rests on ${spread.rows} rows, not on every try. ` +
          `The ${decidedBy === 'passRate' ? 'pass-rate' : 'score'} difference varies by ${round(sd(spread.withinRowVariance))} (standard deviation) from one try of a row to the next ` +
          `(the application's and the judge's noise) and by ${round(sd(spread.betweenRowVariance))} from one row to another.`,
      }
    : null;
  return { ...e, decidedBy, score, passRate, verdict: passRate?.verdict ?? score?.verdict ?? 'not comparable', repetitions };
}

/**
 * Holm across the evaluators of one run: each deciding difference with enough data is one test,
 * its adjusted p-value sets its verdict; the other difference of an evaluator (shown, not
 * deciding) is held to Bonferroni over the same number, which Holm never undercuts. Answers the
 * number of tests.
 */
function correct(evaluators: EvaluatorComparison[]): number {
  const decidingOf = (e: EvaluatorComparison) => (e.decidedBy === null ? null : e[e.decidedBy]);
  const deciding = evaluators.map(decidingOf).filter((d): d is Difference => d !== null && d.notEnoughData === null);
  const k = deciding.length;
  const adjusted = new Map(holm(deciding.map((d) => d.pValue)).map((p, i) => [deciding[i], p]));
  for (const e of evaluators) {
    for (const d of [e.score, e.passRate]) {
      if (!d || d.notEnoughData) continue;
      d.adjustedPValue = adjusted.get(d) ?? Math.min(1, d.pValue * Math.max(1, k));
      d.verdict = verdictOf(d.difference, d.adjustedPValue, e.higherIsBetter);
    }
    e.verdict = decidingOf(e)?.verdict ?? 'not comparable';
  }
  return k;
}

/** `effect` of the query: a positive number, or 400 naming it. */
function effectOf(text: string | undefined): number | null {
  if (text === undefined) return null;
  const v = Number(text);
  if (!Number.isFinite(v) || v <= 0) throw badRequest('validation_error', 'querystring.effect: a positive difference to detect, such as 0.05', 'querystring.effect');
  return v;
}

/** Two runs' paired results (run-values.ts pairRuns), once per version of each run and process. */
async function pairsOf(ctx: ExperimentsContext, experimentId: string, base: cstore.RunHead, current: cstore.RunHead) {
  const baseValues = await runValues(ctx.db.orm, experimentId, base);
  return derived(ctx.db.orm, experimentId, current, `pairs:${base.runId}:${base.resultsVersion}`, (values) => pairRuns(baseValues, values));
}

/**
 * The context a comparison reads through: every statement of one comparison goes to one
 * place, a read replica when one is past the client's writes (DATABASE_READ_URL), else the primary.
 */
async function reading(ctx: ExperimentsContext): Promise<ExperimentsContext> {
  return { ...ctx, db: { ...ctx.db, orm: await ctx.db.reads.executor() } };
}

/** GET /api/experiments/{slug}/compare */
export async function compareRuns(
  primary: ExperimentsContext,
  projectId: string,
  slug: string,
  query: { runs: string; baseline?: string; lowerIsBetter?: string; effect?: string },
): Promise<z.output<typeof compareResponse>> {
  const ctx = await reading(primary);
  const effect = effectOf(query.effect);
  const lowerIsBetter = new Set(idList(query.lowerIsBetter, 'querystring.lowerIsBetter'));
  const { experiment, runIds, heads } = await comparedRuns(ctx, projectId, slug, query.runs, query.baseline, MAX_COMPARED_RUNS);
  const [baseRunId] = runIds;
  const [stats, pairs] = await Promise.all([
    Promise.all(heads.map((head) => runStatistics(ctx, experiment.id, head, false))),
    Promise.all(heads.slice(1).map((head) => pairsOf(ctx, experiment.id, heads[0], head))),
  ]);
  const tries = await cstore.repeatedTries(ctx.db.orm, experiment.id, runIds);
  const runs = heads.map((head, i) => ({ runId: head.runId, status: statusOf(head), createdAt: head.createdAt, overall: stats[i].overall }));
  const comparisons = [];
  for (const [i, run] of runs.slice(1).entries()) {
    const paired = pairs[i];
    const seed = seedOf(experiment.id, baseRunId, run.runId);
    const names = new Map<string, string>();
    for (const e of [...runs[0].overall.evaluators, ...run.overall.evaluators]) names.set(e.evaluator, names.get(e.evaluator) ?? e.name);
    const repeated = tries.some((t) => t.runId === run.runId || t.runId === baseRunId);
    const evaluators = [...names.keys()].sort().map((ev) => {
      const e = compareEvaluator(seed, ev, names.get(ev)!, paired.evaluators.find((p) => p.evaluator === ev), !lowerIsBetter.has(ev), effect);
      return repeated ? compareRepeated(e, tries, baseRunId, run.runId, seed, effect) : e;
    });
    const compared = correct(evaluators);
    const sharedRows = repeated ? await cstore.sharedRowKeys(ctx.db.orm, experiment.id, baseRunId, run.runId) : paired.shared;
    comparisons.push({ runId: run.runId, baselineRunId: baseRunId, sharedRows, correction: { method: 'holm' as const, compared }, minimumRows: MIN_PAIRED_ROWS, evaluators });
  }
  return {
    experimentId: experiment.id,
    experimentSlug: experiment.slug,
    baselineRunId: baseRunId,
    experimentBaselineRunId: experiment.baselineRunId,
    methods: METHODS,
    runs,
    comparisons,
    // the compared runs first: their evaluators are the ones the verdicts are about
    judges: await judgesOf(ctx.db.orm, experiment.id, [...runIds.slice(1), baseRunId], comparisons.flatMap((c) => c.evaluators.map((e) => e.evaluator))),
  };
}

type RowEvaluation = z.output<typeof rowEvaluationSchema>;

/** GET /api/experiments/{slug}/compare/rows: the runs' rows side by side, joined by (index, target). */
export async function compareRows(
  primary: ExperimentsContext,
  projectId: string,
  slug: string,
  query: { runs: string; page?: string; pageSize?: string; targetId?: string },
): Promise<z.output<typeof compareRowsResponse>> {
  const ctx = await reading(primary);
  const named = idList(query.runs, 'querystring.runs');
  if (named.length < 1 || named.length > MAX_COMPARED_RUNS) throw badRequest('validation_error', `querystring.runs: 1..${MAX_COMPARED_RUNS} run ids`, 'querystring.runs');
  const experiment = await experimentOf(ctx, projectId, slug);
  await runsOf(ctx, experiment, named, 'querystring.runs');
  const paging = lenientPaging(query);
  const target = query.targetId === undefined ? null : query.targetId;
  const { keys, total } = await cstore.pageKeys(ctx.db.orm, experiment.id, named, target, paging.pageSize, (paging.page - 1) * paging.pageSize);
  const [rows, evaluations, names] = [
    await cstore.rowsOf(ctx.db.orm, experiment.id, named, keys),
    await cstore.evaluationsOf(ctx.db.orm, experiment.id, named, keys),
    await cstore.evaluatorNames(ctx.db.orm, experiment.id, named),
  ];
  const cellKey = (runId: string, idx: number, targetId: string) => `${runId}\u0000${keyOf(idx, targetId)}`;
  // side by side, a row's first repetition (rows and evaluations come in repetition order)
  const rowBy = new Map<string, cstore.StoredRow>();
  for (const r of rows) if (!rowBy.has(cellKey(r.runId, r.idx, r.targetId))) rowBy.set(cellKey(r.runId, r.idx, r.targetId), r);
  const evalsBy = new Map<string, Record<string, RowEvaluation>>();
  for (const e of evaluations) {
    if (e.repetition !== rowBy.get(cellKey(e.runId, e.idx, e.targetId))?.repetition) continue;
    const k = cellKey(e.runId, e.idx, e.targetId);
    const m = evalsBy.get(k) ?? {};
    m[e.evaluator] = presentRowEvaluation(e);
    evalsBy.set(k, m);
  }
  return {
    experimentSlug: experiment.slug,
    runIds: named,
    evaluators: names.map((n) => ({ evaluator: n.evaluator, name: n.name ?? n.evaluator })),
    rows: keys.map((k) => {
      const cells = named.map((runId) => {
        const r = rowBy.get(cellKey(runId, k.idx, k.targetId));
        if (!r) return null;
        return {
          runId,
          predicted: r.predicted,
          cost: r.cost,
          duration: r.duration,
          error: r.error,
          traceId: r.traceId,
          evaluations: evalsBy.get(cellKey(runId, k.idx, k.targetId)) ?? {},
        };
      });
      const first = named.map((runId) => rowBy.get(cellKey(runId, k.idx, k.targetId))).find((r) => r !== undefined);
      return { index: k.idx, targetId: k.targetId === '' ? null : k.targetId, entry: first?.entry ?? {}, cells };
    }),
    pagination: pagination(paging, total),
  };
}

/** GET /api/experiments/{slug}/compare/regressions: results that flipped between the baseline and a run. */
export async function regressions(
  primary: ExperimentsContext,
  projectId: string,
  slug: string,
  query: { runs: string; baseline?: string; evaluator?: string; direction?: 'regressed' | 'improved'; page?: string; pageSize?: string },
): Promise<z.output<typeof regressionsResponse>> {
  const ctx = await reading(primary);
  const { experiment, runIds, heads } = await comparedRuns(ctx, projectId, slug, query.runs, query.baseline, 2);
  const [baseRunId, runId] = runIds;
  const paging = lenientPaging(query);
  const paired = (await pairsOf(ctx, experiment.id, heads[0], heads[1])).evaluators;
  const matching = paired
    .filter((p) => query.evaluator === undefined || p.evaluator === query.evaluator)
    .flatMap((p) => p.flips)
    .filter((f) => query.direction === undefined || f.direction === query.direction)
    // regressions first, then by index, target and evaluator
    .sort((x, y) => Number(y.direction === 'regressed') - Number(x.direction === 'regressed') || x.idx - y.idx || byText(x.targetId, y.targetId) || byText(x.evaluator, y.evaluator));
  const offset = (paging.page - 1) * paging.pageSize;
  const page = matching.slice(offset, offset + paging.pageSize);
  const keys = page.map((f) => ({ idx: f.idx, targetId: f.targetId }));
  const rows = await cstore.rowsOf(ctx.db.orm, experiment.id, runIds, keys);
  const evaluations = await cstore.evaluationsOf(ctx.db.orm, experiment.id, runIds, keys);
  const side = (run: string, f: Flip) => {
    const r = rows.find((x) => x.runId === run && x.idx === f.idx && x.targetId === f.targetId);
    const e = evaluations.find((x) => x.runId === run && x.idx === f.idx && x.targetId === f.targetId && x.evaluator === f.evaluator)!;
    return {
      status: e.status,
      score: e.score,
      passed: e.passed,
      label: e.label,
      details: e.details,
      predicted: r?.predicted ?? null,
      error: r?.error ?? null,
      traceId: r?.traceId ?? null,
    };
  };
  return {
    experimentSlug: experiment.slug,
    baselineRunId: baseRunId,
    runId,
    counts: { regressed: paired.reduce((s, p) => s + p.regressions, 0), improved: paired.reduce((s, p) => s + p.improvements, 0) },
    evaluators: paired.map((p) => ({ evaluator: p.evaluator, name: p.name ?? p.evaluator, regressed: p.regressions, improved: p.improvements })),
    rows: page.map((f) => ({
      index: f.idx,
      targetId: f.targetId === '' ? null : f.targetId,
      evaluator: f.evaluator,
      direction: f.direction,
      entry: (rows.find((x) => x.idx === f.idx && x.targetId === f.targetId && x.runId === runId) ?? rows.find((x) => x.idx === f.idx && x.targetId === f.targetId))?.entry ?? {},
      baseline: side(baseRunId, f),
      current: side(runId, f),
    })),
    pagination: pagination(paging, matching.length),
  };
}
