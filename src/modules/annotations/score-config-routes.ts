import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { projectRoute, routeGroup } from '../../platform/http/route-group.ts';
import type { AnnotationsContext } from './context.ts';
import { createScoreConfig, deleteScoreConfig, getScoreConfig, listScoreConfigs, updateScoreConfig } from './score-configs.ts';
import { createScoreConfigBody, scoreConfigParams, scoreConfigSchema, updateScoreConfigBody } from './scores.schema.ts';

const one = z.object({ data: scoreConfigSchema });

/** Score configs: what annotations and review queues score (the house's nested error shape). */
export function scoreConfigRoutes(app: FastifyInstance, ctx: AnnotationsContext) {
  routeGroup(app, { prefix: '/api/score-configs', errors: 'nested', tag: { name: 'score configs', title: 'Score configs' } }, (r, g) => {
    const project = projectRoute(r);
    project.get(
      '/',
      {
        config: { auth: { scope: 'project', permission: 'scoreConfigs:view' } },
        schema: { summary: "The project's score configs, by name", response: { 200: z.object({ data: z.array(scoreConfigSchema) }) } },
      },
      async (_req, scope) => ({ data: await listScoreConfigs(ctx, scope) }),
    );
    project.post(
      '/',
      {
        config: { auth: { scope: 'project', permission: 'scoreConfigs:create' } },
        schema: {
          summary: 'Create a score config: numeric (min..max, default 0..1), boolean, or categorical (named values)',
          body: createScoreConfigBody,
          response: { 201: one, ...g.errors(409) },
        },
      },
      async (req, scope, reply) => reply.status(201).send({ data: await createScoreConfig(ctx, scope, req.body) }),
    );
    project.get(
      '/:id',
      {
        config: { auth: { scope: 'project', permission: 'scoreConfigs:view' } },
        schema: { summary: 'One score config', params: scoreConfigParams, response: { 200: one, ...g.errors(404) } },
      },
      async (req, scope) => ({ data: await getScoreConfig(ctx, scope, req.params.id) }),
    );
    project.patch(
      '/:id',
      {
        config: { auth: { scope: 'project', permission: 'scoreConfigs:update' } },
        schema: {
          summary: 'Change the name, description, range or categories (the kind stays)',
          params: scoreConfigParams,
          body: updateScoreConfigBody,
          response: { 200: one, ...g.errors(404, 409) },
        },
      },
      async (req, scope) => ({ data: await updateScoreConfig(ctx, scope, req.params.id, req.body) }),
    );
    project.delete(
      '/:id',
      {
        config: { auth: { scope: 'project', permission: 'scoreConfigs:delete' } },
        schema: {
          summary: 'Delete a score config and the scores given by it',
          params: scoreConfigParams,
          response: { 200: z.object({ id: z.string(), deleted: z.literal(true) }), ...g.errors(404) },
        },
      },
      (req, scope) => deleteScoreConfig(ctx, scope, req.params.id),
    );
  });
}
