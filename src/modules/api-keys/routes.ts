import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { orgRoute, routeGroup } from '../../platform/http/route-group.ts';
import type { ApiKeysContext } from './context.ts';
import { addProjectKey, rotateProjectKey } from './issue-keys.ts';
import { createKey, getKey, listKeys, revokeKey } from './manage-keys.ts';
import { apiKeySchema, createKeyBody, createdKeySchema } from './schemas.ts';

const idParams = z.object({ id: z.string().min(1).max(100) });

/** API key routes (organization keys): the nested error shape. */
export function apiKeyRoutes(app: FastifyInstance, ctx: ApiKeysContext) {
  routeGroup(app, { prefix: '/api/api-keys', errors: 'nested', tag: { name: 'api-keys', title: 'API keys' } }, (r, g) => {
    const org = orgRoute(r);

    org.post(
      '/',
      {
        config: { auth: { scope: 'organization', permission: 'apiKeys:create' } },
        schema: {
          summary: 'Mint an API key; the token is answered once',
          body: createKeyBody,
          response: { 200: createdKeySchema },
        },
      },
      (req, { principal }) =>
        createKey(ctx, principal, {
          ...req.body,
          expiresAt: req.body.expiresAt ? new Date(req.body.expiresAt) : undefined,
        }),
    );

    org.get(
      '/',
      {
        config: { auth: { scope: 'organization', permission: 'apiKeys:view' } },
        schema: { summary: 'Keys of the organization (admins) or your own', response: { 200: z.object({ data: z.array(apiKeySchema) }) } },
      },
      async (_req, { principal }) => ({ data: await listKeys(ctx, principal) }),
    );

    org.get(
      '/:id',
      {
        config: { auth: { scope: 'organization', permission: 'apiKeys:view' } },
        schema: { params: idParams, response: { 200: apiKeySchema, ...g.errors(404) } },
      },
      (req, { principal }) => getKey(ctx, principal, req.params.id),
    );

    org.delete(
      '/:id',
      {
        config: { auth: { scope: 'organization', permission: 'apiKeys:delete' } },
        schema: {
          summary: 'Revoke a key (admins: any; members: their own); it stops working at once',
          params: idParams,
          response: { 200: apiKeySchema, ...g.errors(404) },
        },
      },
      (req, { principal }) => revokeKey(ctx, principal, req.params.id),
    );
  });

  // A project's own keys, under the project they belong to.
  routeGroup(app, { prefix: '/api/projects', errors: 'nested', tag: { name: 'api-keys', title: 'API keys' } }, (r) => {
    const org = orgRoute(r);

    org.post(
      '/:id/api-keys',
      {
        config: { auth: { scope: 'projectParam', param: 'id', permission: 'apiKeys:manage' } },
        schema: {
          summary: 'Mint another project API key (sgp-); the keys the project has keep working',
          params: idParams,
          response: { 200: createdKeySchema },
        },
      },
      (req, { principal }) => addProjectKey(ctx, principal, req.params.id),
    );

    org.post(
      '/:id/rotate-key',
      {
        config: { auth: { scope: 'projectParam', param: 'id', permission: 'apiKeys:manage' } },
        schema: {
          summary: "Replace a project's API key; the old one stops working at once",
          params: idParams,
          response: { 200: createdKeySchema },
        },
      },
      (req, { principal }) => rotateProjectKey(ctx, principal, req.params.id),
    );
  });
}
