import { type Executor } from '../../db/index.ts';
import { type Role } from '../../platform/auth/index.ts';
import { type DirectoryContext } from './context.ts';
import * as store from './store.ts';

export function projectOrganization(ctx: DirectoryContext, projectId: string): Promise<string | null> {
  return store.projectOrganization(ctx.db.orm, projectId);
}
export function membershipRole(ctx: DirectoryContext, organizationId: string, userId: string, db: Executor = ctx.db.orm): Promise<Role | null> {
  return store.findMembershipRole(db, organizationId, userId);
}
/**
 * The project's row (id) share-locked until the transaction ends, as a typed relation: the
 * project cannot be deleted while the caller writes rows for it (what a foreign key does per
 * row, done once). Callers count it in a statement of their own.
 */
export function holdProject(_ctx: DirectoryContext, projectId: string): ReturnType<typeof store.heldProject> {
  return store.heldProject(projectId);
}
/** Projects that keep traces for a limited time (the traces module's retention sweep). */
export function retentionPolicies(ctx: DirectoryContext): Promise<{ projectId: string; days: number }[]> {
  return store.retentionPolicies(ctx.db.orm);
}
/** An organization's members (ids and e-mails), as review queues list their reviewers. */
export function members(ctx: DirectoryContext, organizationId: string): Promise<{ userId: string; email: string }[]> {
  return store.listMembers(ctx.db.orm, organizationId);
}
export function firstAdmin(ctx: DirectoryContext): Promise<{ organizationId: string; userId: string } | null> {
  return store.firstAdmin(ctx.db.orm);
}