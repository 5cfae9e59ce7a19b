import type { Changes } from '../../db/changes.ts';
import type { ApiKeyRow } from './store.ts';

/**
 * How long a server process uses its copy of a project key's row before reading it again,
 * unless it has heard from the primary that no key changed since (db/changes.ts: a revoke,
 * by any process or by SQL, is heard at once; a silent primary connection makes copies fall
 * back to this interval). Every request names a key; without the copy each one costs a read
 * of the primary (the one statement of a search that a replica could not take). A revoke in
 * this process forgets every copy at once; other processes on the same PostgreSQL refuse the
 * key at most this long after it (docs/security.md says so), as they see privacy settings change.
 */
export const KEY_REFRESH_MS = 1_000;

/** Project keys' rows as last read, per key id (personal and admin keys are read each time: their owner's role can change). */
export class RecentKeys {
  private readonly rows = new Map<string, { row: ApiKeyRow; readAt: number; stamp: number }>();

  constructor(private readonly changes: Changes) {}

  get(id: string): ApiKeyRow | null {
    const hit = this.rows.get(id);
    if (!hit) return null;
    if (this.changes.current('api_keys', hit, KEY_REFRESH_MS)) return hit.row;
    this.rows.delete(id);
    return null;
  }

  /** Taken before reading a key's row, and given to `keep` with it. */
  stamp(): { stamp: number; readAt: number } {
    return { stamp: this.changes.stamp('api_keys'), readAt: performance.now() };
  }

  keep(row: ApiKeyRow, read: { stamp: number; readAt: number }): void {
    if (row.keyType !== 'project') return;
    // Bounded: a flood of distinct keys cannot grow the process (the oldest copies go first).
    if (this.rows.size >= 10_000) this.rows.delete(this.rows.keys().next().value!);
    this.rows.set(row.id, { row, ...read });
  }

  /** After any revoke in this process: the next request reads the key again. */
  forgetAll(): void {
    this.rows.clear();
  }
}
