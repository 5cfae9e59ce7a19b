import { type Executor, type Tx } from '../../db/index.ts';
import { type Principal, rolePermissions } from '../../platform/auth/index.ts';
import { notFound, AppError, unauthorized } from '../../platform/errors.ts';
import { newId, randomAlphanumeric } from '../../platform/ids.ts';
import { type Client, type StartedSession, TOUCH_INTERVAL_MS, TOKEN_PATTERN, invalidCredentials } from './account-rules.ts';
import * as store from './account-store.ts';
import * as orgStore from './store.ts';
import { type OrganizationsContext } from './context.ts';
import { presentSession, presentSessionListItem, type SessionListItemView, type SessionView } from './presenters.ts';
import { countAttempt } from './sign-in-throttle.ts';

export async function signIn(ctx: OrganizationsContext, input: { email: string; password: string }, client: Client): Promise<StartedSession> {
  const accountKey = await countAttempt(ctx, input.email, client.ip);
  const user = await orgStore.findUserByEmail(ctx.db.orm, input.email.trim());
  // Unknown e-mails and users without a password verify against a hash no password
  // matches: the same work, the same answer, so the answer never tells who exists.
  const matches = await ctx.accounts.passwords.verify(input.password, user?.passwordHash ?? ctx.accounts.passwords.unmatchable);
  if (!user?.passwordHash || !matches) throw invalidCredentials();
  await store.clearAttempts(ctx.db.orm, accountKey);
  if (ctx.accounts.passwords.needsRehash(user.passwordHash)) await store.setPassword(ctx.db.orm, user.id, await ctx.accounts.passwords.hash(input.password));
  const [first] = await store.userOrganizations(ctx.db.orm, user.id);
  if (!first) throw new AppError(403, 'no_organization', 'this account belongs to no organization; ask an admin to add you');
  return ctx.db.orm.transaction((tx) => startSession(ctx, tx, user.id, first.id, client));
}
/** The session cookie's principal: the user's current role in the session's organization. */
export async function resolveSession(ctx: OrganizationsContext, token: string, now: Date): Promise<Principal | null> {
  if (!TOKEN_PATTERN.test(token)) return null;
  const found = await store.findSessionByTokenHash(ctx.db.orm, ctx.hasher.hash(token));
  // No role: the user left the organization, and the session stops working with it.
  if (!found?.role || now.getTime() >= sessionEnd(ctx, found.session).getTime()) return null;
  const session = found.session;
  if (now.getTime() - session.lastSeenAt.getTime() >= TOUCH_INTERVAL_MS) {
    await store.touchSession(ctx.db.orm, session.id, now, TOUCH_INTERVAL_MS);
  }
  const permissions = rolePermissions(found.role);
  return {
    keyId: session.id,
    keyType: 'session',
    organizationId: session.organizationId,
    userId: session.userId,
    projectId: null,
    organizationPermissions: permissions,
    // The auth hook only asks about projects of the session's organization.
    projectPermissions: () => permissions,
    csrfToken: csrfToken(ctx, session.id),
  };
}
export async function describe(ctx: OrganizationsContext, principal: Principal): Promise<SessionView> {
  const session = await store.findSession(ctx.db.orm, principal.keyId);
  if (!session) throw unauthorized('the session has expired or was revoked: sign in again');
  return sessionView(ctx, ctx.db.orm, session);
}
export async function switchOrganization(ctx: OrganizationsContext, principal: Principal, organizationId: string): Promise<SessionView> {
  if (!(await orgStore.findMembershipRole(ctx.db.orm, organizationId, principal.userId!))) {
    throw notFound('organization_not_found', `you are not a member of organization ${organizationId}`);
  }
  await store.setSessionOrganization(ctx.db.orm, principal.keyId, organizationId);
  return describe(ctx, principal);
}
export async function signOut(ctx: OrganizationsContext, principal: Principal): Promise<{ signedOut: true }> {
  await store.revokeSession(ctx.db.orm, principal.userId!, principal.keyId, ctx.clock.now());
  return { signedOut: true };
}
export async function listSessions(ctx: OrganizationsContext, principal: Principal): Promise<SessionListItemView[]> {
  const now = ctx.clock.now();
  const sessions = await store.listActiveSessions(ctx.db.orm, principal.userId!, now, ctx.accounts.sessions.idleMs);
  return sessions.map((s) => presentSessionListItem(s, sessionEnd(ctx, s), s.id === principal.keyId));
}
/** Revokes one of the caller's own sessions; another user's session ids answer 404. */
export async function revokeSession(ctx: OrganizationsContext, principal: Principal, id: string): Promise<{ id: string; revoked: true }> {
  if (!(await store.revokeSession(ctx.db.orm, principal.userId!, id, ctx.clock.now()))) {
    throw notFound('session_not_found', `no session ${id} of yours`);
  }
  return { id, revoked: true };
}
export async function startSession(ctx: OrganizationsContext, tx: Tx, userId: string, organizationId: string, client: Client): Promise<StartedSession> {
  const token = randomAlphanumeric(48);
  const now = ctx.clock.now();
  const row = {
    id: newId('sess'),
    userId,
    organizationId,
    tokenHash: ctx.hasher.hash(token),
    userAgent: client.userAgent?.slice(0, 500) ?? null,
    ipAddress: client.ip,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + ctx.accounts.sessions.maxAgeMs),
    revokedAt: null,
  };
  await store.insertSession(tx, row);
  return { session: await sessionView(ctx, tx, row), token, cookieExpiresAt: row.expiresAt };
}
export async function sessionView(ctx: OrganizationsContext, db: Executor, session: store.SessionRow): Promise<SessionView> {
  const user = await store.findUser(db, session.userId);
  const organizations = await store.userOrganizations(db, session.userId);
  const active = organizations.find((o) => o.id === session.organizationId);
  if (!user || !active) throw unauthorized('the session has expired or was revoked: sign in again');
  return presentSession({
    user,
    active,
    permissions: rolePermissions(active.role).expanded(),
    organizations,
    projects: await store.organizationProjects(db, active.id),
    csrfToken: csrfToken(ctx, session.id),
    end: sessionEnd(ctx, session),
  });
}
/** The idle limit from the last request, capped by the absolute limit. */
export function sessionEnd(ctx: OrganizationsContext, session: { lastSeenAt: Date; expiresAt: Date }): Date {
  return new Date(Math.min(session.lastSeenAt.getTime() + ctx.accounts.sessions.idleMs, session.expiresAt.getTime()));
}
/** Tied to the session and unforgeable without the token-hash key; nothing stored. */
export function csrfToken(ctx: OrganizationsContext, sessionId: string): string {
  return ctx.hasher.hash(`csrf:${sessionId}`);
}
/** Deletes ended sessions, closed links and stale attempt counters. */
export function sweep(ctx: OrganizationsContext) {
  return store.sweep(ctx.db.orm, ctx.clock.now(), ctx.accounts.sessions.idleMs, ctx.accounts.signIn.windowMs);
}
/**
 * `spyglass keys replace-token-hash`: sessions, invitation and reset links are found by a
 * hash made with the key being replaced; they are ended (people sign in again; links are
 * sent again). In the caller's transaction.
 */
export async function endAllAfterHashKeyChange(ctx: OrganizationsContext, tx: Tx): Promise<{ sessions: number; invitations: number; resets: number }> {
  return store.endAllTokenLinks(tx, ctx.clock.now());
}