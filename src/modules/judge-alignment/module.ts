import type { FastifyInstance } from 'fastify';
import type { JudgeAlignmentContext } from './context.ts';
import { measureAlignment } from './measure-alignment.ts';
import { judgeAlignmentRoutes } from './routes.ts';
import type { Trust } from './statistics.ts';

/** What the module offers the others (alerts, say): whether a judge can be trusted against a human score config. */
export interface JudgeTrustPort {
  trustOf(projectId: string, judge: { evaluator: string; version: number | null; scoreConfig: string }): Promise<{ state: Trust; reason: string }>;
}

/** The judge-alignment module's one entry: its routes, and its port. */
export function registerJudgeAlignment(app: FastifyInstance, ctx: JudgeAlignmentContext): JudgeTrustPort {
  judgeAlignmentRoutes(app, ctx);
  return {
    trustOf: async (projectId, judge) => {
      const a = await measureAlignment(ctx, projectId, { evaluator: judge.evaluator, version: judge.version === null ? undefined : String(judge.version), scoreConfig: judge.scoreConfig });
      return { state: a.trust.state, reason: a.trust.reason };
    },
  };
}
