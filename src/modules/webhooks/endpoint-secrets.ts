import type { WebhooksContext } from './context.ts';
import { endpointNotFound } from './manage-endpoints.ts';
import { newSigningSecret } from './signing.ts';
import * as store from './store.ts';

/** How long the old secret keeps signing after roll-secret. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** A new secret; the old one keeps signing (a second signature) for 24 hours. */
export async function rollSecret(ctx: WebhooksContext, projectId: string, id: string): Promise<{ secret: string; previous_secret_expires_at: string }> {
  return ctx.db.orm.transaction(async (tx) => {
    const row = await store.findEndpoint(tx, projectId, id, true);
    if (!row) throw endpointNotFound(id);
    const now = ctx.clock.now();
    const secret = newSigningSecret();
    const sealed = ctx.secrets.seal(id, secret);
    const expiresAt = new Date(now.getTime() + SECRET_OVERLAP_MS);
    await store.updateEndpoint(tx, id, {
      secretKeyId: sealed.keyId,
      secretSealed: sealed.sealed,
      previousSecretKeyId: row.secretKeyId,
      previousSecretSealed: row.secretSealed,
      previousSecretExpiresAt: expiresAt,
      updatedAt: now,
    });
    return { secret, previous_secret_expires_at: expiresAt.toISOString() };
  });
}

/**
 * `spyglass keys rotate-encryption`: seals every endpoint's signing secret (and previous
 * secret, while it is still accepted) again under the keyring's current key, in one
 * transaction. Returns how many sealed secrets changed.
 */
export async function resealSecrets(ctx: Pick<WebhooksContext, 'db' | 'secrets'>): Promise<number> {
  const current = ctx.secrets.currentKeyId;
  return ctx.db.orm.transaction(async (tx) => {
    let resealed = 0;
    for (const row of await store.endpointsSealedWithOtherKeys(tx, current)) {
      const patch: Partial<store.EndpointRow> = {};
      if (row.secretKeyId !== current) {
        const next = ctx.secrets.seal(row.id, ctx.secrets.open(row.id, { keyId: row.secretKeyId, sealed: row.secretSealed }));
        Object.assign(patch, { secretKeyId: next.keyId, secretSealed: next.sealed });
        resealed++;
      }
      if (row.previousSecretKeyId && row.previousSecretSealed && row.previousSecretKeyId !== current) {
        const next = ctx.secrets.seal(row.id, ctx.secrets.open(row.id, { keyId: row.previousSecretKeyId, sealed: row.previousSecretSealed }));
        Object.assign(patch, { previousSecretKeyId: next.keyId, previousSecretSealed: next.sealed });
        resealed++;
      }
      await store.updateEndpoint(tx, row.id, patch);
    }
    return resealed;
  });
}
