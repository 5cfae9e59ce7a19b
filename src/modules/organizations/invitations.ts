import { type Executor } from '../../db/index.ts';
import { type Principal, type Role } from '../../platform/auth/index.ts';
import { notFound } from '../../platform/errors.ts';
import { newId, randomAlphanumeric } from '../../platform/ids.ts';
import { type Client, type StartedSession, INVITATION_LIFETIME_MS, invitationNotFound } from './account-rules.ts';
import * as store from './account-store.ts';
import * as orgStore from './store.ts';
import { setPassword } from './change-password.ts';
import { type OrganizationsContext } from './context.ts';
import { linkBase, sendMail } from './links.ts';
import { addMember, removeMembership } from './members.ts';
import {
  presentInvitationInfo,
  presentInvitationLink,
  presentPendingInvitation,
  type AddedMemberView,
  type InvitationInfoView,
  type InvitationLinkView,
  type PendingInvitationView,
} from './presenters.ts';
import { startSession } from './sessions.ts';

/**
 * Adds a member; a user without a password who belongs to no other organization gets a
 * one-time link to set one (also mailed when SMTP_URL is set).
 */
export async function inviteMember(
  ctx: OrganizationsContext,
  principal: Principal,
  input: { email: string; name?: string; role: Role },
  origin: string,
): Promise<AddedMemberView> {
  // Set inside the transaction's callback, which TypeScript's narrowing does not follow: the
  // assertion keeps `null` from narrowing it for good.
  let invitation = null as InvitationLinkView | null;
  const member = await addMember(ctx, principal, input, async (tx, user) => {
    if (user.passwordHash || !(await ownedBy(ctx, tx, user.id, principal.organizationId))) return;
    const token = randomAlphanumeric(48);
    const now = ctx.clock.now();
    const expiresAt = new Date(now.getTime() + INVITATION_LIFETIME_MS);
    const id = newId('inv');
    await store.insertInvitation(tx, {
      id,
      organizationId: principal.organizationId,
      userId: user.id,
      tokenHash: ctx.hasher.hash(token),
      invitedByUserId: principal.userId,
      createdAt: now,
      expiresAt,
    });
    invitation = presentInvitationLink(id, `${linkBase(ctx, origin)}/invite/${token}`, expiresAt);
  });
  if (invitation) {
    const { url, expiresAt } = invitation;
    const org = await orgStore.findOrganization(ctx.db.orm, principal.organizationId);
    sendMail(ctx, 
      member.email,
      `You are invited to ${org?.name ?? 'an organization'} on Spyglass`,
      `You have been added to ${org?.name ?? 'an organization'} on Spyglass as ${member.role}.\n\n` +
        `Set your password here (the link works once, until ${expiresAt}):\n${url}\n`,
    );
  }
  return { ...member, invitation };
}
export async function invitationInfo(ctx: OrganizationsContext, token: string): Promise<InvitationInfoView> {
  const found = await store.findPendingInvitation(ctx.db.orm, ctx.hasher.hash(token), ctx.clock.now());
  if (!found || !(await ownedBy(ctx, ctx.db.orm, found.userId, found.organizationId))) throw invitationNotFound();
  return presentInvitationInfo(found);
}
/** The invitee sets a password and is signed in. */
export async function acceptInvitation(ctx: OrganizationsContext, token: string, input: { password: string; name?: string }, client: Client): Promise<StartedSession> {
  const tokenHash = ctx.hasher.hash(token);
  // Looked up before hashing the password: an unknown token costs no KDF work.
  if (!(await store.findPendingInvitation(ctx.db.orm, tokenHash, ctx.clock.now()))) throw invitationNotFound();
  const passwordHash = await ctx.accounts.passwords.hash(input.password);
  return ctx.db.orm.transaction(async (tx) => {
    const claimed = await store.claimInvitation(tx, tokenHash, ctx.clock.now());
    const user = claimed && (await store.findUser(tx, claimed.userId));
    if (!claimed || !user || user.passwordHash || !(await ownedBy(ctx, tx, user.id, claimed.organizationId))) throw invitationNotFound();
    await setPassword(ctx, tx, user.id, passwordHash, undefined, input.name);
    return startSession(ctx, tx, user.id, claimed.organizationId, client);
  });
}
export async function listInvitations(ctx: OrganizationsContext, principal: Principal): Promise<PendingInvitationView[]> {
  const rows = await store.listPendingInvitations(ctx.db.orm, principal.organizationId, ctx.clock.now());
  return rows.map(presentPendingInvitation);
}
/**
 * Withdraws a pending invitation: the link stops working, and the invitee, who never set
 * a password, leaves the organization (adding them again makes a new link).
 */
export async function revokeInvitation(ctx: OrganizationsContext, principal: Principal, id: string): Promise<{ id: string; revoked: true }> {
  return ctx.db.orm.transaction(async (tx) => {
    const userId = await store.revokeInvitation(tx, principal.organizationId, id, ctx.clock.now());
    if (!userId) throw notFound('invitation_not_found', `no pending invitation ${id} in this organization`);
    const user = await store.findUser(tx, userId);
    if (user && !user.passwordHash) await removeMembership(ctx, tx, principal.organizationId, userId);
    return { id, revoked: true as const };
  });
}
/**
 * True when `organizationId` is the user's only organization. An organization's admin
 * sees the links it makes (to copy them), so such a link may only set the password of a
 * user whose every membership that admin already governs.
 */
export async function ownedBy(ctx: OrganizationsContext, db: Executor, userId: string, organizationId: string): Promise<boolean> {
  const orgs = await store.userOrganizations(db, userId);
  return orgs.length > 0 && orgs.every((o) => o.id === organizationId);
}