import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AgentCacheService } from './service.ts';
import { deletedSchema, entrySchema, MAX_VALUE_BYTES, nameParams, nestedErrorSchema, putEntryBody, storedSchema } from './schemas.ts';

const tags = ['agent-cache'];
const errorShape = 'nested' as const;
const auth = { scope: 'project', permission: 'agentCache:manage' } as const;
const errors = { 400: nestedErrorSchema, 401: nestedErrorSchema, 403: nestedErrorSchema, 500: nestedErrorSchema };
// Room for a 1 MiB value even when JSON escaping inflates it, so the size check (and its
// clear 413) happens in the service, not in the body parser.
const PUT_BODY_LIMIT = 8 * MAX_VALUE_BYTES;

export function agentCacheRoutes(app: FastifyInstance, service: AgentCacheService) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/api/agent-cache/:name',
    {
      config: { auth, errorShape },
      schema: {
        tags,
        summary: 'Read a live entry; 404 when never stored, deleted, or its lifetime passed',
        params: nameParams,
        response: { 200: entrySchema, ...errors, 404: nestedErrorSchema },
      },
    },
    (req) => service.get(req.projectId!, req.params.name),
  );

  r.put(
    '/api/agent-cache/:name',
    {
      bodyLimit: PUT_BODY_LIMIT,
      config: { auth, errorShape, acceptsNulInBody: true }, // values are stored encrypted
      schema: {
        tags,
        summary: 'Store (or replace: last write wins) an entry for ttl_seconds; values over 1 MiB answer 413',
        params: nameParams,
        body: putEntryBody,
        response: { 200: storedSchema, ...errors, 413: nestedErrorSchema },
      },
    },
    (req) => service.put(req.projectId!, req.params.name, req.body.value, req.body.ttl_seconds),
  );

  r.delete(
    '/api/agent-cache/:name',
    {
      config: { auth, errorShape },
      schema: {
        tags,
        summary: 'Delete an entry; a name the project does not hold answers the same',
        params: nameParams,
        response: { 200: deletedSchema, ...errors },
      },
    },
    (req) => service.delete(req.projectId!, req.params.name),
  );
}
