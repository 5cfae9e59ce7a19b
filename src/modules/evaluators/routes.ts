import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { EvaluationService } from './service.ts';
import { catalogueResponse, evaluateBody, evaluationResultSchema, evaluatorParams } from './schemas.ts';

const tags = ['evaluations'];

/** The answer header of as_guardrail requests: "true" when the guarded call may proceed. */
export const GUARDRAIL_HEADER = 'x-guardrail-passed';

export function evaluationRoutes(app: FastifyInstance, service: EvaluationService) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/api/evaluations',
    {
      config: { auth: { scope: 'project', permission: 'evaluations:view' }, errorShape: 'nested' },
      schema: {
        tags,
        summary: 'Every evaluator with its data fields, settings (JSON Schema, defaults) and required environment',
        response: { 200: catalogueResponse },
      },
    },
    () => ({ evaluators: service.catalogue() }),
  );

  r.post(
    '/api/evaluations/:family/:name/evaluate',
    {
      config: { auth: { scope: 'project', permission: 'evaluations:create' }, errorShape: 'nested' },
      schema: {
        tags,
        summary: 'Run an evaluator; answers an array of results (status processed, skipped or error)',
        params: evaluatorParams,
        body: evaluateBody,
        response: { 200: z.array(evaluationResultSchema) },
      },
    },
    async (req, reply) => {
      // A client that gives up stops the provider calls made on its behalf.
      const controller = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableEnded) controller.abort(new Error('the client closed the connection'));
      };
      reply.raw.once('close', onClose);
      try {
        const outcome = await service.evaluate(
          { organizationId: req.principal!.organizationId, projectId: req.projectId! },
          `${req.params.family}/${req.params.name}`,
          req.body,
          controller.signal,
        );
        if (outcome.guardrailPassed !== null) void reply.header(GUARDRAIL_HEADER, String(outcome.guardrailPassed));
        return outcome.results;
      } finally {
        reply.raw.off('close', onClose);
      }
    },
  );
}
