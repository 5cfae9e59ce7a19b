import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiKeyService } from './service.ts';
import { apiKeySchema, createKeyBody, createdKeySchema } from './schemas.ts';

const tags = ['api-keys'];
const idParams = z.object({ id: z.string().min(1).max(100) });

export function apiKeyRoutes(app: FastifyInstance, service: ApiKeyService) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post(
    '/api/api-keys',
    {
      config: { auth: { scope: 'organization', permission: 'apiKeys:create' } },
      schema: { tags, summary: 'Mint an API key; the token is answered once', body: createKeyBody, response: { 200: createdKeySchema } },
    },
    (req) =>
      service.create(req.principal!, {
        ...req.body,
        expiresAt: req.body.expiresAt ? new Date(req.body.expiresAt) : undefined,
      }),
  );

  r.get(
    '/api/api-keys',
    {
      config: { auth: { scope: 'organization', permission: 'apiKeys:view' } },
      schema: { tags, summary: 'Keys of the organization (admins) or your own', response: { 200: z.object({ data: z.array(apiKeySchema) }) } },
    },
    async (req) => ({ data: await service.list(req.principal!) }),
  );

  r.get(
    '/api/api-keys/:id',
    {
      config: { auth: { scope: 'organization', permission: 'apiKeys:view' } },
      schema: { tags, params: idParams, response: { 200: apiKeySchema } },
    },
    (req) => service.get(req.principal!, req.params.id),
  );

  r.delete(
    '/api/api-keys/:id',
    {
      config: { auth: { scope: 'organization', permission: 'apiKeys:delete' } },
      schema: { tags, summary: 'Revoke a key (admins: any; members: their own); it stops working at once', params: idParams, response: { 200: apiKeySchema } },
    },
    (req) => service.revoke(req.principal!, req.params.id),
  );

  r.post(
    '/api/projects/:id/api-keys',
    {
      config: { auth: { scope: 'projectParam', param: 'id', permission: 'apiKeys:manage' } },
      schema: {
        tags,
        summary: 'Mint another project API key (sgp-); the keys the project has keep working',
        params: idParams,
        response: { 200: createdKeySchema },
      },
    },
    (req) => service.addProjectKey(req.principal!, req.params.id),
  );

  r.post(
    '/api/projects/:id/rotate-key',
    {
      config: { auth: { scope: 'projectParam', param: 'id', permission: 'apiKeys:manage' } },
      schema: {
        tags,
        summary: "Replace a project's API key; the old one stops working at once",
        params: idParams,
        response: { 200: createdKeySchema },
      },
    },
    (req) => service.rotateProjectKey(req.principal!, req.params.id),
  );
}
