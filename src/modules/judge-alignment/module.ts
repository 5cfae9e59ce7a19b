import type { SpyglassModule } from '../../platform/module.ts';
import type { Database, Executor } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { ScoreConfigService } from '../annotations/index.ts';
import { resolveCustom, runDetached, type EvaluatorsContext } from '../evaluators/index.ts';
import { traceData } from '../monitors/index.ts';
import { addItems, createQueue, getQueue, queueExists, type ReviewDeps } from '../review/index.ts';
import type { Traces } from '../traces/index.ts';
import type { JudgeAlignmentContext, JudgeExperimentsPort } from './context.ts';
import { judgeTrust } from './judge-trust.ts';
import { deleteProjectTrustRule, deleteProjectVersionComparisons } from './store.ts';
import { judgeAlignmentRoutes } from './routes.ts';
import type { Trust } from './statistics.ts';

/** What the module offers the others (alerts, MCP answers): whether a judge can be trusted. */
export interface JudgeTrustPort {
  /**
   * The judge's trust against the human score config with the most labels on its traces (as the
   * app's badges show it); "not enough labels" when people labelled none of them.
   */
  trustOf(projectId: string, judge: { evaluator: string; version: number | null }): Promise<{ state: Trust; reason: string; scoreConfig: string | null }>;
}

/** The module's port, built with the services (the alerts module holds rules to it). */
export function buildJudgeAlignment(ctx: JudgeAlignmentContext): JudgeTrustPort {
  return {
    trustOf: async (projectId, judge) => {
      const answer = await judgeTrust(ctx, projectId, { evaluator: judge.evaluator, version: judge.version === null ? undefined : String(judge.version) });
      const best = answer.data[0];
      if (!best) return { state: 'not enough labels', reason: 'no human labels on its traces yet', scoreConfig: null };
      return { state: best.trust.state, reason: best.trust.reason, scoreConfig: best.scoreConfig.name };
    },
  };
}

/** The judge-alignment module's one entry: its routes; version comparisons run through the experiments module's judge runs. */
export const judgeAlignmentModule: SpyglassModule<{ judgeAlignment: { ctx: JudgeAlignmentContext }; experiments: JudgeExperimentsPort }> = {
  name: 'judge-alignment',
  register: ({ http }, { judgeAlignment, experiments }) => judgeAlignmentRoutes(http, { ...judgeAlignment.ctx, experiments }),
};

/** The ports the module takes from the others: review queues, traces' detail, the evaluators' runs and score configs. */
export interface JudgeAlignmentPorts {
  db: Database;
  clock: Clock;
  scoreConfigs: ScoreConfigService;
  review: ReviewDeps;
  traces: Pick<Traces, 'detail'>;
  evaluations: EvaluatorsContext;
  /** The organizations module: a deleted project's trust rule and version comparisons go in its transaction. */
  projects: { onProjectDeleted(listener: (tx: Executor, projectId: string) => Promise<void>): void };
}

/** The module's context over the ports other modules offer (and what goes with a deleted project). */
export function judgeAlignmentContext(ports: JudgeAlignmentPorts): JudgeAlignmentContext {
  const { review, traces, evaluations } = ports;
  ports.projects.onProjectDeleted((tx, projectId) => deleteProjectTrustRule(tx, projectId));
  ports.projects.onProjectDeleted((tx, projectId) => deleteProjectVersionComparisons(tx, projectId));
  return {
    db: ports.db,
    clock: ports.clock,
    scoreConfigs: ports.scoreConfigs,
    review: {
      queueExists: (projectId, queueId) => queueExists(review, projectId, queueId),
      queueName: async (scope, queueId) => (await getQueue(review, scope, queueId)).name,
      createQueue: (scope, name, scoreConfigIds) => createQueue(review, scope, { name, scoreConfigIds, memberUserIds: [] }),
      addTraces: (scope, queueId, traceIds) => addItems(review, scope, queueId, { items: traceIds.map((traceId) => ({ traceId })), limit: traceIds.length }),
    },
    judges: {
      traceData: async (projectId, traceId) => {
        const detail = await traces.detail(projectId, traceId).catch(() => null);
        return detail ? traceData(detail) : null;
      },
      versionExists: async (projectId, evaluator, version) => {
        if (!evaluator.startsWith('custom/')) return false;
        return resolveCustom(evaluations, projectId, evaluator.slice('custom/'.length), version).then(
          (found) => found !== null,
          () => false,
        );
      },
      run: (scope, evaluator, data, settings) => runDetached(evaluations, scope, evaluator, data, settings),
    },
  };
}
