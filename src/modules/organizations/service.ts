import { sql, type SQL } from 'drizzle-orm';
import type { Database, Executor, Tx } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { conflict, notFound } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { Principal, Role } from '../../platform/auth/index.ts';
import * as store from './store.ts';
import { presentMember, presentProject, type MemberView, type ProjectView } from './presenters.ts';

/** Mints a project's API key inside the transaction that creates or rotates it (api-keys module). */
export interface ProjectKeyIssuer {
  mintProjectKey(tx: Tx, project: { id: string; organizationId: string }, token?: string): Promise<IssuedKey>;
}

export interface IssuedKey {
  token: string;
  apiKey: { id: string; name: string; createdAt: string };
}

export class OrganizationService {
  private readonly projectDeletedListeners: ((tx: Executor, projectId: string) => Promise<void>)[] = [];

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly keys: ProjectKeyIssuer,
  ) {}

  projectOrganization(projectId: string): Promise<string | null> {
    return store.projectOrganization(this.db.orm, projectId);
  }

  membershipRole(organizationId: string, userId: string, db: Executor = this.db.orm): Promise<Role | null> {
    return store.findMembershipRole(db, organizationId, userId);
  }

  /**
   * A query answering the project's id with its row share-locked until the transaction
   * ends: the project cannot be deleted while the caller writes rows for it (what a foreign
   * key does per row, done once). Callers embed it in a statement of their own.
   */
  holdProjectSql(projectId: string): SQL {
    return store.holdProjectSql(projectId);
  }

  /** Runs `listener` in the transaction that deletes a project (other modules delete what they own of it). */
  onProjectDeleted(listener: (tx: Executor, projectId: string) => Promise<void>) {
    this.projectDeletedListeners.push(listener);
  }

  /** Projects that keep traces for a limited time (the traces module's retention sweep). */
  retentionPolicies(): Promise<{ projectId: string; days: number }[]> {
    return store.retentionPolicies(this.db.orm);
  }

  firstAdmin(): Promise<{ organizationId: string; userId: string } | null> {
    return store.firstAdmin(this.db.orm);
  }

  async getOrganization(principal: Principal) {
    const org = await store.findOrganization(this.db.orm, principal.organizationId);
    if (!org) throw notFound('organization_not_found', 'organization not found');
    return { id: org.id, name: org.name, createdAt: org.createdAt.toISOString(), updatedAt: org.updatedAt.toISOString() };
  }

  async renameOrganization(principal: Principal, name: string) {
    await store.renameOrganization(this.db.orm, principal.organizationId, name, this.clock.now());
    return this.getOrganization(principal);
  }

  /** The projects of the organization this key can see. */
  async listProjects(principal: Principal): Promise<ProjectView[]> {
    const all = await store.listProjects(this.db.orm, principal.organizationId);
    return all.filter((p) => principal.projectPermissions(p.id).has('project:view')).map(presentProject);
  }

  async getProject(principal: Principal, id: string): Promise<ProjectView> {
    const p = await store.findProject(this.db.orm, principal.organizationId, id);
    if (!p) throw notFound('project_not_found', `no project ${id} in this organization`);
    return presentProject(p);
  }

  async createProject(
    principal: Principal,
    input: { name: string; retentionDays?: number | null },
  ): Promise<{ project: ProjectView } & IssuedKey> {
    return this.db.orm.transaction(async (tx) => {
      const at = this.clock.now();
      const row = await store.insertProject(tx, {
        id: newId('proj'),
        organizationId: principal.organizationId,
        name: input.name,
        retentionDays: input.retentionDays ?? null,
        createdAt: at,
        updatedAt: at,
      });
      const key = await this.keys.mintProjectKey(tx, row);
      return { project: presentProject(row), ...key };
    });
  }

  async updateProject(principal: Principal, id: string, patch: { name?: string; retentionDays?: number | null }) {
    const row = await store.updateProject(this.db.orm, principal.organizationId, id, { ...patch, updatedAt: this.clock.now() });
    if (!row) throw notFound('project_not_found', `no project ${id} in this organization`);
    return presentProject(row);
  }

  async deleteProject(principal: Principal, id: string): Promise<{ id: string; deleted: true }> {
    const deleted = await this.db.orm.transaction(async (tx) => {
      if (!(await store.deleteProject(tx, principal.organizationId, id))) return false;
      for (const listener of this.projectDeletedListeners) await listener(tx, id);
      return true;
    });
    if (!deleted) throw notFound('project_not_found', `no project ${id} in this organization`);
    return { id, deleted: true };
  }

  async listMembers(principal: Principal): Promise<MemberView[]> {
    const rows = await store.listMembers(this.db.orm, principal.organizationId);
    return rows.map(presentMember);
  }

  /**
   * Adds a member by e-mail, creating the user when new (without a password); `added` runs
   * in the same transaction (the invitation link is made there).
   */
  async addMember(
    principal: Principal,
    input: { email: string; name?: string; role: Role },
    added?: (tx: Tx, user: store.UserRow) => Promise<void>,
  ): Promise<MemberView> {
    return this.db.orm.transaction(async (tx) => {
      const at = this.clock.now();
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

  async changeRole(principal: Principal, userId: string, role: Role): Promise<MemberView> {
    return this.db.orm.transaction(async (tx) => {
      const current = await store.findMembershipRole(tx, principal.organizationId, userId);
      if (!current) throw notFound('member_not_found', `user ${userId} is not a member of this organization`);
      if (current === 'ADMIN' && role !== 'ADMIN') await this.keepOneAdmin(tx, principal.organizationId);
      await store.updateMembershipRole(tx, principal.organizationId, userId, role);
      const member = (await store.listMembers(tx, principal.organizationId)).find((m) => m.userId === userId)!;
      return presentMember(member);
    });
  }

  async removeMember(principal: Principal, userId: string): Promise<{ userId: string; removed: true }> {
    return this.db.orm.transaction(async (tx) => {
      await this.removeMembership(tx, principal.organizationId, userId);
      return { userId, removed: true as const };
    });
  }

  /** Removes a membership (the user's sessions in the organization stop working with it); keeps one ADMIN. */
  async removeMembership(tx: Tx, organizationId: string, userId: string) {
    const current = await store.findMembershipRole(tx, organizationId, userId);
    if (!current) throw notFound('member_not_found', `user ${userId} is not a member of this organization`);
    if (current === 'ADMIN') await this.keepOneAdmin(tx, organizationId);
    await store.deleteMembership(tx, organizationId, userId);
  }

  /**
   * First start: on an empty database, creates the organization, its admin user and a
   * project, then lets the caller mint keys in the same transaction. Null when the
   * database already holds an organization (a restart creates nothing).
   */
  /** Whether the first organization exists (the first-start set-up has run). */
  async isSetUp(): Promise<boolean> {
    return (await store.countOrganizations(this.db.orm)) > 0;
  }

  async bootstrap<T>(
    input: { organizationName: string; projectName: string; email: string; passwordHash: string },
    mintKeys: (tx: Tx, created: { organizationId: string; userId: string; projectId: string }) => Promise<T>,
  ): Promise<{ organization: { id: string; name: string }; project: ProjectView; userId: string; keys: T } | null> {
    return this.db.orm.transaction(async (tx) => {
      // Two processes starting together on one PostgreSQL: the second waits, then sees the first's work.
      if (this.db.kind === 'postgres') await tx.execute(sql`SELECT pg_advisory_xact_lock(5560002)`);
      if ((await store.countOrganizations(tx)) > 0) return null;
      return this.createOrganizationWithAdmin(tx, input, mintKeys);
    });
  }

  /** An organization with its ADMIN user and a first project; keys minted by the caller in the same transaction. */
  async createOrganizationWithAdmin<T>(
    tx: Tx,
    input: { organizationName: string; projectName: string; email: string; passwordHash: string | null },
    mintKeys: (tx: Tx, created: { organizationId: string; userId: string; projectId: string }) => Promise<T>,
  ) {
    const at = this.clock.now();
    const org = await store.insertOrganization(tx, { id: newId('org'), name: input.organizationName, at });
    const user = await store.insertUser(tx, { id: newId('user'), email: input.email, name: 'Admin', passwordHash: input.passwordHash, createdAt: at });
    await store.insertMembership(tx, { organizationId: org.id, userId: user.id, role: 'ADMIN', at });
    const project = await store.insertProject(tx, { id: newId('proj'), organizationId: org.id, name: input.projectName, createdAt: at, updatedAt: at });
    const keys = await mintKeys(tx, { organizationId: org.id, userId: user.id, projectId: project.id });
    return { organization: { id: org.id, name: org.name }, project: presentProject(project), userId: user.id, keys };
  }

  private async keepOneAdmin(tx: Executor, organizationId: string) {
    if ((await store.countAdmins(tx, organizationId)) <= 1) {
      throw conflict('last_admin', 'an organization keeps at least one ADMIN; promote another member first');
    }
  }
}

