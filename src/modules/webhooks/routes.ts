import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { projectRoute, routeGroup } from '../../platform/http/route-group.ts';
import { eventTypeCatalogue } from './catalogue.ts';
import type { WebhooksContext } from './context.ts';
import { listDeliveries, sendTest } from './deliveries.ts';
import { rollSecret } from './endpoint-secrets.ts';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoints, updateEndpoint } from './manage-endpoints.ts';
import {
  attemptSchema,
  createEndpointBody,
  createdEndpointSchema,
  deliveriesQuery,
  endpointSchema,
  eventTypeSchema,
  rolledSecretSchema,
  testDispatchSchema,
  updateEndpointBody,
} from './schemas.ts';

const idParams = z.object({ id: z.string().min(1).max(100) });
const view = { auth: { scope: 'project', permission: 'webhookEndpoints:view' } } as const;
const manage = { auth: { scope: 'project', permission: 'webhookEndpoints:manage' } } as const;

/**
 * Webhook routes. Endpoints belong to a project: project keys need nothing more, organization
 * keys name the project with X-Project-Id. The nested error shape (spec: Errors).
 */
export function webhookRoutes(app: FastifyInstance, ctx: WebhooksContext) {
  routeGroup(app, { prefix: '/api/webhooks/v1', errors: 'nested', tag: { name: 'webhooks', title: 'Webhooks' } }, (r, g) => {
    const project = projectRoute(r);

    project.get(
      '/event-types',
      {
        config: view,
        schema: {
          summary: 'Every subscribable event type, grouped by family; is_emitting false: declared, no producer yet',
          response: { 200: z.object({ data: z.array(eventTypeSchema) }) },
        },
      },
      () => ({ data: eventTypeCatalogue() }),
    );

    project.post(
      '/endpoints',
      {
        config: manage,
        schema: {
          summary: 'Subscribe a URL to events of this project; the whsec_ signing secret is answered once',
          body: createEndpointBody,
          response: { 201: z.object({ data: createdEndpointSchema }), ...g.errors(409) },
        },
      },
      async (req, { principal, projectId }, reply) => {
        const created = await createEndpoint(ctx, principal, projectId, req.body);
        return reply.status(201).send({ data: created });
      },
    );

    project.get(
      '/endpoints',
      {
        config: view,
        schema: { summary: "The project's webhook endpoints, newest first", response: { 200: z.object({ data: z.array(endpointSchema) }) } },
      },
      async (_req, { projectId }) => ({ data: await listEndpoints(ctx, projectId) }),
    );

    project.get(
      '/endpoints/:id',
      { config: view, schema: { params: idParams, response: { 200: z.object({ data: endpointSchema }), ...g.errors(404) } } },
      async (req, { projectId }) => ({ data: await getEndpoint(ctx, projectId, req.params.id) }),
    );

    project.patch(
      '/endpoints/:id',
      {
        config: manage,
        schema: {
          summary: 'Change an endpoint; {"enabled": true} re-enables one the dispatcher disabled',
          params: idParams,
          body: updateEndpointBody,
          response: { 200: z.object({ data: endpointSchema }), ...g.errors(404) },
        },
      },
      async (req, { principal, projectId }) => ({ data: await updateEndpoint(ctx, principal, projectId, req.params.id, req.body) }),
    );

    project.delete(
      '/endpoints/:id',
      {
        config: manage,
        schema: { summary: 'Delete an endpoint, its queued batches and its delivery log', params: idParams, response: { 204: z.null(), ...g.errors(404) } },
      },
      async (req, { projectId }, reply) => {
        await deleteEndpoint(ctx, projectId, req.params.id);
        return reply.status(204).send(null);
      },
    );

    project.post(
      '/endpoints/:id/test',
      {
        config: manage,
        schema: {
          summary: 'Queue a webhook.test event for this endpoint alone; its attempts appear in the deliveries log',
          params: idParams,
          response: { 202: z.object({ data: testDispatchSchema }), ...g.errors(404, 409) },
        },
      },
      async (req, { projectId }, reply) => reply.status(202).send({ data: await sendTest(ctx, projectId, req.params.id) }),
    );

    project.post(
      '/endpoints/:id/roll-secret',
      {
        config: manage,
        schema: {
          summary: 'Replace the signing secret (answered once); the old one keeps verifying for 24 hours',
          params: idParams,
          response: { 200: z.object({ data: rolledSecretSchema }), ...g.errors(404) },
        },
      },
      async (req, { projectId }) => ({ data: await rollSecret(ctx, projectId, req.params.id) }),
    );

    project.get(
      '/endpoints/:id/deliveries',
      {
        config: view,
        schema: {
          summary: 'Every delivery attempt of the endpoint, newest first',
          params: idParams,
          querystring: deliveriesQuery,
          response: { 200: z.object({ data: z.array(attemptSchema), next_cursor: z.string().nullable() }), ...g.errors(404) },
        },
      },
      async (req, { projectId }) => listDeliveries(ctx, projectId, req.params.id, req.query),
    );
  });
}
