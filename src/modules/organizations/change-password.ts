import { type Tx } from '../../db/index.ts';
import { type Principal } from '../../platform/auth/index.ts';
import { badRequest, unauthorized } from '../../platform/errors.ts';
import { type Client } from './account-rules.ts';
import * as store from './account-store.ts';
import { type OrganizationsContext } from './context.ts';
import { countAttempt } from './sign-in-throttle.ts';

/** A new password; every other session of the user ends. */
export async function changePassword(ctx: OrganizationsContext, principal: Principal, input: { currentPassword: string; newPassword: string }, client: Client) {
  const user = await store.findUser(ctx.db.orm, principal.userId!);
  if (!user) throw unauthorized('the session has expired or was revoked: sign in again');
  // Guessing the current password with a stolen cookie counts like guessing at sign-in.
  const accountKey = await countAttempt(ctx, user.email, client.ip);
  if (!(await ctx.accounts.passwords.verify(input.currentPassword, user.passwordHash ?? ctx.accounts.passwords.unmatchable))) {
    throw badRequest('current_password_invalid', 'currentPassword is not your current password', 'currentPassword');
  }
  await store.clearAttempts(ctx.db.orm, accountKey);
  const passwordHash = await ctx.accounts.passwords.hash(input.newPassword);
  await ctx.db.orm.transaction((tx) => setPassword(ctx, tx, user.id, passwordHash, principal.keyId));
  return { changed: true as const };
}
/** A new password ends every session but `keepSessionId` and voids every open link of the user. */
export async function setPassword(ctx: OrganizationsContext, tx: Tx, userId: string, passwordHash: string, keepSessionId?: string, name?: string) {
  const now = ctx.clock.now();
  await store.setPassword(tx, userId, passwordHash, name);
  await store.revokeUserSessions(tx, userId, now, keepSessionId);
  await store.closeInvitations(tx, userId, now);
  await store.closeResets(tx, userId, now);
}