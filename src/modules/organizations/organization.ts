import { type Tx } from '../../db/index.ts';
import { type Principal } from '../../platform/auth/index.ts';
import { notFound } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import { type OrganizationsContext } from './context.ts';
import { presentOrganization, presentProject, type OrganizationView, type ProjectView } from './presenters.ts';
import * as store from './store.ts';

export async function getOrganization(ctx: OrganizationsContext, principal: Principal): Promise<OrganizationView> {
  const org = await store.findOrganization(ctx.db.orm, principal.organizationId);
  if (!org) throw notFound('organization_not_found', 'organization not found');
  return presentOrganization(org);
}
export async function renameOrganization(ctx: OrganizationsContext, principal: Principal, name: string) {
  await store.renameOrganization(ctx.db.orm, principal.organizationId, name, ctx.clock.now());
  return getOrganization(ctx, principal);
}
/**
 * First start: on an empty database, creates the organization, its admin user and a
 * project, then lets the caller mint keys in the same transaction. Null when the
 * database already holds an organization (a restart creates nothing).
 */
/** Whether the first organization exists (the first-start set-up has run). */
export async function isSetUp(ctx: OrganizationsContext): Promise<boolean> {
  return (await store.countOrganizations(ctx.db.orm)) > 0;
}
export async function bootstrap<T>(
  ctx: OrganizationsContext,
  input: { organizationName: string; projectName: string; email: string; passwordHash: string },
  mintKeys: (tx: Tx, created: { organizationId: string; userId: string; projectId: string }) => Promise<T>,
): Promise<{ organization: { id: string; name: string }; project: ProjectView; userId: string; keys: T } | null> {
  return ctx.db.orm.transaction(async (tx) => {
    // Two processes starting together on one PostgreSQL: the second waits, then sees the first's work.
    if (ctx.db.kind === 'postgres') await store.lockFirstStart(tx);
    if ((await store.countOrganizations(tx)) > 0) return null;
    return createOrganizationWithAdmin(ctx, tx, input, mintKeys);
  });
}
/** An organization with its ADMIN user and a first project; keys minted by the caller in the same transaction. */
export async function createOrganizationWithAdmin<T>(
  ctx: OrganizationsContext,
  tx: Tx,
  input: { organizationName: string; projectName: string; email: string; passwordHash: string | null },
  mintKeys: (tx: Tx, created: { organizationId: string; userId: string; projectId: string }) => Promise<T>,
) {
  const at = ctx.clock.now();
  const org = await store.insertOrganization(tx, { id: newId('org'), name: input.organizationName, at });
  const user = await store.insertUser(tx, { id: newId('user'), email: input.email, name: 'Admin', passwordHash: input.passwordHash, createdAt: at });
  await store.insertMembership(tx, { organizationId: org.id, userId: user.id, role: 'ADMIN', at });
  const project = await store.insertProject(tx, { id: newId('proj'), organizationId: org.id, name: input.projectName, createdAt: at, updatedAt: at });
  const keys = await mintKeys(tx, { organizationId: org.id, userId: user.id, projectId: project.id });
  return { organization: { id: org.id, name: org.name }, project: presentProject(project), userId: user.id, keys };
}