import type { FastifyInstance } from 'fastify';
import type { JudgeAlignmentContext, JudgeExperimentsPort } from './context.ts';
import { judgeTrust } from './judge-trust.ts';
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
export function registerJudgeAlignment(app: FastifyInstance, ctx: JudgeAlignmentContext, experiments: JudgeExperimentsPort): void {
  judgeAlignmentRoutes(app, { ...ctx, experiments });
}
