import type { z } from 'zod';
import { newId } from '../../platform/ids.ts';
import { AppError, badRequest, notFound } from '../../platform/errors.ts';
import { MIN_PAIRED_ROWS, pairedDifference, seedOf, verdictOf } from '../experiments/index.ts';
import type { ActingScope, VersionComparisonContext } from './context.ts';
import { codingOf, gatherPairs } from './measure-alignment.ts';
import { pool } from '../../platform/task-pool.ts';
import { PARALLEL_CALLS } from './parallel-calls.ts';
import type { versionComparisonBody, versionComparisonSchema } from './schemas.ts';
import { accuracy, bootstrapPairs, kappa, meanAbsoluteError } from './statistics.ts';
import * as store from './store.ts';

type View = z.output<typeof versionComparisonSchema>;
type Result = NonNullable<View['result']>;
type Item = NonNullable<store.VersionComparisonRow['items']>[number];
const field = (name: string) => `body.${name}`;
/** Items whose answers changed, listed in the result. */
const LISTED_CHANGES = 50;
/** The experiment a judge's version comparisons run in: one per judge, a run per comparison. */
export const comparisonExperimentSlug = (evaluator: string) => `judge-versions-${evaluator.replace(/^custom\//, '')}`;

/**
 * POST /api/judge-alignment/version-comparisons: checks what can be checked now (the judge, both
 * versions, the config, items to run on), then starts an experiment run whose target is the new
 * version and whose rows are the labelled items (each with what the trace gives a judge, as
 * monitors give it, people's value and the measured version's). GET .../{id} follows it; once
 * the run ended, the comparison is made from its rows.
 */
export async function startVersionComparison(ctx: VersionComparisonContext, scope: ActingScope, body: z.output<typeof versionComparisonBody>, origin: string): Promise<View> {
  if (!body.evaluator.startsWith('custom/')) {
    throw badRequest('not_a_custom_judge', `${field('evaluator')}: only a custom judge (custom/<slug>) has versions to compare; ${body.evaluator} has none`, field('evaluator'));
  }
  if (body.candidateVersion === body.version) throw badRequest('validation_error', `${field('candidateVersion')}: the same version as version; choose another`, field('candidateVersion'));
  if (!(await ctx.judges.versionExists(scope.projectId, body.evaluator, body.candidateVersion))) {
    throw badRequest('unknown_evaluator_version', `${field('candidateVersion')}: ${body.evaluator} has no version ${body.candidateVersion}`, field('candidateVersion'));
  }
  const { config, pairs, judgeValue, show } = await gatherPairs(ctx, scope.projectId, body, field);
  if (pairs.length === 0) {
    throw badRequest('nothing_to_compare', `${field('scoreConfig')}: no trace has both a label of ${config.name} and a result of ${body.evaluator} version ${body.version}`, field('scoreConfig'));
  }
  const chosen = pairs.slice(0, body.limit);
  const data = await pool(
    chosen.map((p) => () => ctx.judges.traceData(scope.projectId, p.traceId)),
    PARALLEL_CALLS,
  );
  const rows: Record<string, unknown>[] = [];
  const items: Item[] = chosen.map((p, i) => {
    const human = show(p.human);
    const baseline = show(judgeValue(p.result)!);
    const traced = data[i];
    if (!traced) return { traceId: p.traceId, human, baseline, row: null };
    rows.push({ ...traced, trace_id: p.traceId, people: human, [`version_${body.version}`]: baseline });
    return { traceId: p.traceId, human, baseline, row: rows.length - 1 };
  });
  const run = await ctx.experiments
    .startJudgeRun(
      scope,
      {
        slug: comparisonExperimentSlug(body.evaluator),
        name: `Judge ${body.evaluator}: new versions on people's labels`,
        evaluator: body.evaluator,
        version: body.candidateVersion,
        rows,
        traceColumn: 'trace_id',
        field: field('evaluator'),
      },
      origin,
    )
    .catch((err: unknown) => {
      // the judge's provider gone or its settings refused: the new version cannot run
      if (err instanceof AppError && err.status === 400) throw badRequest(err.code, err.message.replace(field('evaluator'), field('candidateVersion')), field('candidateVersion'));
      throw err;
    });
  const row: store.VersionComparisonRow = {
    id: newId('jvc'),
    organizationId: scope.organizationId,
    projectId: scope.projectId,
    evaluator: body.evaluator,
    baselineVersion: body.version,
    candidateVersion: body.candidateVersion,
    scoreConfigId: config.id,
    itemLimit: body.limit,
    status: 'running',
    error: null,
    result: null,
    createdBy: scope.userId ?? null,
    createdAt: ctx.clock.now().getTime(),
    finishedAt: null,
    experimentSlug: run.experimentSlug,
    runId: run.runId,
    runUrl: run.runUrl,
    items,
  };
  await store.insertVersionComparison(ctx.db.orm, row);
  return present(row, { id: config.id, name: config.name, kind: config.kind });
}

export async function getVersionComparison(ctx: VersionComparisonContext, projectId: string, id: string): Promise<View> {
  const row = await store.findVersionComparison(ctx.db.orm, projectId, id);
  if (!row) throw notFound('version_comparison_not_found', `no version comparison ${id} in this project`);
  return present(await settle(ctx, row), await configOf(ctx, projectId, row.scoreConfigId));
}

export async function listVersionComparisons(ctx: VersionComparisonContext, projectId: string, evaluator: string): Promise<{ data: View[] }> {
  const found = await store.listVersionComparisons(ctx.db.orm, projectId, evaluator, 20);
  const configs = new Map((await ctx.scoreConfigs.list(projectId)).map((c) => [c.id, { id: c.id, name: c.name, kind: c.kind }]));
  const settled = [];
  for (const r of found) settled.push(await settle(ctx, r));
  return { data: settled.map((r) => present(r, configs.get(r.scoreConfigId) ?? null)) };
}

async function configOf(ctx: VersionComparisonContext, projectId: string, id: string) {
  const c = (await ctx.scoreConfigs.list(projectId)).find((x) => x.id === id);
  return c ? { id: c.id, name: c.name, kind: c.kind } : null;
}

function present(row: store.VersionComparisonRow, scoreConfig: View['scoreConfig']): View {
  return {
    id: row.id,
    evaluator: row.evaluator,
    scoreConfig,
    baselineVersion: row.baselineVersion,
    candidateVersion: row.candidateVersion,
    limit: row.itemLimit,
    status: row.status,
    error: row.error,
    createdAt: row.createdAt,
    finishedAt: row.finishedAt,
    run: row.experimentSlug && row.runId ? { experimentSlug: row.experimentSlug, runId: row.runId, url: row.runUrl ?? '' } : null,
    result: (row.result as Result | null) ?? null,
  };
}

/**
 * A running comparison whose run ended, made and stored: the new version's answer on each item
 * (its row of the run) set against people's label and the measured version's answer on the same
 * item. A score config deleted since, or the run gone, is the comparison's error.
 */
async function settle(ctx: VersionComparisonContext, row: store.VersionComparisonRow): Promise<store.VersionComparisonRow> {
  if (row.status !== 'running' || !row.experimentSlug || !row.runId) return row;
  const finish = async (outcome: { status: 'done' | 'failed'; result: Result | null; error: string | null }) => {
    const done = { ...outcome, finishedAt: ctx.clock.now().getTime() };
    await store.finishVersionComparison(ctx.db.orm, row.id, done);
    return { ...row, ...done };
  };
  const run = await ctx.experiments.judgeRunAnswers(row.projectId, row.experimentSlug, row.runId).catch((err: unknown) => {
    if (err instanceof AppError && err.status === 404) return null;
    throw err;
  });
  if (!run) return finish({ status: 'failed', result: null, error: `its run ${row.runId} of experiment ${row.experimentSlug} is gone` });
  if (run.status === 'running') return row;
  const config = (await ctx.scoreConfigs.list(row.projectId)).find((c) => c.id === row.scoreConfigId);
  if (!config) return finish({ status: 'failed', result: null, error: `score config ${row.scoreConfigId} was deleted` });
  return finish({ status: 'done', result: compare(row, config, run.answers), error: null });
}

/** The comparison of the two versions' agreement with people, item by item, from the run's answers. */
function compare(row: store.VersionComparisonRow, config: { id: string; kind: string; categories: string[] }, answers: { index: number; output: unknown; error: string | null }[]): Result {
  const { judgeValue, codeOf } = codingOf(config);
  const byRow = new Map(answers.map((a) => [a.index, a]));
  const items = row.items ?? [];
  const answerOf = (item: Item): number | null => {
    const a = item.row === null ? undefined : byRow.get(item.row);
    const output = a && a.error === null ? (a.output as { passed?: boolean | null; score?: number | null; label?: string | null } | null) : null;
    if (!output) return null;
    const v = judgeValue({ passed: output.passed ?? null, score: output.score ?? null, label: output.label ?? null });
    const code = v === null ? -1 : codeOf(v);
    return code < 0 || !Number.isFinite(code) ? null : code;
  };
  const answered = items.map(answerOf);
  const kept = items.map((_, i) => i).filter((i) => answered[i] !== null);
  const human = Float64Array.from(kept, (i) => codeOf(items[i].human));
  const before = Float64Array.from(kept, (i) => codeOf(items[i].baseline));
  const after = Float64Array.from(kept, (i) => answered[i]!);
  const numeric = config.kind === 'numeric';
  const seed = seedOf(row.projectId, row.evaluator, String(row.baselineVersion), String(row.candidateVersion), config.id, 'version-comparison');
  const k = config.kind === 'boolean' ? 2 : config.kind === 'categorical' ? config.categories.length : 0;
  const statistic = numeric ? meanAbsoluteError : accuracy;
  const versionOf = (version: number, judge: Float64Array) => ({
    version,
    agreement: kept.length ? bootstrapPairs(human, judge, statistic, seed) : null,
    kappa: !numeric && kept.length ? bootstrapPairs(human, judge, kappa(k, false), seed) : null,
  });
  // per item: the new version's agreement with people less the old one's (numbers: absolute errors)
  const differences = Float64Array.from(kept.map((_, x) =>
    numeric ? Math.abs(after[x] - human[x]) - Math.abs(before[x] - human[x]) : Number(after[x] === human[x]) - Number(before[x] === human[x]),
  ));
  const paired = pairedDifference(differences, seed);
  const result: Result = {
    statistic: numeric ? 'meanAbsoluteError' : 'accuracy',
    n: kept.length,
    unmeasured: items.length - kept.length,
    baseline: versionOf(row.baselineVersion, before),
    candidate: versionOf(row.candidateVersion, after),
    difference: paired ? { value: paired.difference, low: paired.interval.low, high: paired.interval.high, pValue: paired.pValue, minimumDetectableEffect: paired.minimumDetectableEffect } : null,
    verdict: 'not enough data',
    itemsNeeded: null,
    summary: '',
    changed: kept
      .map((i, x) => ({ i, x }))
      .filter(({ x }) => after[x] !== before[x])
      .slice(0, LISTED_CHANGES)
      .map(({ i, x }) => ({ traceId: items[i].traceId, human: items[i].human, baseline: items[i].baseline, candidate: decode(config, after[x]) })),
  };
  Object.assign(result, verdictInWords(result, row.baselineVersion, row.candidateVersion, paired));
  return result;
}

function decode(config: { kind: string; categories: string[] }, code: number): number | string | boolean {
  return config.kind === 'boolean' ? code === 1 : config.kind === 'categorical' ? config.categories[code] : code;
}

/**
 * The verdict and its sentence: "version 3 agrees with people more than version 2: +0.12 accuracy
 * [0.05, 0.19], n=80". Below MIN_PAIRED_ROWS items, or when every item moved by the same amount,
 * "not enough data" with the items needed.
 */
export function verdictInWords(
  r: Pick<Result, 'statistic' | 'n'>,
  baseline: number,
  candidate: number,
  paired: ReturnType<typeof pairedDifference>,
): Pick<Result, 'verdict' | 'itemsNeeded' | 'summary'> {
  const name = r.statistic === 'accuracy' ? 'accuracy' : 'mean absolute error';
  if (!paired || paired.thin) {
    const why = !paired ? 'the new version answered on no item' : paired.thin === 'too few rows' ? `${r.n} items both versions judged` : 'every item moved by the same amount, so there is no spread to measure';
    return { verdict: 'not enough data', itemsNeeded: MIN_PAIRED_ROWS, summary: `Not enough data to compare version ${candidate} with version ${baseline}: ${why}; at least ${MIN_PAIRED_ROWS} items with labels and answers from both are needed.` };
  }
  const higherIsBetter = r.statistic === 'accuracy';
  const verdict = verdictOf(paired.difference, paired.pValue, higherIsBetter);
  const f = (v: number) => (v >= 0 ? '+' : '') + v.toFixed(2);
  const numbers = `${f(paired.difference)} ${name} [${paired.interval.low.toFixed(2)}, ${paired.interval.high.toFixed(2)}], n=${r.n}`;
  const summary =
    verdict === 'better'
      ? `Version ${candidate} agrees with people more than version ${baseline}: ${numbers}.`
      : verdict === 'worse'
        ? `Version ${candidate} agrees with people less than version ${baseline}: ${numbers}.`
        : paired.sd === 0
          ? `No detectable difference between version ${candidate} and version ${baseline}: both agreed with people on the same ${r.n} items.`
          : `No detectable difference between version ${candidate} and version ${baseline}: ${numbers}; on ${r.n} items a difference under ${paired.minimumDetectableEffect.toFixed(2)} would go unseen.`;
  return { verdict, itemsNeeded: null, summary };
}

