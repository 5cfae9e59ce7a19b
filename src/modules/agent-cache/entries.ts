import { DecryptionError } from '../../platform/crypto.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import type { AgentCacheContext } from './context.ts';
import { MAX_VALUE_BYTES, type DeletedView, type EntryView, type StoredView } from './schemas.ts';
import * as store from './store.ts';

/*
 * A short-lived name/value store per project. Values are sealed with the project id and
 * the name as associated data before they reach the database, and opened only to answer
 * a read: no plaintext value is ever stored or logged.
 */

export async function getEntry(ctx: AgentCacheContext, projectId: string, name: string): Promise<EntryView> {
  const row = await store.findLive(ctx.db.orm, projectId, name, ctx.clock.now());
  if (!row) throw notFound('entry_not_found', `no live agent cache entry ${name} in this project (never stored, deleted, or its lifetime passed)`);
  try {
    return { name, value: ctx.keyring.open({ keyId: row.keyId, sealed: row.sealed }, [projectId, name]) };
  } catch (err) {
    if (err instanceof DecryptionError) {
      throw new AppError(500, 'decryption_failed', `the entry ${name} could not be decrypted: ${err.message}`);
    }
    throw err;
  }
}

export async function putEntry(
  ctx: AgentCacheContext,
  projectId: string,
  input: { name: string; value: string; ttlSeconds: number },
): Promise<StoredView> {
  const { name, value, ttlSeconds } = input;
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > MAX_VALUE_BYTES) {
    throw new AppError(413, 'value_too_large', `body.value: ${bytes} bytes is more than the ${MAX_VALUE_BYTES} bytes (1 MiB) a cache value may hold`, {
      field: 'body.value',
    });
  }
  const now = ctx.clock.now();
  const sealed = ctx.keyring.seal(value, [projectId, name]);
  await store.upsert(ctx.db.orm, {
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
export async function deleteEntry(ctx: AgentCacheContext, projectId: string, name: string): Promise<DeletedView> {
  await store.remove(ctx.db.orm, projectId, name);
  return { name, deleted: true };
}
