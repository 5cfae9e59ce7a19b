import type { Logger } from 'pino';
import type { Database, Executor, Tx } from '../../db/index.ts';
import type { CredentialStore, Principal, Role } from '../../platform/auth/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Mailer } from '../../platform/mail.ts';
import type { SpyglassModule } from '../../platform/module.ts';
import type { TokenHasher } from '../../platform/tokens.ts';
import type { AccountOptions } from './account-rules.ts';
import type { OrganizationsContext, ProjectKeyIssuer } from './context.ts';
import { firstAdmin, holdProject, members, membershipRole, projectOrganization, retentionPolicies } from './directory.ts';
import { bootstrap, createOrganizationWithAdmin, isSetUp } from './organization.ts';
import type { PasswordHasher } from './passwords.ts';
import type { ProjectView, ResetLinkView } from './presenters.ts';
import { onProjectDeleted } from './projects.ts';
import { issueOperatorReset } from './resets.ts';
import { organizationRoutes } from './routes.ts';
import { endAllAfterHashKeyChange, resolveSession, sweep } from './sessions.ts';

/** Who belongs where, read by other modules (the api-keys module resolves personal keys with it): the database only. */
export interface MemberDirectory {
  membershipRole(organizationId: string, userId: string, db?: Executor): Promise<Role | null>;
  projectOrganization(projectId: string): Promise<string | null>;
  firstAdmin(): Promise<{ organizationId: string; userId: string } | null>;
  /** An organization's members (ids and e-mails). */
  members(organizationId: string): Promise<{ userId: string; email: string }[]>;
}

export function organizationDirectory(db: Database): MemberDirectory {
  const ctx = { db };
  return {
    membershipRole: (organizationId, userId, on) => membershipRole(ctx, organizationId, userId, on),
    projectOrganization: (projectId) => projectOrganization(ctx, projectId),
    firstAdmin: () => firstAdmin(ctx),
    members: (organizationId) => members(ctx, organizationId),
  };
}

type Bootstrapped<T> = { organization: { id: string; name: string }; project: ProjectView; userId: string; keys: T };
type MintKeys<T> = (tx: Tx, created: { organizationId: string; userId: string; projectId: string }) => Promise<T>;

/** What the organizations module offers the app, the other modules and the CLI. */
export interface Organizations extends MemberDirectory {
  ctx: OrganizationsContext;
  /**
   * The project's row (id) share-locked until the transaction ends, as a typed relation the
   * caller counts: the project cannot be deleted while the caller writes rows for it.
   */
  holdProject(projectId: string): ReturnType<typeof holdProject>;
  /** Runs `listener` in the transaction that deletes a project (other modules delete what they own of it). */
  onProjectDeleted(listener: (tx: Executor, projectId: string) => Promise<void>): void;
  /** Projects that keep traces for a limited time (the traces module's retention sweep). */
  retentionPolicies(): Promise<{ projectId: string; days: number }[]>;
  /** Whether the first organization exists (the first-start set-up has run). */
  isSetUp(): Promise<boolean>;
  /** First start: the organization, its admin and a project, keys minted by `mintKeys`; null when set up before. */
  bootstrap<T>(input: { organizationName: string; projectName: string; email: string; passwordHash: string }, mintKeys: MintKeys<T>): Promise<Bootstrapped<T> | null>;
  createOrganizationWithAdmin<T>(
    tx: Tx,
    input: { organizationName: string; projectName: string; email: string; passwordHash: string | null },
    mintKeys: MintKeys<T>,
  ): Promise<Bootstrapped<T>>;
}

/** Accounts (sign-in, sessions, links) as the app, the auth layer and the CLI use them. */
export interface Accounts {
  /** The hasher of this installation's passwords (first start hashes the admin's with it). */
  passwords: PasswordHasher;
  resolveSession(token: string, now: Date): Promise<Principal | null>;
  /** Deletes ended sessions, closed links and stale attempt counters. */
  sweep(): Promise<unknown>;
  endAllAfterHashKeyChange(tx: Tx): Promise<{ sessions: number; invitations: number; resets: number }>;
  /** `spyglass users reset-password`: a reset link made by the operator. */
  issueOperatorReset(email: string, base: string): Promise<ResetLinkView>;
}

export interface OrganizationsPorts {
  db: Database;
  clock: Clock;
  /** The api-keys module: a project's key minted and its bindings deleted; an API key's token resolved (the credentials). */
  keys: ProjectKeyIssuer & Pick<CredentialStore, 'resolve'>;
  hasher: TokenHasher;
  accounts: AccountOptions;
  mailer: Mailer | null;
  logger: Logger;
}

/**
 * The module's offers: organizations, accounts, and the credentials the auth layer and OTLP
 * over gRPC resolve (API keys through the api-keys module, sessions here).
 */
export function buildOrganizations(ports: OrganizationsPorts): { organizations: Organizations; accounts: Accounts; credentials: CredentialStore } {
  const ctx: OrganizationsContext = { ...ports, projectDeletedListeners: [] };
  return {
    credentials: {
      resolve: (token, now) => ports.keys.resolve(token, now),
      resolveSession: (token, now) => resolveSession(ctx, token, now),
      projectOrganization: (projectId) => projectOrganization(ctx, projectId),
    },
    organizations: {
      ctx,
      ...organizationDirectory(ctx.db),
      holdProject: (projectId) => holdProject(ctx, projectId),
      onProjectDeleted: (listener) => onProjectDeleted(ctx, listener),
      retentionPolicies: () => retentionPolicies(ctx),
      isSetUp: () => isSetUp(ctx),
      bootstrap: (input, mintKeys) => bootstrap(ctx, input, mintKeys),
      createOrganizationWithAdmin: (tx, input, mintKeys) => createOrganizationWithAdmin(ctx, tx, input, mintKeys),
    },
    accounts: {
      passwords: ctx.accounts.passwords,
      resolveSession: (token, now) => resolveSession(ctx, token, now),
      sweep: () => sweep(ctx),
      endAllAfterHashKeyChange: (tx) => endAllAfterHashKeyChange(ctx, tx),
      issueOperatorReset: (email, base) => issueOperatorReset(ctx, email, base),
    },
  };
}

/** The organizations module's one entry: organization, project, member and account routes, and the expiry of sessions and links. */
export const organizationsModule: SpyglassModule<{ organizations: Organizations; accounts: Accounts }> = {
  name: 'organizations',
  register: ({ http, scheduler }, { organizations, accounts }) => {
    organizationRoutes(http, organizations.ctx);
    scheduler.every({ name: 'sessions and links expiry', intervalMs: 10 * 60_000, once: true, run: () => accounts.sweep() });
  },
};
