import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { projectRoute, routeGroup } from '../../platform/http/route-group.ts';
import type { EvaluationService } from './service.ts';
import { catalogueResponse, evaluateBody, evaluationResultSchema, evaluatorParams } from './schemas.ts';

const tags = ['evaluations'];

/** The answer header of as_guardrail requests: "true" when the guarded call may proceed. */
export const GUARDRAIL_HEADER = 'x-guardrail-passed';

/** Evaluator routes: the nested error shape. */
export function evaluationRoutes(app: FastifyInstance, service: EvaluationService) {
  routeGroup(app, { prefix: '/api/evaluations', errors: 'nested' }, (r, g) => {
    const project = projectRoute(r);

    project.get(
      '/',
      {
        config: { auth: { scope: 'project', permission: 'evaluations:view' } },
        schema: {
          tags,
          summary: 'Every evaluator with its data fields, settings (JSON Schema, defaults) and required environment',
          response: { 200: catalogueResponse },
        },
      },
      () => ({ evaluators: service.catalogue() }),
    );

    project.post(
      '/:family/:name/evaluate',
      {
        config: { auth: { scope: 'project', permission: 'evaluations:create' } },
        schema: {
          tags,
          summary: 'Run an evaluator; answers an array of results (status processed, skipped or error)',
          params: evaluatorParams,
          body: evaluateBody,
          // 404: no such evaluator; 502, 503, 504: the model provider of an LLM judge failed, is not configured, or timed out.
          response: { 200: z.array(evaluationResultSchema), ...g.errors(404, 502, 503, 504) },
        },
      },
      async (req, { organizationId, projectId }, reply) => {
        // A client that gives up stops the provider calls made on its behalf.
        const controller = new AbortController();
        const onClose = () => {
          if (!reply.raw.writableEnded) controller.abort(new Error('the client closed the connection'));
        };
        reply.raw.once('close', onClose);
        try {
          const outcome = await service.evaluate({ organizationId, projectId }, `${req.params.family}/${req.params.name}`, req.body, controller.signal);
          if (outcome.guardrailPassed !== null) void reply.header(GUARDRAIL_HEADER, String(outcome.guardrailPassed));
          return outcome.results;
        } finally {
          reply.raw.off('close', onClose);
        }
      },
    );
  });
}
