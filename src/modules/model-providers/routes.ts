import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { projectRoute, routeGroup } from '../../platform/http/route-group.ts';
import type { ModelProviderContext } from './context.ts';
import { discoverModels, providerModels, testProvider } from './probe-provider.ts';
import { createProvider, listProviders, removeProvider } from './providers.ts';
import { listModels } from './resolve-model.ts';
import { createProviderBody, discoverModelsBody, modelListResponse, providerListResponse, providerModelsResponse, providerSchema, testProviderBody, testProviderResponse } from './schemas.ts';

const idParams = z.object({ id: z.string().min(1).max(100) });

/** Model provider routes: the nested error shape. Keys go in, never out. */
export function modelProviderRoutes(app: FastifyInstance, ctx: ModelProviderContext) {
  routeGroup(app, { prefix: '/api/model-providers', errors: 'nested', tag: { name: 'model providers', title: 'Model providers' } }, (r, g) => {
    const project = projectRoute(r);

    project.get(
      '/',
      {
        config: { auth: { scope: 'project', permission: 'modelProviders:view' } },
        schema: { summary: "The project's model providers and its organization's (keys shown by their last four characters)", response: { 200: providerListResponse } },
      },
      async (_req, scope) => ({ data: await listProviders(ctx, scope) }),
    );

    project.get(
      '/models',
      {
        config: { auth: { scope: 'project', permission: 'modelProviders:view' } },
        schema: { summary: 'Every model the project can name (settings.model, a prompt\'s model): providers set in the app, then the server environment\'s', response: { 200: modelListResponse } },
      },
      async (_req, scope) => ({ data: await listModels(ctx, scope) }),
    );

    project.post(
      '/discover-models',
      {
        config: { auth: { scope: 'project', permission: 'modelProviders:manage' } },
        schema: {
          summary: "The models a provider lists itself (its /models), before it is set: kind, base_url and api_key as for POST; the provider's refusal answers 502",
          body: discoverModelsBody,
          response: { 200: providerModelsResponse, ...g.errors(502, 504) },
        },
      },
      (req) => discoverModels(ctx, req.body),
    );

    project.get(
      '/:id/models',
      {
        config: { auth: { scope: 'project', permission: 'modelProviders:view' } },
        schema: { summary: "The models a provider set in the app lists itself (its /models): to pick from wherever a model is chosen", params: idParams, response: { 200: providerModelsResponse, ...g.errors(404, 502, 504) } },
      },
      (req, scope) => providerModels(ctx, scope, req.params.id),
    );

    project.post(
      '/',
      {
        config: { auth: { scope: 'project', permission: 'modelProviders:manage' } },
        schema: { summary: 'Set a model provider (its key is sealed at rest and never shown again)', body: createProviderBody, response: { 201: providerSchema, ...g.errors(409) } },
      },
      async (req, scope, reply) => reply.status(201).send(await createProvider(ctx, scope, req.body)),
    );

    project.delete(
      '/:id',
      {
        config: { auth: { scope: 'project', permission: 'modelProviders:manage' } },
        schema: { params: idParams, response: { 200: z.object({ id: z.string(), deleted: z.literal(true) }), ...g.errors(404) } },
      },
      (req, scope) => removeProvider(ctx, scope, req.params.id),
    );

    project.post(
      '/:id/test',
      {
        config: { auth: { scope: 'project', permission: 'modelProviders:manage' } },
        schema: {
          summary: 'One tiny call to the provider: ok, or the error it gave (200 either way)',
          params: idParams,
          body: testProviderBody.optional(),
          response: { 200: testProviderResponse, ...g.errors(404) },
        },
      },
      (req, scope) => testProvider(ctx, scope, req.params.id, req.body?.model),
    );
  });
}
