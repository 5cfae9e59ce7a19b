import { type Executor } from '../../db/index.ts';
import { type Principal } from '../../platform/auth/index.ts';
import { conflict, notFound } from '../../platform/errors.ts';
import { newId, randomAlphanumeric } from '../../platform/ids.ts';
import { type Client, type StartedSession, RESET_LIFETIME_MS, resetNotFound } from './account-rules.ts';
import * as store from './account-store.ts';
import * as orgStore from './store.ts';
import { setPassword } from './change-password.ts';
import { type OrganizationsContext } from './context.ts';
import { ownedBy } from './invitations.ts';
import { linkBase, sendMail } from './links.ts';
import { startSession } from './sessions.ts';
import { presentResetInfo, presentResetLink, type ResetInfoView, type ResetLinkView } from './presenters.ts';

/** An admin's one-time link for a member of this organization alone. */
export async function issueReset(ctx: OrganizationsContext, principal: Principal, userId: string, origin: string): Promise<ResetLinkView> {
  if (!(await orgStore.findMembershipRole(ctx.db.orm, principal.organizationId, userId))) {
    throw notFound('member_not_found', `user ${userId} is not a member of this organization`);
  }
  if (!(await ownedBy(ctx, ctx.db.orm, userId, principal.organizationId))) {
    throw conflict(
      'member_of_other_organizations',
      'this user also belongs to other organizations: they change their password themselves, or the server operator runs `spyglass users reset-password`',
    );
  }
  // A member of the organization (checked above) is a user that exists.
  const user = (await store.findUser(ctx.db.orm, userId))!;
  const link = await createReset(ctx, user.id, principal.organizationId, principal.userId, linkBase(ctx, origin));
  sendMail(ctx, 
    user.email,
    'Set a new Spyglass password',
    `An administrator made a link to set a new password for your Spyglass account (${user.email}).\n\n` +
      `It works once, until ${link.expiresAt}:\n${link.url}\n`,
  );
  return link;
}
/** The server operator's link (`spyglass users reset-password <email>`), for any user with an organization. */
export async function issueOperatorReset(ctx: OrganizationsContext, email: string, base: string): Promise<ResetLinkView> {
  const user = await orgStore.findUserByEmail(ctx.db.orm, email);
  if (!user) throw notFound('user_not_found', `no user with e-mail ${email}`);
  if (!(await store.userOrganizations(ctx.db.orm, user.id)).length) {
    throw conflict('no_organization', `${email} belongs to no organization`);
  }
  return createReset(ctx, user.id, null, null, base.replace(/\/+$/, ''));
}
export async function resetInfo(ctx: OrganizationsContext, token: string): Promise<ResetInfoView> {
  const found = await store.findPendingReset(ctx.db.orm, ctx.hasher.hash(token), ctx.clock.now());
  if (!found || !(await resetOrganization(ctx, ctx.db.orm, found))) throw resetNotFound();
  return presentResetInfo(found);
}
/** Sets the new password, ends every session of the user, and signs in. */
export async function resetPassword(ctx: OrganizationsContext, token: string, input: { password: string }, client: Client): Promise<StartedSession> {
  const tokenHash = ctx.hasher.hash(token);
  if (!(await store.findPendingReset(ctx.db.orm, tokenHash, ctx.clock.now()))) throw resetNotFound();
  const passwordHash = await ctx.accounts.passwords.hash(input.password);
  return ctx.db.orm.transaction(async (tx) => {
    const claimed = await store.claimReset(tx, tokenHash, ctx.clock.now());
    const organizationId = claimed && (await resetOrganization(ctx, tx, claimed));
    if (!claimed || !organizationId) throw resetNotFound();
    await setPassword(ctx, tx, claimed.userId, passwordHash);
    return startSession(ctx, tx, claimed.userId, organizationId, client);
  });
}
export async function createReset(ctx: OrganizationsContext, userId: string, organizationId: string | null, createdByUserId: string | null, base: string): Promise<ResetLinkView> {
  const token = randomAlphanumeric(48);
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + RESET_LIFETIME_MS);
  await ctx.db.orm.transaction(async (tx) => {
    // One live link per user: a new one voids the older ones.
    await store.closeResets(tx, userId, now);
    await store.insertReset(tx, {
      id: newId('reset'),
      userId,
      organizationId,
      tokenHash: ctx.hasher.hash(token),
      createdByUserId,
      createdAt: now,
      expiresAt,
    });
  });
  return presentResetLink(`${base}/reset-password/${token}`, expiresAt);
}
/** Where a reset link signs in: its organization (if the user still belongs to it alone), or an operator link's first one. */
export async function resetOrganization(ctx: OrganizationsContext, db: Executor, reset: { userId: string; organizationId: string | null }): Promise<string | null> {
  if (reset.organizationId) return (await ownedBy(ctx, db, reset.userId, reset.organizationId)) ? reset.organizationId : null;
  const [first] = await store.userOrganizations(db, reset.userId);
  return first?.id ?? null;
}