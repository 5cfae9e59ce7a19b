import type { Logger } from 'pino';
import type { Database, Executor, Tx } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Mailer } from '../../platform/mail.ts';
import type { TokenHasher } from '../../platform/tokens.ts';
import type { AccountOptions } from './account-rules.ts';

/** A key just minted for a project: its token (shown once) and the key as listed. */
export interface IssuedKey {
  token: string;
  apiKey: { id: string; name: string; createdAt: string };
}

/** Mints a project's API key inside the transaction that creates or rotates it (the api-keys module, wired in app.ts). */
/** A project's API keys (the api-keys module): its first key minted when it is made, its keys' bindings removed when it is deleted. */
export interface ProjectKeyIssuer {
  mintProjectKey(tx: Tx, project: { id: string; organizationId: string }, token?: string): Promise<IssuedKey>;
  deleteProjectBindings(tx: Executor, projectId: string): Promise<void>;
}

/** What the reads other modules make of organizations need: the database only. */
export interface DirectoryContext {
  db: Database;
}

/** What the organizations module's use cases work with (built by module.ts). */
export interface OrganizationsContext extends DirectoryContext {
  clock: Clock;
  keys: ProjectKeyIssuer;
  /** Sessions, invitation and reset tokens are found by their keyed hash. */
  hasher: TokenHasher;
  accounts: AccountOptions;
  /** The server's SMTP mailer; null: links are only shown to the admin who made them. */
  mailer: Mailer | null;
  logger: Logger;
  /** Run in the transaction that deletes a project (other modules delete what they own of it). */
  projectDeletedListeners: ((tx: Executor, projectId: string) => Promise<void>)[];
}
