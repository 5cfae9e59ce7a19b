import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Metrics } from '../../platform/metrics.ts';
import type { EvaluatorPorts, EvaluatorsContext } from './context.ts';
import { customEvaluatorRoutes } from './custom/routes.ts';
import { evaluationRoutes } from './routes.ts';

/** The evaluators' context: its limits are the model gateway's own (one object). */
export function buildEvaluators(ports: EvaluatorPorts & { db: Database; clock: Clock; metrics: Metrics }): EvaluatorsContext {
  return { ...ports, limits: ports.models.limits };
}

/** The evaluators module's one entry: the evaluation routes and the custom evaluators' routes. */
export function registerEvaluators(app: FastifyInstance, ctx: EvaluatorsContext): void {
  evaluationRoutes(app, ctx);
  customEvaluatorRoutes(app, ctx);
}
