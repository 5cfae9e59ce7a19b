import { type Executor, type Tx } from '../../db/index.ts';
import { type Principal, type Role } from '../../platform/auth/index.ts';
import { conflict, notFound } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import { type OrganizationsContext } from './context.ts';
import { presentMember, type MemberView } from './presenters.ts';
import * as store from './store.ts';

export async function listMembers(ctx: OrganizationsContext, principal: Principal): Promise<MemberView[]> {
  const rows = await store.listMembers(ctx.db.orm, principal.organizationId);
  return rows.map(presentMember);
}
/**
 * Adds a member by e-mail, creating the user when new (without a password); `added` runs
 * in the same transaction (the invitation link is made there).
 */
export async function addMember(
  ctx: OrganizationsContext,
  principal: Principal,
  input: { email: string; name?: string; role: Role },
  added?: (tx: Tx, user: store.UserRow) => Promise<void>,
): Promise<MemberView> {
  return ctx.db.orm.transaction(async (tx) => {
    const at = ctx.clock.now();
    let user = await store.findUserByEmail(tx, input.email);
    if (!user) {
      user = await store.insertUser(tx, { id: newId('user'), email: input.email, name: input.name ?? null, createdAt: at });
    }
    if (await store.findMembershipRole(tx, principal.organizationId, user.id)) {
      throw conflict('member_exists', `${input.email} is already a member of this organization`, 'email');
    }
    await store.insertMembership(tx, { organizationId: principal.organizationId, userId: user.id, role: input.role, at });
    await added?.(tx, user);
    return presentMember({ userId: user.id, email: user.email, name: user.name, role: input.role, createdAt: at });
  });
}
export async function changeRole(ctx: OrganizationsContext, principal: Principal, userId: string, role: Role): Promise<MemberView> {
  return ctx.db.orm.transaction(async (tx) => {
    const current = await store.findMembershipRole(tx, principal.organizationId, userId);
    if (!current) throw notFound('member_not_found', `user ${userId} is not a member of this organization`);
    if (current === 'ADMIN' && role !== 'ADMIN') await keepOneAdmin(ctx, tx, principal.organizationId);
    await store.updateMembershipRole(tx, principal.organizationId, userId, role);
    const member = (await store.listMembers(tx, principal.organizationId)).find((m) => m.userId === userId)!;
    return presentMember(member);
  });
}
export async function removeMember(ctx: OrganizationsContext, principal: Principal, userId: string): Promise<{ userId: string; removed: true }> {
  return ctx.db.orm.transaction(async (tx) => {
    await removeMembership(ctx, tx, principal.organizationId, userId);
    return { userId, removed: true as const };
  });
}
/** Removes a membership (the user's sessions in the organization stop working with it); keeps one ADMIN. */
export async function removeMembership(ctx: OrganizationsContext, tx: Tx, organizationId: string, userId: string) {
  const current = await store.findMembershipRole(tx, organizationId, userId);
  if (!current) throw notFound('member_not_found', `user ${userId} is not a member of this organization`);
  if (current === 'ADMIN') await keepOneAdmin(ctx, tx, organizationId);
  await store.deleteMembership(tx, organizationId, userId);
}
export async function keepOneAdmin(ctx: OrganizationsContext, tx: Executor, organizationId: string) {
  if ((await store.countAdmins(tx, organizationId)) <= 1) {
    throw conflict('last_admin', 'an organization keeps at least one ADMIN; promote another member first');
  }
}