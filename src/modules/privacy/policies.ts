import type { CompiledPolicy } from './redaction.ts';
import type { PrivacySettingsRow } from './store.ts';

/** A project's settings as this process holds them (redactors.ts keeps them: PolicyCache). */
export interface CachedPolicy {
  policy: CompiledPolicy;
  /** The settings as read: unchanged ones keep their compiled policy (and what it remembers). */
  version: string;
  hashKey: Buffer;
  /** performance.now() when read from the database (just before). */
  readAt: number;
  /** db.changes' stamp when read: the copy lives past its refresh interval while no settings changed since. */
  stamp: number;
}

/** This process's copy of the projects' settings, as the privacy context holds it. */
export interface Policies {
  get(projectId: string): Promise<CachedPolicy>;
  /** The copy after a save in this process: applies to the next request at once. */
  renew(projectId: string, row: PrivacySettingsRow | null): void;
  forget(projectId: string): void;
}
