import type { z } from 'zod';
import { newId } from '../../platform/ids.ts';
import { badRequest, notFound } from '../../platform/errors.ts';
import { enqueueJobs, type ClaimedJob } from '../../platform/jobs/index.ts';
import { MIN_PAIRED_ROWS, pairedDifference, seedOf, verdictOf } from '../experiments/index.ts';
import type { ActingScope, JudgeAlignmentContext } from './context.ts';
import { gatherPairs } from './measure-alignment.ts';
import { PARALLEL_CALLS, pool } from './run-pool.ts';
import type { versionComparisonBody, versionComparisonSchema } from './schemas.ts';
import { accuracy, bootstrapPairs, kappa, meanAbsoluteError } from './statistics.ts';
import * as store from './store.ts';

type View = z.output<typeof versionComparisonSchema>;
type Result = NonNullable<View['result']>;
const field = (name: string) => `body.${name}`;
export const VERSION_COMPARISON_QUEUE = 'judge-version-comparison';
/** Items whose answers changed, listed in the result. */
const LISTED_CHANGES = 50;

/**
 * POST /api/judge-alignment/version-comparisons: checks what can be checked now (the judge, both
 * versions, the config, items to run on) and queues the run; GET .../{id} follows it.
 */
export async function startVersionComparison(ctx: JudgeAlignmentContext, scope: ActingScope, body: z.output<typeof versionComparisonBody>): Promise<View> {
  if (!body.evaluator.startsWith('custom/')) {
    throw badRequest('not_a_custom_judge', `${field('evaluator')}: only a custom judge (custom/<slug>) has versions to compare; ${body.evaluator} has none`, field('evaluator'));
  }
  if (body.candidateVersion === body.version) throw badRequest('validation_error', `${field('candidateVersion')}: the same version as version; choose another`, field('candidateVersion'));
  if (!(await ctx.judges.versionExists(scope.projectId, body.evaluator, body.candidateVersion))) {
    throw badRequest('unknown_evaluator_version', `${field('candidateVersion')}: ${body.evaluator} has no version ${body.candidateVersion}`, field('candidateVersion'));
  }
  const { config, pairs } = await gatherPairs(ctx, scope.projectId, body, field);
  if (pairs.length === 0) {
    throw badRequest('nothing_to_compare', `${field('scoreConfig')}: no trace has both a label of ${config.name} and a result of ${body.evaluator} version ${body.version}`, field('scoreConfig'));
  }
  const now = ctx.clock.now().getTime();
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
    createdAt: now,
    finishedAt: null,
  };
  await ctx.db.orm.transaction(async (tx) => {
    await store.insertVersionComparison(tx, row);
    await enqueueJobs(tx, [{ queue: VERSION_COMPARISON_QUEUE, payload: { id: row.id }, runAt: now, maxAttempts: 3 }], now);
  });
  return present(row, { id: config.id, name: config.name, kind: config.kind });
}

export async function getVersionComparison(ctx: JudgeAlignmentContext, projectId: string, id: string): Promise<View> {
  const row = await store.findVersionComparison(ctx.db.orm, projectId, id);
  if (!row) throw notFound('version_comparison_not_found', `no version comparison ${id} in this project`);
  return present(row, await configOf(ctx, projectId, row.scoreConfigId));
}

export async function listVersionComparisons(ctx: JudgeAlignmentContext, projectId: string, evaluator: string): Promise<{ data: View[] }> {
  const found = await store.listVersionComparisons(ctx.db.orm, projectId, evaluator, 20);
  const configs = new Map((await ctx.scoreConfigs.list(projectId)).map((c) => [c.id, { id: c.id, name: c.name, kind: c.kind }]));
  return { data: found.map((r) => present(r, configs.get(r.scoreConfigId) ?? null)) };
}

async function configOf(ctx: JudgeAlignmentContext, projectId: string, id: string) {
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
    result: (row.result as Result | null) ?? null,
  };
}

/**
 * The queued run: the new version on each item's trace (what the trace gives a judge, as monitors
 * give it), set against the old version's stored result and people's label on the same item. A
 * failure no retry mends (a config or version deleted since) is stored as the comparison's error.
 */
export async function runVersionComparison(ctx: JudgeAlignmentContext, job: ClaimedJob<{ id: string }>): Promise<void> {
  const row = await store.findVersionComparisonById(ctx.db.orm, job.payload.id);
  if (!row || row.status !== 'running') return;
  const finish = (outcome: { status: 'done' | 'failed'; result: Result | null; error: string | null }) =>
    store.finishVersionComparison(ctx.db.orm, row.id, { ...outcome, finishedAt: ctx.clock.now().getTime() });
  let gathered;
  try {
    gathered = await gatherPairs(ctx, row.projectId, { evaluator: row.evaluator, version: row.baselineVersion, scoreConfig: row.scoreConfigId }, field);
  } catch (err) {
    await finish({ status: 'failed', result: null, error: err instanceof Error ? err.message : String(err) });
    return;
  }
  const { config, pairs, h, j, codeOf, judgeValue, show } = gathered;
  const items = pairs.slice(0, row.itemLimit);
  const scope = { organizationId: row.organizationId, projectId: row.projectId };
  const answers = await pool(
    items.map((item) => async () => {
      const data = await ctx.judges.traceData(row.projectId, item.traceId);
      if (!data) return null;
      const r = await ctx.judges.run(scope, row.evaluator, data, { version: row.candidateVersion });
      if (r.status !== 'processed') return null;
      const v = judgeValue({ traceId: item.traceId, passed: r.passed ?? null, score: r.score ?? null, label: r.label ?? null, details: r.details ?? null });
      const code = v === null ? -1 : codeOf(v);
      return code < 0 || !Number.isFinite(code) ? null : code;
    }),
    PARALLEL_CALLS,
  );
  const kept = items.map((_, i) => i).filter((i) => answers[i] !== null);
  const human = Float64Array.from(kept, (i) => h[i]);
  const before = Float64Array.from(kept, (i) => j[i]);
  const after = Float64Array.from(kept, (i) => answers[i]!);
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
      .map(({ i, x }) => ({ traceId: items[i].traceId, human: show(items[i].human), baseline: show(judgeValue(items[i].result)!), candidate: decode(config, after[x]) })),
  };
  Object.assign(result, verdictInWords(result, row.baselineVersion, row.candidateVersion, paired));
  await finish({ status: 'done', result, error: null });
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

