import type { z } from 'zod';
import type { Logger } from 'pino';
import type { Database, Executor, Tx } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { AppError, badRequest, conflict, notFound, unauthorized } from '../../platform/errors.ts';
import { newId, randomAlphanumeric } from '../../platform/ids.ts';
import type { TokenHasher } from '../../platform/tokens.ts';
import type { Mailer } from '../../platform/mail.ts';
import { rolePermissions, type Principal, type Role } from '../../platform/auth/index.ts';
import type { OrganizationService } from './service.ts';
import type { MemberView } from './presenters.ts';
import type { pendingInvitationSchema, sessionSchema } from './schemas.ts';
import type { PasswordHasher } from './passwords.ts';
import * as store from './account-store.ts';
import * as orgStore from './store.ts';

export type SessionView = z.infer<typeof sessionSchema>;
export type PendingInvitationView = z.infer<typeof pendingInvitationSchema>;

export interface AccountOptions {
  sessions: { idleMs: number; maxAgeMs: number };
  signIn: { maxPerAccount: number; maxPerAddress: number; windowMs: number };
  /** Base of links (SPYGLASS_PUBLIC_URL); null: the origin of the request that asks for one. */
  publicUrl: string | null;
  passwords: PasswordHasher;
}

/** Who is signing in, as the request shows it. */
export interface Client {
  ip: string;
  userAgent: string | null;
}

/** A session just started: its view, and the cookie's token and lifetime. */
export interface StartedSession {
  session: SessionView;
  token: string;
  cookieExpiresAt: Date;
}

export interface Link {
  url: string;
  expiresAt: string;
}

const INVITATION_LIFETIME_MS = 7 * 86_400_000;
const RESET_LIFETIME_MS = 3_600_000;
/** last_seen_at is written at most this often per session. */
const TOUCH_INTERVAL_MS = 60_000;
/** Tokens of sessions, invitations and resets: 48 letters and digits (285 bits). */
const TOKEN_PATTERN = /^[A-Za-z0-9]{48}$/;

const invalidCredentials = () => new AppError(401, 'invalid_credentials', 'wrong e-mail or password');
const invitationNotFound = () => notFound('invitation_not_found', 'this invitation link is unknown, used, revoked or expired');
const resetNotFound = () => notFound('reset_not_found', 'this password-reset link is unknown, used or expired');

/**
 * Signing in with e-mail and password, the browser sessions this gives (kept in the
 * database, so any process serves any session), invitation and password-reset links.
 */
export class AccountService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly hasher: TokenHasher,
    private readonly options: AccountOptions,
    private readonly organizations: OrganizationService,
    private readonly mailer: Mailer | null,
    private readonly logger: Logger,
  ) {}

  /** The hasher of this installation's passwords (first start hashes the admin's with it). */
  get passwords(): PasswordHasher {
    return this.options.passwords;
  }

  /**
   * `spyglass keys replace-token-hash`: sessions, invitation and reset links are found by a
   * hash made with the key being replaced; they are ended (people sign in again; links are
   * sent again). In the caller's transaction.
   */
  async endAllAfterHashKeyChange(tx: Tx): Promise<{ sessions: number; invitations: number; resets: number }> {
    return store.endAllTokenLinks(tx, this.clock.now());
  }

  // ---- signing in and the session credential

  async signIn(input: { email: string; password: string }, client: Client): Promise<StartedSession> {
    const accountKey = await this.countAttempt(input.email, client.ip);
    const user = await orgStore.findUserByEmail(this.db.orm, input.email.trim());
    // Unknown e-mails and users without a password verify against a hash no password
    // matches: the same work, the same answer, so the answer never tells who exists.
    const matches = await this.passwords.verify(input.password, user?.passwordHash ?? this.passwords.unmatchable);
    if (!user?.passwordHash || !matches) throw invalidCredentials();
    await store.clearAttempts(this.db.orm, accountKey);
    if (this.passwords.needsRehash(user.passwordHash)) await store.setPassword(this.db.orm, user.id, await this.passwords.hash(input.password));
    const [first] = await store.userOrganizations(this.db.orm, user.id);
    if (!first) throw new AppError(403, 'no_organization', 'this account belongs to no organization; ask an admin to add you');
    return this.db.orm.transaction((tx) => this.startSession(tx, user.id, first.id, client));
  }

  /** The session cookie's principal: the user's current role in the session's organization. */
  async resolveSession(token: string, now: Date): Promise<Principal | null> {
    if (!TOKEN_PATTERN.test(token)) return null;
    const found = await store.findSessionByTokenHash(this.db.orm, this.hasher.hash(token));
    // No role: the user left the organization, and the session stops working with it.
    if (!found?.role || now.getTime() >= this.sessionEnd(found.session).getTime()) return null;
    const session = found.session;
    if (now.getTime() - session.lastSeenAt.getTime() >= TOUCH_INTERVAL_MS) {
      await store.touchSession(this.db.orm, session.id, now, TOUCH_INTERVAL_MS);
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
      csrfToken: this.csrfToken(session.id),
    };
  }

  async describe(principal: Principal): Promise<SessionView> {
    const session = await store.findSession(this.db.orm, principal.keyId);
    if (!session) throw unauthorized('the session has expired or was revoked: sign in again');
    return this.view(this.db.orm, session);
  }

  async switchOrganization(principal: Principal, organizationId: string): Promise<SessionView> {
    if (!(await orgStore.findMembershipRole(this.db.orm, organizationId, principal.userId!))) {
      throw notFound('organization_not_found', `you are not a member of organization ${organizationId}`);
    }
    await store.setSessionOrganization(this.db.orm, principal.keyId, organizationId);
    return this.describe(principal);
  }

  async signOut(principal: Principal): Promise<{ signedOut: true }> {
    await store.revokeSession(this.db.orm, principal.userId!, principal.keyId, this.clock.now());
    return { signedOut: true };
  }

  async listSessions(principal: Principal) {
    const now = this.clock.now();
    const sessions = await store.listActiveSessions(this.db.orm, principal.userId!, now, this.options.sessions.idleMs);
    return sessions.map((s) => ({
      id: s.id,
      createdAt: s.createdAt.toISOString(),
      lastSeenAt: s.lastSeenAt.toISOString(),
      expiresAt: this.sessionEnd(s).toISOString(),
      userAgent: s.userAgent,
      ipAddress: s.ipAddress,
      current: s.id === principal.keyId,
    }));
  }

  /** Revokes one of the caller's own sessions; another user's session ids answer 404. */
  async revokeSession(principal: Principal, id: string): Promise<{ id: string; revoked: true }> {
    if (!(await store.revokeSession(this.db.orm, principal.userId!, id, this.clock.now()))) {
      throw notFound('session_not_found', `no session ${id} of yours`);
    }
    return { id, revoked: true };
  }

  /** A new password; every other session of the user ends. */
  async changePassword(principal: Principal, input: { currentPassword: string; newPassword: string }, client: Client) {
    const user = await store.findUser(this.db.orm, principal.userId!);
    if (!user) throw unauthorized('the session has expired or was revoked: sign in again');
    // Guessing the current password with a stolen cookie counts like guessing at sign-in.
    const accountKey = await this.countAttempt(user.email, client.ip);
    if (!(await this.passwords.verify(input.currentPassword, user.passwordHash ?? this.passwords.unmatchable))) {
      throw badRequest('current_password_invalid', 'currentPassword is not your current password', 'currentPassword');
    }
    await store.clearAttempts(this.db.orm, accountKey);
    const passwordHash = await this.passwords.hash(input.newPassword);
    await this.db.orm.transaction((tx) => this.setPassword(tx, user.id, passwordHash, principal.keyId));
    return { changed: true as const };
  }

  // ---- invitations

  /**
   * Adds a member; a user without a password who belongs to no other organization gets a
   * one-time link to set one (also mailed when SMTP_URL is set).
   */
  async addMember(
    principal: Principal,
    input: { email: string; name?: string; role: Role },
    origin: string,
  ): Promise<MemberView & { invitation: { id: string; url: string; expiresAt: string } | null }> {
    // Set inside the transaction's callback, which TypeScript's narrowing does not follow: the
    // assertion keeps `null` from narrowing it for good.
    let invitation = null as { id: string; url: string; expiresAt: string } | null;
    const member = await this.organizations.addMember(principal, input, async (tx, user) => {
      if (user.passwordHash || !(await this.ownedBy(tx, user.id, principal.organizationId))) return;
      const token = randomAlphanumeric(48);
      const now = this.clock.now();
      const expiresAt = new Date(now.getTime() + INVITATION_LIFETIME_MS);
      const id = newId('inv');
      await store.insertInvitation(tx, {
        id,
        organizationId: principal.organizationId,
        userId: user.id,
        tokenHash: this.hasher.hash(token),
        invitedByUserId: principal.userId,
        createdAt: now,
        expiresAt,
      });
      invitation = { id, url: `${this.linkBase(origin)}/invite/${token}`, expiresAt: expiresAt.toISOString() };
    });
    if (invitation) {
      const { url, expiresAt } = invitation;
      const org = await orgStore.findOrganization(this.db.orm, principal.organizationId);
      this.mail(
        member.email,
        `You are invited to ${org?.name ?? 'an organization'} on Spyglass`,
        `You have been added to ${org?.name ?? 'an organization'} on Spyglass as ${member.role}.\n\n` +
          `Set your password here (the link works once, until ${expiresAt}):\n${url}\n`,
      );
    }
    return { ...member, invitation };
  }

  async invitationInfo(token: string) {
    const found = await store.findPendingInvitation(this.db.orm, this.hasher.hash(token), this.clock.now());
    if (!found || !(await this.ownedBy(this.db.orm, found.userId, found.organizationId))) throw invitationNotFound();
    return { email: found.email, organizationName: found.organizationName, role: found.role, expiresAt: found.expiresAt.toISOString() };
  }

  /** The invitee sets a password and is signed in. */
  async acceptInvitation(token: string, input: { password: string; name?: string }, client: Client): Promise<StartedSession> {
    const tokenHash = this.hasher.hash(token);
    // Looked up before hashing the password: an unknown token costs no KDF work.
    if (!(await store.findPendingInvitation(this.db.orm, tokenHash, this.clock.now()))) throw invitationNotFound();
    const passwordHash = await this.passwords.hash(input.password);
    return this.db.orm.transaction(async (tx) => {
      const claimed = await store.claimInvitation(tx, tokenHash, this.clock.now());
      const user = claimed && (await store.findUser(tx, claimed.userId));
      if (!claimed || !user || user.passwordHash || !(await this.ownedBy(tx, user.id, claimed.organizationId))) throw invitationNotFound();
      await this.setPassword(tx, user.id, passwordHash, undefined, input.name);
      return this.startSession(tx, user.id, claimed.organizationId, client);
    });
  }

  async listInvitations(principal: Principal): Promise<PendingInvitationView[]> {
    const rows = await store.listPendingInvitations(this.db.orm, principal.organizationId, this.clock.now());
    return rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString(), expiresAt: r.expiresAt.toISOString() }));
  }

  /**
   * Withdraws a pending invitation: the link stops working, and the invitee, who never set
   * a password, leaves the organization (adding them again makes a new link).
   */
  async revokeInvitation(principal: Principal, id: string): Promise<{ id: string; revoked: true }> {
    return this.db.orm.transaction(async (tx) => {
      const userId = await store.revokeInvitation(tx, principal.organizationId, id, this.clock.now());
      if (!userId) throw notFound('invitation_not_found', `no pending invitation ${id} in this organization`);
      const user = await store.findUser(tx, userId);
      if (user && !user.passwordHash) await this.organizations.removeMembership(tx, principal.organizationId, userId);
      return { id, revoked: true as const };
    });
  }

  // ---- password resets

  /** An admin's one-time link for a member of this organization alone. */
  async issueReset(principal: Principal, userId: string, origin: string): Promise<Link> {
    if (!(await orgStore.findMembershipRole(this.db.orm, principal.organizationId, userId))) {
      throw notFound('member_not_found', `user ${userId} is not a member of this organization`);
    }
    if (!(await this.ownedBy(this.db.orm, userId, principal.organizationId))) {
      throw conflict(
        'member_of_other_organizations',
        'this user also belongs to other organizations: they change their password themselves, or the server operator runs `spyglass users reset-password`',
      );
    }
    // A member of the organization (checked above) is a user that exists.
    const user = (await store.findUser(this.db.orm, userId))!;
    const link = await this.createReset(user.id, principal.organizationId, principal.userId, this.linkBase(origin));
    this.mail(
      user.email,
      'Set a new Spyglass password',
      `An administrator made a link to set a new password for your Spyglass account (${user.email}).\n\n` +
        `It works once, until ${link.expiresAt}:\n${link.url}\n`,
    );
    return link;
  }

  /** The server operator's link (`spyglass users reset-password <email>`), for any user with an organization. */
  async issueOperatorReset(email: string, base: string): Promise<Link> {
    const user = await orgStore.findUserByEmail(this.db.orm, email);
    if (!user) throw notFound('user_not_found', `no user with e-mail ${email}`);
    if (!(await store.userOrganizations(this.db.orm, user.id)).length) {
      throw conflict('no_organization', `${email} belongs to no organization`);
    }
    return this.createReset(user.id, null, null, base.replace(/\/+$/, ''));
  }

  async resetInfo(token: string) {
    const found = await store.findPendingReset(this.db.orm, this.hasher.hash(token), this.clock.now());
    if (!found || !(await this.resetOrganization(this.db.orm, found))) throw resetNotFound();
    return { email: found.email, expiresAt: found.expiresAt.toISOString() };
  }

  /** Sets the new password, ends every session of the user, and signs in. */
  async resetPassword(token: string, input: { password: string }, client: Client): Promise<StartedSession> {
    const tokenHash = this.hasher.hash(token);
    if (!(await store.findPendingReset(this.db.orm, tokenHash, this.clock.now()))) throw resetNotFound();
    const passwordHash = await this.passwords.hash(input.password);
    return this.db.orm.transaction(async (tx) => {
      const claimed = await store.claimReset(tx, tokenHash, this.clock.now());
      const organizationId = claimed && (await this.resetOrganization(tx, claimed));
      if (!claimed || !organizationId) throw resetNotFound();
      await this.setPassword(tx, claimed.userId, passwordHash);
      return this.startSession(tx, claimed.userId, organizationId, client);
    });
  }

  /** Deletes ended sessions, closed links and stale attempt counters. */
  sweep() {
    return store.sweep(this.db.orm, this.clock.now(), this.options.sessions.idleMs, this.options.signIn.windowMs);
  }

  // ---- inside

  /** The base of links: SPYGLASS_PUBLIC_URL, else the origin the request came to. */
  private linkBase(origin: string): string {
    return this.options.publicUrl ?? origin;
  }

  /**
   * True when `organizationId` is the user's only organization. An organization's admin
   * sees the links it makes (to copy them), so such a link may only set the password of a
   * user whose every membership that admin already governs.
   */
  private async ownedBy(db: Executor, userId: string, organizationId: string): Promise<boolean> {
    const orgs = await store.userOrganizations(db, userId);
    return orgs.length > 0 && orgs.every((o) => o.id === organizationId);
  }

  /** Where a reset link signs in: its organization (if the user still belongs to it alone), or an operator link's first one. */
  private async resetOrganization(db: Executor, reset: { userId: string; organizationId: string | null }): Promise<string | null> {
    if (reset.organizationId) return (await this.ownedBy(db, reset.userId, reset.organizationId)) ? reset.organizationId : null;
    const [first] = await store.userOrganizations(db, reset.userId);
    return first?.id ?? null;
  }

  private async createReset(userId: string, organizationId: string | null, createdByUserId: string | null, base: string): Promise<Link> {
    const token = randomAlphanumeric(48);
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + RESET_LIFETIME_MS);
    await this.db.orm.transaction(async (tx) => {
      // One live link per user: a new one voids the older ones.
      await store.closeResets(tx, userId, now);
      await store.insertReset(tx, {
        id: newId('reset'),
        userId,
        organizationId,
        tokenHash: this.hasher.hash(token),
        createdByUserId,
        createdAt: now,
        expiresAt,
      });
    });
    return { url: `${base}/reset-password/${token}`, expiresAt: expiresAt.toISOString() };
  }

  /** A new password ends every session but `keepSessionId` and voids every open link of the user. */
  private async setPassword(tx: Tx, userId: string, passwordHash: string, keepSessionId?: string, name?: string) {
    const now = this.clock.now();
    await store.setPassword(tx, userId, passwordHash, name);
    await store.revokeUserSessions(tx, userId, now, keepSessionId);
    await store.closeInvitations(tx, userId, now);
    await store.closeResets(tx, userId, now);
  }

  private async startSession(tx: Tx, userId: string, organizationId: string, client: Client): Promise<StartedSession> {
    const token = randomAlphanumeric(48);
    const now = this.clock.now();
    const row = {
      id: newId('sess'),
      userId,
      organizationId,
      tokenHash: this.hasher.hash(token),
      userAgent: client.userAgent?.slice(0, 500) ?? null,
      ipAddress: client.ip,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + this.options.sessions.maxAgeMs),
      revokedAt: null,
    };
    await store.insertSession(tx, row);
    return { session: await this.view(tx, row), token, cookieExpiresAt: row.expiresAt };
  }

  private async view(db: Executor, session: store.SessionRow): Promise<SessionView> {
    const user = await store.findUser(db, session.userId);
    const organizations = await store.userOrganizations(db, session.userId);
    const active = organizations.find((o) => o.id === session.organizationId);
    if (!user || !active) throw unauthorized('the session has expired or was revoked: sign in again');
    return {
      user: { id: user.id, email: user.email, name: user.name },
      organization: { id: active.id, name: active.name },
      role: active.role,
      permissions: rolePermissions(active.role).expanded(),
      organizations,
      projects: await store.organizationProjects(db, active.id),
      csrfToken: this.csrfToken(session.id),
      expiresAt: this.sessionEnd(session).toISOString(),
    };
  }

  /** The idle limit from the last request, capped by the absolute limit. */
  private sessionEnd(session: { lastSeenAt: Date; expiresAt: Date }): Date {
    return new Date(Math.min(session.lastSeenAt.getTime() + this.options.sessions.idleMs, session.expiresAt.getTime()));
  }

  /** Tied to the session and unforgeable without the token-hash key; nothing stored. */
  private csrfToken(sessionId: string): string {
    return this.hasher.hash(`csrf:${sessionId}`);
  }

  /**
   * Counts an attempt for the account (a keyed hash of the e-mail, whether or not it
   * exists) and for the client address; 429 once either is over its limit in the window.
   */
  private async countAttempt(email: string, ip: string): Promise<string> {
    const { maxPerAccount, maxPerAddress, windowMs } = this.options.signIn;
    const accountKey = `account:${this.hasher.hash(`signin:${email.trim().toLowerCase()}`)}`;
    const now = this.clock.now();
    const counts = await store.countAttempts(this.db.orm, [accountKey, `address:${ip}`], now, windowMs);
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

  private mail(to: string, subject: string, text: string) {
    if (!this.mailer) return;
    // The link is already in the answer; a mail server that fails costs the mail, not the request.
    this.mailer.send({ to, subject, text }).catch((err: Error) => this.logger.warn({ error: err.message }, 'mail not sent'));
  }
}
