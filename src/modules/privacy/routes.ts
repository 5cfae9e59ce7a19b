import type { FastifyInstance } from 'fastify';
import { projectRoute, routeGroup } from '../../platform/http/route-group.ts';
import type { PrivacyContext } from './context.ts';
import { storedForm } from './redactors.ts';
import { hashProbeBody, hashProbeResponse, privacySettingsBody, privacySettingsResponse } from './schemas.ts';
import { getSettings, updateSettings } from './settings.ts';

const tags = ['privacy'];

/** Privacy at ingest: the project's settings, and what a typed value is stored as. The nested error shape. */
export function privacyRoutes(app: FastifyInstance, ctx: PrivacyContext) {
  routeGroup(app, { prefix: '/api/privacy', errors: 'nested', tag: { name: 'privacy', title: 'Privacy' } }, (r) => {
    const project = projectRoute(r);

    project.get(
      '/settings',
      {
        config: { auth: { scope: 'project', permission: 'project:view' } },
        schema: { tags, summary: "The project's privacy at ingest: what is removed from incoming data before it is stored", response: { 200: privacySettingsResponse } },
      },
      (_req, scope) => getSettings(ctx, scope.projectId),
    );

    project.put(
      '/settings',
      {
        config: { auth: { scope: 'project', permission: 'project:update' } },
        schema: {
          tags,
          summary: "Set the project's privacy at ingest; it applies to data arriving from now on (what is stored stays as it was)",
          body: privacySettingsBody,
          response: { 200: privacySettingsResponse },
        },
      },
      (req, scope) => updateSettings(ctx, scope.projectId, req.body),
    );

    project.post(
      '/stored-form',
      {
        config: { auth: { scope: 'project', permission: 'traces:view' } },
        schema: {
          tags,
          summary: 'A typed value as this project stores it (in hash mode, its token): the text to search traces for',
          body: hashProbeBody,
          response: { 200: hashProbeResponse },
        },
      },
      async (req, scope) => ({ text: await storedForm(ctx, scope.projectId, req.body.value) }),
    );
  });
}
