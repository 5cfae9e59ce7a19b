import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { orgRoute, routeGroup } from '../../platform/http/route-group.ts';
import type { OrganizationsContext } from './context.ts';
import { inviteMember } from './invitations.ts';
import { changeRole, listMembers, removeMember } from './members.ts';
import { getOrganization, renameOrganization } from './organization.ts';
import { createProject, deleteProject, getProject, listProjects, updateProject } from './projects.ts';
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


/** Organization, project and member routes, and the account routes: the nested error shape. */
export function organizationRoutes(app: FastifyInstance, ctx: OrganizationsContext) {
  routeGroup(app, { prefix: '/api/organization', errors: 'nested', tag: { name: 'organization', title: 'Organizations, members and projects' } }, (r) => {
    const org = orgRoute(r);

    org.get(
      '/',
      {
        config: { auth: { scope: 'organization', permission: 'organization:view' } },
        schema: { summary: 'The organization of the calling key', response: { 200: organizationSchema } },
      },
      (req, { principal }) => getOrganization(ctx, principal),
    );

    org.patch(
      '/',
      {
        config: { auth: { scope: 'organization', permission: 'organization:update' } },
        schema: { summary: 'Rename the organization', body: z.strictObject({ name: z.string().trim().min(1).max(100) }), response: { 200: organizationSchema } },
      },
      (req, { principal }) => renameOrganization(ctx, principal, req.body.name),
    );

  });

  routeGroup(app, { prefix: '/api/projects', errors: 'nested', tag: { name: 'organization', title: 'Organizations, members and projects' } }, (r) => {
    const org = orgRoute(r);

    org.get(
      '/',
      {
        config: { auth: { scope: 'organization', permission: null } },
        schema: { summary: 'Projects this key can see', response: { 200: z.object({ data: z.array(projectSchema) }) } },
      },
      async (_req, { principal }) => ({ data: await listProjects(ctx, principal) }),
    );

    org.post(
      '/',
      {
        config: { auth: { scope: 'organization', permission: 'project:create' } },
        schema: {
          summary: 'Create a project; answers its project API key once',
          body: createProjectBody,
          response: { 200: createdProjectSchema },
        },
      },
      (req, { principal }) => createProject(ctx, principal, req.body),
    );

    org.get(
      '/:id',
      {
        config: { auth: { scope: 'projectParam', param: 'id', permission: 'project:view' } },
        schema: { params: idParams, response: { 200: projectSchema } },
      },
      (req, { principal }) => getProject(ctx, principal, req.params.id),
    );

    org.patch(
      '/:id',
      {
        config: { auth: { scope: 'projectParam', param: 'id', permission: 'project:update' } },
        schema: { summary: 'Rename a project or change its retention', params: idParams, body: updateProjectBody, response: { 200: projectSchema } },
      },
      (req, { principal }) => updateProject(ctx, principal, req.params.id, req.body),
    );

    org.delete(
      '/:id',
      {
        config: { auth: { scope: 'projectParam', param: 'id', permission: 'project:delete' } },
        schema: {
          summary: 'Delete a project and all its data',
          params: idParams,
          response: { 200: z.object({ id: z.string(), deleted: z.literal(true) }) },
        },
      },
      (req, { principal }) => deleteProject(ctx, principal, req.params.id),
    );

  });

  routeGroup(app, { prefix: '/api/members', errors: 'nested', tag: { name: 'organization', title: 'Organizations, members and projects' } }, (r, g) => {
    const org = orgRoute(r);

    org.get(
      '/',
      {
        config: { auth: { scope: 'organization', permission: 'organization:view' } },
        schema: { response: { 200: z.object({ data: z.array(memberSchema) }) } },
      },
      async (_req, { principal }) => ({ data: await listMembers(ctx, principal) }),
    );

    org.post(
      '/',
      {
        config: { auth: { scope: 'organization', permission: 'organization:manage' } },
        onSend: noStore,
        schema: {
          summary: 'Add a member (creates the user when new); a new user gets a one-time invitation link to set a password',
          body: addMemberBody,
          response: { 200: addedMemberSchema, ...g.errors(409) },
        },
      },
      (req, { principal }) => inviteMember(ctx, principal, req.body, originOf(req)),
    );

    org.patch(
      '/:userId',
      {
        config: { auth: { scope: 'organization', permission: 'organization:manage' } },
        schema: { params: userIdParams, body: z.strictObject({ role: roleSchema }), response: { 200: memberSchema, ...g.errors(404, 409) } },
      },
      (req, { principal }) => changeRole(ctx, principal, req.params.userId, req.body.role),
    );

    org.delete(
      '/:userId',
      {
        config: { auth: { scope: 'organization', permission: 'organization:manage' } },
        schema: { params: userIdParams, response: { 200: z.object({ userId: z.string(), removed: z.literal(true) }), ...g.errors(404, 409) } },
      },
      (req, { principal }) => removeMember(ctx, principal, req.params.userId),
    );

  });

  accountRoutes(app, ctx);
}
