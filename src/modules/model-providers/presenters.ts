import type { ProviderView } from './schemas.ts';
import type { ProviderRow } from './store.ts';

export function presentProvider(row: ProviderRow): ProviderView {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    base_url: row.baseUrl,
    models: row.models,
    scope: row.projectId === null ? 'organization' : 'project',
    api_key_hint: row.keyLast4 ? `****${row.keyLast4}` : null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
