import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { DecryptionError, type Keyring } from '../../platform/crypto.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import { MAX_VALUE_BYTES } from './schemas.ts';
import * as store from './store.ts';

/**
 * A short-lived name/value store per project. Values are sealed with the project id and
 * the name as associated data before they reach the database, and opened only to answer
 * a read: no plaintext value is ever stored or logged.
 */
export class AgentCacheService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly keyring: Keyring,
  ) {}

  async get(projectId: string, name: string): Promise<{ name: string; value: string }> {
    const row = await store.findLive(this.db.orm, projectId, name, this.clock.now());
    if (!row) throw notFound('entry_not_found', `no live agent cache entry ${name} in this project (never stored, deleted, or its lifetime passed)`);
    try {
      return { name, value: this.keyring.open({ keyId: row.keyId, sealed: row.sealed }, [projectId, name]) };
    } catch (err) {
      if (err instanceof DecryptionError) {
        throw new AppError(500, 'decryption_failed', `the entry ${name} could not be decrypted: ${err.message}`);
      }
      throw err;
    }
  }

  async put(projectId: string, name: string, value: string, ttlSeconds: number): Promise<{ name: string; ttl_seconds: number }> {
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > MAX_VALUE_BYTES) {
      throw new AppError(413, 'value_too_large', `body.value: ${bytes} bytes is more than the ${MAX_VALUE_BYTES} bytes (1 MiB) a cache value may hold`, {
        field: 'body.value',
      });
    }
    const now = this.clock.now();
    const sealed = this.keyring.seal(value, [projectId, name]);
    await store.upsert(this.db.orm, {
      projectId,
      name,
      keyId: sealed.keyId,
      sealed: sealed.sealed,
      expiresAt: new Date(now.getTime() + ttlSeconds * 1000),
      createdAt: now,
      updatedAt: now,
    });
    return { name, ttl_seconds: ttlSeconds };
  }

  /** Idempotent: a name the project does not hold answers exactly like one it does. */
  async delete(projectId: string, name: string): Promise<{ name: string; deleted: boolean }> {
    await store.remove(this.db.orm, projectId, name);
    return { name, deleted: true };
  }

  /** Deletes every expired entry (the background sweep; reads never depend on it). Returns how many. */
  async sweepExpired(): Promise<number> {
    return store.deleteExpired(this.db.orm, this.clock.now());
  }

  /**
   * `spyglass keys rotate-encryption`: seals every value not sealed with the keyring's
   * current key again under it, a batch at a time. Expired entries are deleted first
   * (nobody can read them). A value written meanwhile by a server is left as that server
   * wrote it. Returns how many values were sealed again.
   */
  async resealAll(batchSize = 500): Promise<number> {
    await this.sweepExpired();
    const current = this.keyring.currentKeyId;
    let after: { projectId: string; name: string } | null = null;
    let resealed = 0;
    for (;;) {
      const batch = await store.sealedWithOtherKeys(this.db.orm, current, after, batchSize);
      if (batch.length === 0) return resealed;
      await this.db.orm.transaction(async (tx) => {
        for (const row of batch) {
          const value = this.keyring.open({ keyId: row.keyId, sealed: row.sealed }, [row.projectId, row.name]);
          const next = this.keyring.seal(value, [row.projectId, row.name]);
          if (await store.replaceSealed(tx, row, next)) resealed++;
        }
      });
      after = batch[batch.length - 1];
    }
  }
}
