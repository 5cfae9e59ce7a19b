import type { z } from 'zod';
import type { apiKeySchema } from './schemas.ts';
import type { Binding } from './types.ts';
import type { ApiKeyRow } from './store.ts';

/** The answer's type comes from its schema: a field the schema gains and the presenter forgets fails to compile. */
export type ApiKeyView = z.output<typeof apiKeySchema>;

/** An API key as the API answers it (`apiKeySchema`); never its secret or hash. */
export function keyView(row: ApiKeyRow, bindings: Binding[], now: Date): ApiKeyView {
  const expired = row.expiresAt !== null && row.expiresAt.getTime() <= now.getTime();
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    keyType: row.keyType,
    organizationId: row.organizationId,
    projectId: row.projectId,
    ownerUserId: row.ownerUserId,
    permissionMode: row.permissionMode,
    permissions: row.permissions,
    bindings: bindings.map((b) => ({ role: b.role, scopeType: b.scopeType, scopeId: b.scopeId })),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    status: row.revokedAt ? 'revoked' : expired ? 'expired' : 'active',
    createdAt: row.createdAt.toISOString(),
  };
}
