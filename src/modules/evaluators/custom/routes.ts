import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { projectRoute, routeGroup } from '../../../platform/http/route-group.ts';
import type { EvaluatorsContext } from '../context.ts';
import { createCustom, customVersions, getCustom, listCustom, removeCustom, updateCustom } from './manage-custom.ts';
import { createCustomBody, customEvaluatorSchema, customListResponse, customVersionsResponse, slugParams, updateCustomBody, versionQuery } from './schemas.ts';


/** Custom evaluator routes (definitions and versions; running one is POST /api/evaluations/custom/{slug}/evaluate). */
export function customEvaluatorRoutes(app: FastifyInstance, ctx: EvaluatorsContext) {
  routeGroup(app, { prefix: '/api/custom-evaluators', errors: 'nested', tag: { name: 'custom evaluators', title: 'Custom evaluators' } }, (r, g) => {
    const project = projectRoute(r);

    project.get(
      '/',
      {
        config: { auth: { scope: 'project', permission: 'evaluators:view' } },
        schema: { summary: "The project's custom evaluators, each at its newest version", response: { 200: customListResponse } },
      },
      async (_req, { projectId }) => ({ data: await listCustom(ctx, projectId) }),
    );

    project.post(
      '/',
      {
        config: { auth: { scope: 'project', permission: 'evaluators:manage' } },
        schema: { summary: 'Create a custom LLM judge (its version 1)', body: createCustomBody, response: { 201: customEvaluatorSchema, ...g.errors(409) } },
      },
      async (req, scope, reply) => reply.status(201).send(await createCustom(ctx, scope, req.body)),
    );

    project.get(
      '/:slug',
      {
        config: { auth: { scope: 'project', permission: 'evaluators:view' } },
        schema: { params: slugParams, querystring: versionQuery, response: { 200: customEvaluatorSchema, ...g.errors(404) } },
      },
      (req, { projectId }) => getCustom(ctx, projectId, req.params.slug, req.query.version),
    );

    project.patch(
      '/:slug',
      {
        config: { auth: { scope: 'project', permission: 'evaluators:manage' } },
        schema: { summary: 'Change it: a changed prompt, model, parameter or answer saves a new version', params: slugParams, body: updateCustomBody, response: { 200: customEvaluatorSchema, ...g.errors(404) } },
      },
      (req, scope) => updateCustom(ctx, scope, req.params.slug, req.body),
    );

    project.delete(
      '/:slug',
      {
        config: { auth: { scope: 'project', permission: 'evaluators:manage' } },
        schema: { params: slugParams, response: { 200: z.object({ slug: z.string(), deleted: z.literal(true) }), ...g.errors(404) } },
      },
      (req, scope) => removeCustom(ctx, scope, req.params.slug),
    );

    project.get(
      '/:slug/versions',
      {
        config: { auth: { scope: 'project', permission: 'evaluators:view' } },
        schema: { params: slugParams, response: { 200: customVersionsResponse, ...g.errors(404) } },
      },
      async (req, { projectId }) => ({ data: await customVersions(ctx, projectId, req.params.slug) }),
    );
  });
}
