import type { FastifyInstance } from 'fastify';
import { projectRoute, routeGroup } from '../../platform/http/route-group.ts';
import type { AgentCacheContext } from './context.ts';
import { deleteEntry, getEntry, putEntry } from './entries.ts';
import { deletedSchema, entrySchema, MAX_VALUE_BYTES, nameParams, putEntryBody, storedSchema } from './schemas.ts';

const auth = { scope: 'project', permission: 'agentCache:manage' } as const;
// Room for a 1 MiB value even when JSON escaping inflates it, so the size check (and its
// clear 413) happens in the use case, not in the body parser.
const PUT_BODY_LIMIT = 8 * MAX_VALUE_BYTES;

/** Agent cache routes: the nested error shape (spec: Errors). */
export function agentCacheRoutes(app: FastifyInstance, ctx: AgentCacheContext) {
  routeGroup(app, { prefix: '/api/agent-cache', errors: 'nested', tag: { name: 'agent-cache', title: 'Agent cache' } }, (r, g) => {
    const project = projectRoute(r);

    project.get(
      '/:name',
      {
        config: { auth },
        schema: {
          summary: 'Read a live entry; 404 when never stored, deleted, or its lifetime passed',
          params: nameParams,
          response: { 200: entrySchema, ...g.errors(404, 500) },
        },
      },
      (req, { projectId }) => getEntry(ctx, projectId, req.params.name),
    );

    project.put(
      '/:name',
      {
        bodyLimit: PUT_BODY_LIMIT,
        config: { auth, acceptsNulInBody: true }, // values are stored encrypted
        schema: {
          summary: 'Store (or replace: last write wins) an entry for ttl_seconds; values over 1 MiB answer 413',
          params: nameParams,
          body: putEntryBody,
          response: { 200: storedSchema, ...g.errors(500) },
        },
      },
      (req, { projectId }) => putEntry(ctx, projectId, { name: req.params.name, value: req.body.value, ttlSeconds: req.body.ttl_seconds }),
    );

    project.delete(
      '/:name',
      {
        config: { auth },
        schema: {
          summary: 'Delete an entry; a name the project does not hold answers the same',
          params: nameParams,
          response: { 200: deletedSchema, ...g.errors(500) },
        },
      },
      (req, { projectId }) => deleteEntry(ctx, projectId, req.params.name),
    );
  });
}
