import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { WebhookService } from './service.ts';
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

const tags = ['webhooks'];
const idParams = z.object({ id: z.string().min(1).max(100) });
const view = { auth: { scope: 'project', permission: 'webhookEndpoints:view' }, errorShape: 'nested' } as const;
const manage = { auth: { scope: 'project', permission: 'webhookEndpoints:manage' }, errorShape: 'nested' } as const;
const BASE = '/api/webhooks/v1';

/**
 * Webhook routes. Endpoints belong to a project: project keys need nothing more, organization
 * keys name the project with X-Project-Id.
 */
export function webhookRoutes(app: FastifyInstance, service: WebhookService) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    `${BASE}/event-types`,
    {
      config: view,
      schema: {
        tags,
        summary: 'Every subscribable event type, grouped by family; is_emitting false: declared, no producer yet',
        response: { 200: z.object({ data: z.array(eventTypeSchema) }) },
      },
    },
    () => ({ data: service.eventTypes() }),
  );

  r.post(
    `${BASE}/endpoints`,
    {
      config: manage,
      schema: {
        tags,
        summary: 'Subscribe a URL to events of this project; the whsec_ signing secret is answered once',
        body: createEndpointBody,
        response: { 201: z.object({ data: createdEndpointSchema }) },
      },
    },
    async (req, reply) => {
      const created = await service.create(req.principal!, req.projectId!, req.body);
      return reply.status(201).send({ data: created });
    },
  );

  r.get(
    `${BASE}/endpoints`,
    {
      config: view,
      schema: { tags, summary: "The project's webhook endpoints, newest first", response: { 200: z.object({ data: z.array(endpointSchema) }) } },
    },
    async (req) => ({ data: await service.list(req.projectId!) }),
  );

  r.get(
    `${BASE}/endpoints/:id`,
    { config: view, schema: { tags, params: idParams, response: { 200: z.object({ data: endpointSchema }) } } },
    async (req) => ({ data: await service.get(req.projectId!, req.params.id) }),
  );

  r.patch(
    `${BASE}/endpoints/:id`,
    {
      config: manage,
      schema: {
        tags,
        summary: 'Change an endpoint; {"enabled": true} re-enables one the dispatcher disabled',
        params: idParams,
        body: updateEndpointBody,
        response: { 200: z.object({ data: endpointSchema }) },
      },
    },
    async (req) => ({ data: await service.update(req.principal!, req.projectId!, req.params.id, req.body) }),
  );

  r.delete(
    `${BASE}/endpoints/:id`,
    {
      config: manage,
      schema: { tags, summary: 'Delete an endpoint, its queued batches and its delivery log', params: idParams, response: { 204: z.null() } },
    },
    async (req, reply) => {
      await service.delete(req.projectId!, req.params.id);
      return reply.status(204).send(null);
    },
  );

  r.post(
    `${BASE}/endpoints/:id/test`,
    {
      config: manage,
      schema: {
        tags,
        summary: 'Queue a webhook.test event for this endpoint alone; its attempts appear in the deliveries log',
        params: idParams,
        response: { 202: z.object({ data: testDispatchSchema }) },
      },
    },
    async (req, reply) => reply.status(202).send({ data: await service.sendTest(req.projectId!, req.params.id) }),
  );

  r.post(
    `${BASE}/endpoints/:id/roll-secret`,
    {
      config: manage,
      schema: {
        tags,
        summary: 'Replace the signing secret (answered once); the old one keeps verifying for 24 hours',
        params: idParams,
        response: { 200: z.object({ data: rolledSecretSchema }) },
      },
    },
    async (req) => ({ data: await service.rollSecret(req.projectId!, req.params.id) }),
  );

  r.get(
    `${BASE}/endpoints/:id/deliveries`,
    {
      config: view,
      schema: {
        tags,
        summary: 'Every delivery attempt of the endpoint, newest first',
        params: idParams,
        querystring: deliveriesQuery,
        response: { 200: z.object({ data: z.array(attemptSchema), next_cursor: z.string().nullable() }) },
      },
    },
    async (req) => service.deliveries(req.projectId!, req.params.id, req.query),
  );
}
