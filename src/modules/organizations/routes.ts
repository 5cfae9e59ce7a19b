import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { OrganizationService } from './service.ts';
import type { AccountService } from './account-service.ts';
import { accountRoutes, noStore, originOf } from './account-routes.ts';
import {
  addMemberBody,
  addedMemberSchema,
  createProjectBody,
  createdProjectSchema,
  idParams,
  memberSchema,
  organizationSchema,
  projectSchema,
  roleSchema,
  updateProjectBody,
  userIdParams,
} from './schemas.ts';

const tags = ['organization'];

export function organizationRoutes(app: FastifyInstance, service: OrganizationService, accounts: AccountService) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/api/organization',
    {
      config: { auth: { scope: 'organization', permission: 'organization:view' } },
      schema: { tags, summary: 'The organization of the calling key', response: { 200: organizationSchema } },
    },
    (req) => service.getOrganization(req.principal!),
  );

  r.patch(
    '/api/organization',
    {
      config: { auth: { scope: 'organization', permission: 'organization:update' } },
      schema: { tags, summary: 'Rename the organization', body: z.strictObject({ name: z.string().trim().min(1).max(100) }), response: { 200: organizationSchema } },
    },
    (req) => service.renameOrganization(req.principal!, req.body.name),
  );

  r.get(
    '/api/projects',
    {
      config: { auth: { scope: 'organization', permission: null } },
      schema: { tags, summary: 'Projects this key can see', response: { 200: z.object({ data: z.array(projectSchema) }) } },
    },
    async (req) => ({ data: await service.listProjects(req.principal!) }),
  );

  r.post(
    '/api/projects',
    {
      config: { auth: { scope: 'organization', permission: 'project:create' } },
      schema: {
        tags,
        summary: 'Create a project; answers its project API key once',
        body: createProjectBody,
        response: { 200: createdProjectSchema },
      },
    },
    (req) => service.createProject(req.principal!, req.body),
  );

  r.get(
    '/api/projects/:id',
    {
      config: { auth: { scope: 'projectParam', param: 'id', permission: 'project:view' } },
      schema: { tags, params: idParams, response: { 200: projectSchema } },
    },
    (req) => service.getProject(req.principal!, req.params.id),
  );

  r.patch(
    '/api/projects/:id',
    {
      config: { auth: { scope: 'projectParam', param: 'id', permission: 'project:update' } },
      schema: { tags, summary: 'Rename a project or change its retention', params: idParams, body: updateProjectBody, response: { 200: projectSchema } },
    },
    (req) => service.updateProject(req.principal!, req.params.id, req.body),
  );

  r.delete(
    '/api/projects/:id',
    {
      config: { auth: { scope: 'projectParam', param: 'id', permission: 'project:delete' } },
      schema: {
        tags,
        summary: 'Delete a project and all its data',
        params: idParams,
        response: { 200: z.object({ id: z.string(), deleted: z.literal(true) }) },
      },
    },
    (req) => service.deleteProject(req.principal!, req.params.id),
  );

  r.get(
    '/api/members',
    {
      config: { auth: { scope: 'organization', permission: 'organization:view' } },
      schema: { tags, response: { 200: z.object({ data: z.array(memberSchema) }) } },
    },
    async (req) => ({ data: await service.listMembers(req.principal!) }),
  );

  r.post(
    '/api/members',
    {
      config: { auth: { scope: 'organization', permission: 'organization:manage' } },
      onSend: noStore,
      schema: {
        tags,
        summary: 'Add a member (creates the user when new); a new user gets a one-time invitation link to set a password',
        body: addMemberBody,
        response: { 200: addedMemberSchema },
      },
    },
    (req) => accounts.addMember(req.principal!, req.body, originOf(req)),
  );

  r.patch(
    '/api/members/:userId',
    {
      config: { auth: { scope: 'organization', permission: 'organization:manage' } },
      schema: { tags, params: userIdParams, body: z.strictObject({ role: roleSchema }), response: { 200: memberSchema } },
    },
    (req) => service.changeRole(req.principal!, req.params.userId, req.body.role),
  );

  r.delete(
    '/api/members/:userId',
    {
      config: { auth: { scope: 'organization', permission: 'organization:manage' } },
      schema: { tags, params: userIdParams, response: { 200: z.object({ userId: z.string(), removed: z.literal(true) }) } },
    },
    (req) => service.removeMember(req.principal!, req.params.userId),
  );

  accountRoutes(app, accounts);
}
