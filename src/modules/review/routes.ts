import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { projectRoute, routeGroup } from '../../platform/http/route-group.ts';
import type { ReviewDeps } from './context.ts';
import { addItems } from './add-items.ts';
import { createQueue, deleteQueue, getQueue, listQueues, updateQueue } from './queues.ts';
import { claimNext, completeItem, getItem, listItems, releaseItem, skipItem } from './reviewing.ts';
import {
  addItemsBody,
  addItemsResponse,
  completeItemBody,
  completeResponse,
  createQueueBody,
  itemDetailResponse,
  itemListResponse,
  itemParams,
  itemResponse,
  itemsQuery,
  listQueuesQuery,
  nextResponse,
  queueParams,
  queueSchema,
  updateQueueBody,
} from './schemas.ts';

const view = { scope: 'project', permission: 'reviewQueues:view' } as const;
/** Reviewing (claiming, completing, skipping, releasing) changes items: update. */
const review = { scope: 'project', permission: 'reviewQueues:update' } as const;
const one = z.object({ data: queueSchema });

/** Annotation queues and the reviewer's flow (the house's nested error shape). */
export function reviewQueueRoutes(app: FastifyInstance, deps: ReviewDeps) {
  routeGroup(app, { prefix: '/api/queues', errors: 'nested', tag: { name: 'review queues', title: 'Review queues' } }, (r, g) => {
    const project = projectRoute(r);
    project.get(
      '/',
      { config: { auth: view }, schema: { summary: "The project's queues with their progress, by name", querystring: listQueuesQuery, response: { 200: z.object({ data: z.array(queueSchema) }) } } },
      async (req, scope) => ({ data: await listQueues(deps, scope, req.query.mine === 'true') }),
    );
    project.post(
      '/',
      {
        config: { auth: { scope: 'project', permission: 'reviewQueues:create' } },
        schema: { summary: 'Create a queue: a name, the score configs reviewers fill in, the members assigned', body: createQueueBody, response: { 201: one, ...g.errors(409) } },
      },
      async (req, scope, reply) => reply.status(201).send({ data: await createQueue(deps, scope, req.body) }),
    );
    project.get(
      '/:id',
      { config: { auth: view }, schema: { summary: 'One queue, with its progress per reviewer', params: queueParams, response: { 200: one, ...g.errors(404) } } },
      async (req, scope) => ({ data: await getQueue(deps, scope, req.params.id) }),
    );
    project.patch(
      '/:id',
      {
        config: { auth: { scope: 'project', permission: 'reviewQueues:update' } },
        schema: { summary: 'Change the name, description, score configs or members', params: queueParams, body: updateQueueBody, response: { 200: one, ...g.errors(404, 409) } },
      },
      async (req, scope) => ({ data: await updateQueue(deps, scope, req.params.id, req.body) }),
    );
    project.delete(
      '/:id',
      {
        config: { auth: { scope: 'project', permission: 'reviewQueues:delete' } },
        schema: { summary: 'Delete a queue and its items (annotations made stay)', params: queueParams, response: { 200: z.object({ id: z.string(), deleted: z.literal(true) }), ...g.errors(404) } },
      },
      (req, scope) => deleteQueue(deps, scope, req.params.id),
    );
    project.post(
      '/:id/items',
      {
        config: { auth: { scope: 'project', permission: 'reviewQueues:create' } },
        schema: {
          summary: "Add traces or spans: a list, every trace matching a search, or an experiment run's traces (each once)",
          params: queueParams,
          body: addItemsBody,
          response: { 200: addItemsResponse, ...g.errors(404) },
        },
      },
      (req, scope) => addItems(deps, scope, req.params.id, req.body),
    );
    project.get(
      '/:id/items',
      { config: { auth: view }, schema: { summary: "The queue's items in queue order (doneBy=me: the caller's, latest first)", params: queueParams, querystring: itemsQuery, response: { 200: itemListResponse, ...g.errors(404) } } },
      (req, scope) => listItems(deps, scope, req.params.id, req.query),
    );
    project.get(
      '/:id/items/:itemId',
      { config: { auth: view }, schema: { summary: 'One item, with its annotation once completed', params: itemParams, response: { 200: itemDetailResponse, ...g.errors(404) } } },
      (req, scope) => getItem(deps, scope, req.params.id, req.params.itemId),
    );
    project.post(
      '/:id/next',
      {
        config: { auth: review },
        schema: {
          summary: 'Claim the next pending item for the caller (or the one already held); two reviewers never hold the same item; a claim lapses after claimMs',
          params: queueParams,
          response: { 200: nextResponse, ...g.errors(404) },
        },
      },
      (_req, scope) => claimNext(deps, scope, _req.params.id),
    );
    project.post(
      '/:id/items/:itemId/complete',
      {
        config: { auth: review },
        schema: {
          summary: "Complete an item with a score for each of the queue's configs and an optional comment (creates the annotation)",
          params: itemParams,
          body: completeItemBody,
          response: { 200: completeResponse, ...g.errors(404, 409) },
        },
      },
      (req, scope) => completeItem(deps, scope, req.params.id, req.params.itemId, req.body),
    );
    project.post(
      '/:id/items/:itemId/skip',
      { config: { auth: review }, schema: { summary: 'Skip an item (done, without scores)', params: itemParams, response: { 200: itemResponse, ...g.errors(404, 409) } } },
      (req, scope) => skipItem(deps, scope, req.params.id, req.params.itemId),
    );
    project.post(
      '/:id/items/:itemId/release',
      { config: { auth: review }, schema: { summary: 'Give a claimed item back: pending, for anyone to claim', params: itemParams, response: { 200: itemResponse, ...g.errors(404, 409) } } },
      (req, scope) => releaseItem(deps, scope, req.params.id, req.params.itemId),
    );
  });
}
