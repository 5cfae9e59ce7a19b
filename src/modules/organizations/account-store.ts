import { and, asc, desc, eq, gt, isNull, lt, ne, or, sql } from 'drizzle-orm';
import { rows, type Executor } from '../../db/index.ts';
import { authThrottle, invitations, memberships, organizations, passwordResets, projects, userSessions, users } from '../../db/schema/organizations.ts';
import type { Role } from '../../platform/auth/index.ts';

export type SessionRow = typeof userSessions.$inferSelect;

// ---- users and memberships, as sign-in sees them

export async function findUser(db: Executor, id: string): Promise<typeof users.$inferSelect | null> {
  const [user] = await db.select().from(users).where(eq(users.id, id));
  return user ?? null;
}

export async function setPassword(db: Executor, userId: string, passwordHash: string, name?: string) {
  await db
    .update(users)
    .set({ passwordHash, ...(name !== undefined ? { name } : {}) })
    .where(eq(users.id, userId));
}

/** Every organization of the user with the user's role, oldest membership first. */
export async function userOrganizations(db: Executor, userId: string): Promise<{ id: string; name: string; role: Role }[]> {
  return db
    .select({ id: organizations.id, name: organizations.name, role: memberships.role })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.createdAt), asc(organizations.id));
}

export async function organizationProjects(db: Executor, organizationId: string) {
  return db
    .select({ id: projects.id, name: projects.name })
    .from(projects)
    .where(eq(projects.organizationId, organizationId))
    .orderBy(asc(projects.createdAt), asc(projects.id));
}

// ---- sessions

export async function insertSession(db: Executor, row: typeof userSessions.$inferInsert) {
  await db.insert(userSessions).values(row);
}

/** A session that is not revoked, with its user's current role in its organization (null when no longer a member). */
export async function findSessionByTokenHash(db: Executor, tokenHash: string) {
  const [row] = await db
    .select({ session: userSessions, role: memberships.role })
    .from(userSessions)
    .leftJoin(memberships, and(eq(memberships.organizationId, userSessions.organizationId), eq(memberships.userId, userSessions.userId)))
    .where(and(eq(userSessions.tokenHash, tokenHash), isNull(userSessions.revokedAt)));
  return row ?? null;
}

export async function findSession(db: Executor, id: string): Promise<SessionRow | null> {
  const [row] = await db.select().from(userSessions).where(eq(userSessions.id, id));
  return row ?? null;
}

/** Moves last_seen_at to `at` unless it moved less than `minGapMs` ago (one write a minute, not one a request). */
export async function touchSession(db: Executor, id: string, at: Date, minGapMs: number) {
  await db
    .update(userSessions)
    .set({ lastSeenAt: at })
    .where(and(eq(userSessions.id, id), lt(userSessions.lastSeenAt, new Date(at.getTime() - minGapMs))));
}

/** The user's sessions that are neither revoked nor past either limit, newest first. */
export async function listActiveSessions(db: Executor, userId: string, now: Date, idleMs: number) {
  return db
    .select()
    .from(userSessions)
    .where(
      and(
        eq(userSessions.userId, userId),
        isNull(userSessions.revokedAt),
        gt(userSessions.expiresAt, now),
        gt(userSessions.lastSeenAt, new Date(now.getTime() - idleMs)),
      ),
    )
    .orderBy(desc(userSessions.createdAt), asc(userSessions.id));
}

export async function revokeSession(db: Executor, userId: string, id: string, at: Date): Promise<boolean> {
  const revoked = await db
    .update(userSessions)
    .set({ revokedAt: at })
    .where(and(eq(userSessions.id, id), eq(userSessions.userId, userId), isNull(userSessions.revokedAt)))
    .returning({ id: userSessions.id });
  return revoked.length > 0;
}

/** Ends every session, invitation and reset link of the installation (their token hashes are of a replaced key). */
export async function endAllTokenLinks(db: Executor, at: Date): Promise<{ sessions: number; invitations: number; resets: number }> {
  const sessions = await db.update(userSessions).set({ revokedAt: at }).where(isNull(userSessions.revokedAt)).returning({ id: userSessions.id });
  const invites = await db
    .update(invitations)
    .set({ revokedAt: at })
    .where(and(isNull(invitations.acceptedAt), isNull(invitations.revokedAt)))
    .returning({ id: invitations.id });
  const resets = await db.update(passwordResets).set({ usedAt: at }).where(isNull(passwordResets.usedAt)).returning({ id: passwordResets.id });
  return { sessions: sessions.length, invitations: invites.length, resets: resets.length };
}

/** Revokes every session of the user, but `keepId`'s. */
export async function revokeUserSessions(db: Executor, userId: string, at: Date, keepId?: string) {
  await db
    .update(userSessions)
    .set({ revokedAt: at })
    .where(and(eq(userSessions.userId, userId), isNull(userSessions.revokedAt), ...(keepId ? [ne(userSessions.id, keepId)] : [])));
}

export async function setSessionOrganization(db: Executor, id: string, organizationId: string) {
  await db.update(userSessions).set({ organizationId }).where(eq(userSessions.id, id));
}

// ---- invitations

export async function insertInvitation(db: Executor, row: typeof invitations.$inferInsert) {
  await db.insert(invitations).values(row);
}

const pendingInvitation = (now: Date) =>
  and(isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now));

/** A pending invitation whose invitee is still a member of the inviting organization. */
export async function findPendingInvitation(db: Executor, tokenHash: string, now: Date) {
  const [row] = await db
    .select({
      id: invitations.id,
      organizationId: invitations.organizationId,
      organizationName: organizations.name,
      userId: invitations.userId,
      email: users.email,
      role: memberships.role,
      expiresAt: invitations.expiresAt,
    })
    .from(invitations)
    .innerJoin(users, eq(users.id, invitations.userId))
    .innerJoin(organizations, eq(organizations.id, invitations.organizationId))
    .innerJoin(memberships, and(eq(memberships.organizationId, invitations.organizationId), eq(memberships.userId, invitations.userId)))
    .where(and(eq(invitations.tokenHash, tokenHash), pendingInvitation(now)));
  return row ?? null;
}

export async function listPendingInvitations(db: Executor, organizationId: string, now: Date) {
  return db
    .select({
      id: invitations.id,
      email: users.email,
      role: memberships.role,
      createdAt: invitations.createdAt,
      expiresAt: invitations.expiresAt,
      invitedByUserId: invitations.invitedByUserId,
    })
    .from(invitations)
    .innerJoin(users, eq(users.id, invitations.userId))
    .innerJoin(memberships, and(eq(memberships.organizationId, invitations.organizationId), eq(memberships.userId, invitations.userId)))
    .where(and(eq(invitations.organizationId, organizationId), pendingInvitation(now)))
    .orderBy(desc(invitations.createdAt), asc(invitations.id));
}

/** Revokes a pending invitation of the organization; answers its invitee, or null when there is none. */
export async function revokeInvitation(db: Executor, organizationId: string, id: string, now: Date): Promise<string | null> {
  const [row] = await db
    .update(invitations)
    .set({ revokedAt: now })
    .where(and(eq(invitations.id, id), eq(invitations.organizationId, organizationId), pendingInvitation(now)))
    .returning({ userId: invitations.userId });
  return row?.userId ?? null;
}

/** Once the user has a password, no invitation of theirs may set it again. */
export async function closeInvitations(db: Executor, userId: string, now: Date) {
  await db
    .update(invitations)
    .set({ acceptedAt: now })
    .where(and(eq(invitations.userId, userId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)));
}

// ---- password resets

export async function insertReset(db: Executor, row: typeof passwordResets.$inferInsert) {
  await db.insert(passwordResets).values(row);
}

export async function findPendingReset(db: Executor, tokenHash: string, now: Date) {
  const [row] = await db
    .select({
      id: passwordResets.id,
      userId: passwordResets.userId,
      organizationId: passwordResets.organizationId,
      email: users.email,
      expiresAt: passwordResets.expiresAt,
    })
    .from(passwordResets)
    .innerJoin(users, eq(users.id, passwordResets.userId))
    .where(and(eq(passwordResets.tokenHash, tokenHash), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, now)));
  return row ?? null;
}

/** Marks every unused reset link of the user used: a new link or a new password voids the older links. */
export async function closeResets(db: Executor, userId: string, now: Date) {
  await db
    .update(passwordResets)
    .set({ usedAt: now })
    .where(and(eq(passwordResets.userId, userId), isNull(passwordResets.usedAt)));
}

// ---- sign-in attempt counters

/**
 * Counts one attempt under each key in fixed windows (a window older than `windowMs`
 * starts over at 1) and answers each key's count and window start. One statement, so
 * concurrent attempts from any process count exactly.
 */
export async function countAttempts(
  db: Executor,
  keys: string[],
  now: Date,
  windowMs: number,
): Promise<{ key: string; attempts: number; windowStartedAt: Date }[]> {
  const nowIso = now.toISOString();
  const staleBefore = new Date(now.getTime() - windowMs).toISOString();
  const values = sql.join(
    keys.map((k) => sql`(${k}, ${nowIso}::timestamptz, 1)`),
    sql`, `,
  );
  const result = await rows<{ key: string; attempts: number; window_started_at: Date | string }>(
    db,
    sql`INSERT INTO auth_throttle AS t (key, window_started_at, attempts) VALUES ${values}
        ON CONFLICT (key) DO UPDATE SET
          attempts = CASE WHEN t.window_started_at <= ${staleBefore}::timestamptz THEN 1 ELSE t.attempts + 1 END,
          window_started_at = CASE WHEN t.window_started_at <= ${staleBefore}::timestamptz
                                   THEN EXCLUDED.window_started_at ELSE t.window_started_at END
        RETURNING key, attempts::int AS attempts, window_started_at`,
  );
  return result.map((r) => ({ key: r.key, attempts: Number(r.attempts), windowStartedAt: new Date(r.window_started_at) }));
}

export async function clearAttempts(db: Executor, key: string) {
  await db.delete(authThrottle).where(eq(authThrottle.key, key));
}

// ---- housekeeping

/** Deletes what can no longer be used: ended sessions, closed links after a month, old counters. */
export async function sweep(db: Executor, now: Date, idleMs: number, throttleWindowMs: number) {
  const monthAgo = new Date(now.getTime() - 30 * 86_400_000);
  await db
    .delete(userSessions)
    .where(
      or(
        lt(userSessions.expiresAt, now),
        lt(userSessions.lastSeenAt, new Date(now.getTime() - idleMs)),
        lt(userSessions.revokedAt, new Date(now.getTime() - 86_400_000)),
      ),
    );
  await db.delete(invitations).where(lt(invitations.expiresAt, monthAgo));
  await db.delete(passwordResets).where(lt(passwordResets.expiresAt, monthAgo));
  await db.delete(authThrottle).where(lt(authThrottle.windowStartedAt, new Date(now.getTime() - throttleWindowMs)));
}

/** Uses up a pending invitation (one request wins when two race); answers whose it was, or null. */
export async function claimInvitation(db: Executor, tokenHash: string, now: Date) {
  const [row] = await db
    .update(invitations)
    .set({ acceptedAt: now })
    .where(and(eq(invitations.tokenHash, tokenHash), pendingInvitation(now)))
    .returning({ organizationId: invitations.organizationId, userId: invitations.userId });
  return row ?? null;
}

/** Uses up a pending reset link (one request wins when two race); answers whose it was, or null. */
export async function claimReset(db: Executor, tokenHash: string, now: Date) {
  const [row] = await db
    .update(passwordResets)
    .set({ usedAt: now })
    .where(and(eq(passwordResets.tokenHash, tokenHash), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, now)))
    .returning({ organizationId: passwordResets.organizationId, userId: passwordResets.userId });
  return row ?? null;
}

/** Browser sessions not ended, and invitation and password-reset links not used (the key tools: a new token-hash key ends them all). */
export async function liveSessionsAndLinks(db: Executor): Promise<{ sessions: number; links: number }> {
  const [counts] = await rows<{ sessions: number; links: number }>(
    db,
    sql`SELECT (SELECT count(*)::int FROM user_sessions WHERE revoked_at IS NULL) AS sessions,
               (SELECT count(*)::int FROM invitations WHERE accepted_at IS NULL AND revoked_at IS NULL)
                 + (SELECT count(*)::int FROM password_resets WHERE used_at IS NULL) AS links`,
  );
  return { sessions: Number(counts.sessions), links: Number(counts.links) };
}
