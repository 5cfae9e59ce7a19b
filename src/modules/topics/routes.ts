import type { FastifyInstance } from 'fastify';
import { projectRoute, routeGroup } from '../../platform/http/route-group.ts';
import type { TopicsContext } from './context.ts';
import { listTopicsWithMetrics } from './read-topics.ts';
import { requestRebuild } from './rounds.ts';
import { rebuildResponse, topicSettingsBody, topicSettingsResponse, topicsQuery, topicsResponse } from './schemas.ts';
import { getTopicSettings, topicsStatus, updateTopicSettings } from './settings.ts';


/** Topics: what users ask about, found by clustering traces' inputs. The nested error shape. */
export function topicRoutes(app: FastifyInstance, ctx: TopicsContext) {
  routeGroup(app, { prefix: '/api/topics', errors: 'nested', tag: { name: 'Topics', title: 'Topics' } }, (r) => {
    const project = projectRoute(r);

    project.get(
      '',
      {
        config: { auth: { scope: 'project', permission: 'traces:view' } },
        schema: { summary: "The project's topics, with their traces, errors, cost, thumbs, verdicts and traces per day over a range", querystring: topicsQuery, response: { 200: topicsResponse } },
      },
      (req, scope) => listTopicsWithMetrics(ctx, scope.projectId, req.query),
    );

    project.get(
      '/settings',
      {
        config: { auth: { scope: 'project', permission: 'project:view' } },
        schema: { summary: 'Which models find and name the topics, how often they are found again, and how the last build went', response: { 200: topicSettingsResponse } },
      },
      (_req, scope) => getTopicSettings(ctx, scope.projectId),
    );

    project.put(
      '/settings',
      {
        config: { auth: { scope: 'project', permission: 'project:update' } },
        schema: { summary: 'Set the embeddings model (null: topics off), the naming model and the schedule; applies from the next round', body: topicSettingsBody, response: { 200: topicSettingsResponse } },
      },
      (req, scope) => updateTopicSettings(ctx, scope, req.body),
    );

    project.post(
      '/rebuild',
      {
        config: { auth: { scope: 'project', permission: 'project:update' } },
        schema: { summary: 'Find the topics again at the next round (within a minute), from every embedded trace', response: { 202: rebuildResponse } },
      },
      async (_req, scope, reply) => {
        const requestedAt = await requestRebuild(ctx, scope.projectId);
        return reply.status(202).send({ requestedAt, status: await topicsStatus(ctx, scope.projectId) });
      },
    );
  });
}
