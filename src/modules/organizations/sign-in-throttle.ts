import { AppError } from '../../platform/errors.ts';
import * as store from './account-store.ts';
import { type OrganizationsContext } from './context.ts';

/**
 * Counts an attempt for the account (a keyed hash of the e-mail, whether or not it
 * exists) and for the client address; 429 once either is over its limit in the window.
 */
export async function countAttempt(ctx: OrganizationsContext, email: string, ip: string): Promise<string> {
  const { maxPerAccount, maxPerAddress, windowMs } = ctx.accounts.signIn;
  const accountKey = `account:${ctx.hasher.hash(`signin:${email.trim().toLowerCase()}`)}`;
  const now = ctx.clock.now();
  const counts = await store.countAttempts(ctx.db.orm, [accountKey, `address:${ip}`], now, windowMs);
  let waitMs = 0;
  for (const c of counts) {
    const limit = c.key === accountKey ? maxPerAccount : maxPerAddress;
    if (c.attempts > limit) waitMs = Math.max(waitMs, c.windowStartedAt.getTime() + windowMs - now.getTime());
  }
  if (waitMs > 0) {
    const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
    throw new AppError(429, 'too_many_attempts', `too many sign-in attempts: try again in ${retryAfterSeconds} s`, {
      meta: { retryAfterSeconds },
    });
  }
  return accountKey;
}