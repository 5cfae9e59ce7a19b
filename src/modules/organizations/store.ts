import { and, asc, count, eq, isNotNull, sql, type SQLWrapper, type Subquery } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/index.ts';
import { memberships, organizations, projects, users } from '../../db/schema/organizations.ts';
import type { Role } from '../../platform/auth/index.ts';

export type OrganizationRow = typeof organizations.$inferSelect;
export type ProjectRow = typeof projects.$inferSelect;
export type UserRow = typeof users.$inferSelect;

export async function countOrganizations(db: Executor): Promise<number> {
  const [row] = await db.select({ n: count() }).from(organizations);
  return Number(row.n);
}

export async function insertOrganization(db: Executor, row: { id: string; name: string; at: Date }) {
  const [org] = await db
    .insert(organizations)
    .values({ id: row.id, name: row.name, createdAt: row.at, updatedAt: row.at })
    .returning();
  return org;
}

export async function findOrganization(db: Executor, id: string) {
  const [org] = await db.select().from(organizations).where(eq(organizations.id, id));
  return org ?? null;
}

export async function renameOrganization(db: Executor, id: string, name: string, at: Date) {
  const [org] = await db.update(organizations).set({ name, updatedAt: at }).where(eq(organizations.id, id)).returning();
  return org ?? null;
}

export async function insertUser(db: Executor, row: typeof users.$inferInsert) {
  const [user] = await db.insert(users).values(row).returning();
  return user;
}

export async function findUserByEmail(db: Executor, email: string): Promise<UserRow | null> {
  const [user] = await db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`);
  return user ?? null;
}

export async function insertMembership(db: Executor, row: { organizationId: string; userId: string; role: Role; at: Date }) {
  await db
    .insert(memberships)
    .values({ organizationId: row.organizationId, userId: row.userId, role: row.role, createdAt: row.at });
}

export async function findMembershipRole(db: Executor, organizationId: string, userId: string): Promise<Role | null> {
  const [m] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId)));
  return m?.role ?? null;
}

export async function listMembers(db: Executor, organizationId: string) {
  return db
    .select({
      userId: users.id,
      email: users.email,
      name: users.name,
      role: memberships.role,
      createdAt: memberships.createdAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.organizationId, organizationId))
    .orderBy(asc(memberships.createdAt), asc(users.id));
}

export async function updateMembershipRole(db: Executor, organizationId: string, userId: string, role: Role) {
  const updated = await db
    .update(memberships)
    .set({ role })
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId)))
    .returning();
  return updated.length > 0;
}

export async function deleteMembership(db: Executor, organizationId: string, userId: string) {
  const deleted = await db
    .delete(memberships)
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId)))
    .returning();
  return deleted.length > 0;
}

export async function countAdmins(db: Executor, organizationId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(memberships)
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.role, 'ADMIN')));
  return Number(row.n);
}

export async function insertProject(db: Executor, row: typeof projects.$inferInsert) {
  const [project] = await db.insert(projects).values(row).returning();
  return project;
}

export async function listProjects(db: Executor, organizationId: string) {
  return db
    .select()
    .from(projects)
    .where(eq(projects.organizationId, organizationId))
    .orderBy(asc(projects.createdAt), asc(projects.id));
}

export async function findProject(db: Executor, organizationId: string, id: string): Promise<ProjectRow | null> {
  const [project] = await db
    .select()
    .from(projects)
    .where(and(eq(projects.id, id), eq(projects.organizationId, organizationId)));
  return project ?? null;
}

export async function projectOrganization(db: Executor, id: string): Promise<string | null> {
  const [row] = await db.select({ organizationId: projects.organizationId }).from(projects).where(eq(projects.id, id));
  return row?.organizationId ?? null;
}

export async function updateProject(
  db: Executor,
  organizationId: string,
  id: string,
  patch: { name?: string; retentionDays?: number | null; updatedAt: Date },
) {
  const [project] = await db
    .update(projects)
    .set(patch)
    .where(and(eq(projects.id, id), eq(projects.organizationId, organizationId)))
    .returning();
  return project ?? null;
}

/**
 * Deletes a project; its data goes with it (foreign keys cascade, and the modules'
 * project-deleted listeners remove the rest, key bindings to it among them).
 */
export async function deleteProject(db: Executor, organizationId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(projects)
    .where(and(eq(projects.id, id), eq(projects.organizationId, organizationId)))
    .returning({ id: projects.id });
  return deleted.length > 0;
}

export async function firstAdmin(db: Executor): Promise<{ organizationId: string; userId: string } | null> {
  const [row] = await db
    .select({ organizationId: memberships.organizationId, userId: memberships.userId })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(eq(memberships.role, 'ADMIN'))
    .orderBy(asc(organizations.createdAt), asc(memberships.createdAt))
    .limit(1);
  return row ?? null;
}

/** A query answering the project's id, share-locked until the transaction ends (for embedding in a caller's statement). */
/** The project's row (id), locked FOR KEY SHARE by the statement that reads it: a typed relation the caller counts. */
export function heldProject(projectId: string): Subquery & { id: SQLWrapper } {
  return new QueryBuilder().select({ id: projects.id }).from(projects).where(eq(projects.id, projectId)).for('key share').as('held_project');
}

export async function retentionPolicies(db: Executor): Promise<{ projectId: string; days: number }[]> {
  const result = await db
    .select({ projectId: projects.id, days: projects.retentionDays })
    .from(projects)
    .where(isNotNull(projects.retentionDays));
  return result.map((r) => ({ projectId: r.projectId, days: Number(r.days) }));
}

/** The e-mail of a personal key's user (annotations record it as their author). */
export async function userEmail(db: Executor, userId: string): Promise<string | null> {
  const [row] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId));
  return row?.email ?? null;
}

/** Two processes starting together on one PostgreSQL: the second waits here until the first's set-up commits. */
export async function lockFirstStart(tx: Executor): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(5560002)`);
}
