import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { projectRoute, routeGroup } from '../../platform/http/route-group.ts';
import { isEvaluatorAlias } from './catalogue.ts';
import type { EvaluatorsContext } from './context.ts';
import { projectCatalogue } from './use-cases/list-catalogue.ts';
import { evaluate } from './use-cases/run-evaluation.ts';
import { catalogueResponse, evaluateBody, evaluationResultSchema, evaluatorParams } from './schemas.ts';

/** The answer header of as_guardrail requests: "true" when the guarded call may proceed. */
export const GUARDRAIL_HEADER = 'x-guardrail-passed';

/** Evaluator routes: the nested error shape. */
export function evaluationRoutes(app: FastifyInstance, ctx: EvaluatorsContext) {
  routeGroup(app, { prefix: '/api/evaluations', errors: 'nested', tag: { name: 'evaluations', title: 'Evaluations' } }, (r, g) => {
    const project = projectRoute(r);

    project.get(
      '/',
      {
        config: { auth: { scope: 'project', permission: 'evaluations:view' } },
        schema: {
          summary: "Every evaluator with its data fields, settings (JSON Schema, defaults) and required environment; the project's custom evaluators (custom/<slug>) last",
          response: { 200: catalogueResponse },
        },
      },
      async (_req, { organizationId, projectId }) => ({ evaluators: await projectCatalogue(ctx, { organizationId, projectId }) }),
    );

    project.post(
      '/:family/:name/evaluate',
      {
        config: { auth: { scope: 'project', permission: 'evaluations:create' } },
        schema: {
          summary:
            "Run an evaluator; answers an array of results (status processed, skipped or error). LangWatch's form answers one result object: a LangWatch evaluator name in the path (e.g. presidio/pii_detection) or a span_id key in the body (the LangWatch SDKs send one)",
          params: evaluatorParams,
          body: evaluateBody,
          // 404: no such evaluator; 502, 503, 504: the model provider of an LLM judge failed, is not configured, or timed out.
          response: { 200: z.union([z.array(evaluationResultSchema), evaluationResultSchema]), ...g.errors(404, 502, 503, 504) },
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
          const path = `${req.params.family}/${req.params.name}`;
          const outcome = await evaluate(ctx, { organizationId, projectId }, path, req.body, controller.signal);
          if (outcome.guardrailPassed !== null) void reply.header(GUARDRAIL_HEADER, String(outcome.guardrailPassed));
          // LangWatch's evaluate route answers one result; its SDKs read `status` of the body.
          const langWatchForm = isEvaluatorAlias(path) || 'span_id' in req.body;
          return langWatchForm ? outcome.results[0] : outcome.results;
        } finally {
          reply.raw.off('close', onClose);
        }
      },
    );
  });
}
