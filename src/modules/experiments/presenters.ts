import type { z } from 'zod';
import type {
  evaluationSchema,
  executionSummarySchema,
  experimentSchema,
  resultRowSchema,
  runAggregateSchema,
  runResultsResponse,
  runSchema,
  runStatusResponse,
} from './schemas.ts';
import type * as store from './store.ts';

type Out<T extends z.ZodType> = z.output<T>;

export function presentExperiment(e: store.ExperimentRow & { runsCount: number; lastRunAt: number | null }): Out<typeof experimentSchema> {
  return {
    id: e.id,
    slug: e.slug,
    name: e.name,
    type: e.type,
    workflowId: e.workflowId,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
    runsCount: e.runsCount,
    lastRunAt: e.lastRunAt === null ? null : new Date(e.lastRunAt).toISOString(),
  };
}

/**
 * The name a run answers with: the one a person gave it; else, for a run an SDK logged, its id
 * (the caller's own: "nightly-2026-11-27", or the SDK's words); else, for a run the platform
 * started (whose id is random), one made of what tells runs apart when a team compares them:
 * each target's prompt and version (or its name), its model, and the start time (UTC, to the
 * minute), e.g. "support-answer v3 · openai/gpt-4o · 2026-11-29 09:14".
 */
export function runName(r: Pick<store.RunRow, 'name' | 'runId' | 'byPlatform' | 'targets' | 'createdAt'>): string {
  if (r.name) return r.name;
  if (!r.byPlatform) return r.runId;
  const what = r.targets.map((t) => {
    const prompt = t.promptId ? `${t.promptId}${t.promptVersion !== null ? ` v${t.promptVersion}` : ''}` : t.name;
    return t.model ? `${prompt} · ${t.model}` : prompt;
  });
  const started = new Date(r.createdAt).toISOString().slice(0, 16).replace('T', ' ');
  return [...what, started].join(' · ');
}

const timestampsOf = (r: store.RunRow) => ({ createdAt: r.createdAt, updatedAt: r.updatedAt, finishedAt: r.finishedAt, stoppedAt: r.stoppedAt });
const opt = (key: string, value: number | null | undefined) => (value === null || value === undefined ? {} : { [key]: value });

export function presentAggregate(
  dataset: store.DatasetAggregate | undefined,
  evaluations: store.EvaluationAggregate | undefined,
  evaluators: store.EvaluatorAggregate[],
  /** a server run's evaluators: what each id ran (none for SDK runs) */
  judges: { id: string; evaluator: string; version: number | null }[] = [],
): Out<typeof runAggregateSchema> {
  const judgeOf = (id: string) => {
    const j = judges.find((x) => x.id === id);
    return j ? { judge: j.evaluator, judgeVersion: j.version } : {};
  };
  return {
    ...opt('datasetCost', dataset?.costSum),
    ...opt('datasetAverageCost', dataset?.costAvg),
    ...opt('datasetAverageDuration', dataset?.durationAvg),
    ...opt('evaluationsCost', evaluations?.costSum),
    ...opt('evaluationsAverageCost', evaluations?.costAvg),
    ...opt('evaluationsAverageDuration', evaluations?.durationAvg),
    evaluations: Object.fromEntries(
      evaluators
        .filter((e) => e.processed > 0)
        .map((e) => [e.evaluator, { name: e.name ?? e.evaluator, averageScore: e.averageScore, ...opt('averagePassed', e.averagePassed), ...judgeOf(e.evaluator) }]),
    ),
  };
}

export function presentRun(r: store.RunRow, summary: Out<typeof runAggregateSchema>): Out<typeof runSchema> {
  return {
    experimentId: r.experimentId,
    runId: r.runId,
    name: runName(r),
    targets: r.targets,
    workflowVersion: null,
    timestamps: timestampsOf(r),
    progress: r.progress,
    total: r.total,
    summary,
  };
}

const presentRow = (d: store.ResultRowIn): Out<typeof resultRowSchema> => ({
  index: d.idx,
  repetition: d.repetition,
  targetId: d.targetId === '' ? null : d.targetId,
  entry: d.entry,
  predicted: d.predicted,
  cost: d.cost,
  duration: d.duration,
  error: d.error,
  traceId: d.traceId,
});

const presentEvaluation = (e: store.EvaluationIn): Out<typeof evaluationSchema> => ({
  evaluator: e.evaluator,
  name: e.name,
  targetId: e.targetId === '' ? null : e.targetId,
  status: e.status,
  index: e.idx,
  repetition: e.repetition,
  score: e.score,
  label: e.label,
  passed: e.passed,
  details: e.details,
  cost: e.cost,
  duration: e.duration,
  inputs: e.inputs,
});

export function presentResults(r: store.RunRow, results: { dataset: store.ResultRowIn[]; evaluations: store.EvaluationIn[] }): Out<typeof runResultsResponse> {
  return {
    experimentId: r.experimentId,
    runId: r.runId,
    projectId: r.projectId,
    workflowVersionId: r.workflowVersionId,
    progress: r.progress,
    total: r.total,
    targets: r.targets.length ? r.targets : null,
    dataset: results.dataset.map(presentRow),
    evaluations: results.evaluations.map(presentEvaluation),
    timestamps: timestampsOf(r),
  };
}

export function presentStatus(
  r: store.RunRow,
  facts: {
    dataset: store.DatasetAggregate | undefined;
    evaluations: store.EvaluationAggregate | undefined;
    evaluators: store.EvaluatorAggregate[];
    targets: store.TargetAggregate[];
    runUrl: string;
    /** a server run's evaluators: what each id ran (none for SDK runs) */
    judges?: { id: string; evaluator: string; version: number | null }[];
  },
): Out<typeof runStatusResponse> {
  const status = r.stoppedAt !== null ? 'stopped' : r.finishedAt !== null ? 'completed' : 'running';
  const endedAt = r.stoppedAt ?? r.finishedAt;
  const base = { runId: r.runId, name: runName(r), status, progress: r.progress, total: r.total, startedAt: r.createdAt } as const;
  if (endedAt === null) return { ...base };
  const totalPassed = facts.evaluators.reduce((s, e) => s + e.passed, 0);
  const totalFailed = facts.evaluators.reduce((s, e) => s + e.failed, 0);
  const rate = (passed: number, failed: number) => (passed + failed ? (100 * passed) / (passed + failed) : 0);
  const rows = facts.dataset?.rows ?? 0;
  const errors = facts.dataset?.errors ?? 0;
  const judgeOf = (id: string) => {
    const j = facts.judges?.find((x) => x.id === id);
    return j ? { judge: j.evaluator, judgeVersion: j.version } : {};
  };
  const summary: Out<typeof executionSummarySchema> = {
    runId: r.runId,
    totalCells: rows,
    completedCells: rows - errors,
    failedCells: errors,
    duration: Math.max(0, endedAt - r.createdAt),
    timestamps: {
      startedAt: r.createdAt,
      ...(r.finishedAt !== null ? { finishedAt: r.finishedAt } : {}),
      ...(r.stoppedAt !== null ? { stoppedAt: r.stoppedAt } : {}),
    },
    targets: facts.targets.map((t) => ({
      targetId: t.targetId,
      name: r.targets.find((x) => x.id === t.targetId)?.name ?? t.targetId,
      passed: t.passed,
      failed: t.failed,
      avgLatency: t.durationAvg ?? 0,
      totalCost: t.costSum ?? 0,
    })),
    evaluators: facts.evaluators.map((e) => ({
      evaluatorId: e.evaluator,
      name: e.name ?? e.evaluator,
      passed: e.passed,
      failed: e.failed,
      passRate: rate(e.passed, e.failed),
      ...opt('avgScore', e.averageScore),
      ...judgeOf(e.evaluator),
    })),
    totalPassed,
    totalFailed,
    passRate: rate(totalPassed, totalFailed),
    totalCost: (facts.dataset?.costSum ?? 0) + (facts.evaluations?.costSum ?? 0),
    runUrl: facts.runUrl,
  };
  return { ...base, finishedAt: endedAt, summary };
}
