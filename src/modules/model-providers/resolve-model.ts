import { performance } from 'node:perf_hooks';
import type { ModelProviderContext, OpenedProvider, Scope } from './context.ts';
import { openProvider } from './providers.ts';
import type { ModelOption } from './schemas.ts';
import * as store from './store.ts';

/**
 * How long a provider looked up for a call is used again without reading it (an experiment
 * run makes hundreds of calls a second with one provider). Changes made through this process
 * apply at once; another process's change within this time.
 */
const RESOLVED_FOR_MS = 2_000;
/** Lookups remembered at most (then forgotten all at once: a cache, not a store). */
const RESOLVED_MAX = 1_000;

/** Every model the project can name: its providers', its organization's, then the server environment's. */
export async function listModels(ctx: ModelProviderContext, scope: Scope): Promise<ModelOption[]> {
  const rows = await store.listVisible(ctx.db.orm, scope.organizationId, scope.projectId);
  const seen = new Set<string>();
  const out: ModelOption[] = [];
  for (const row of rows) {
    // A project's provider hides the organization's of the same name.
    if (seen.has(row.name)) continue;
    seen.add(row.name);
    for (const m of row.models) out.push({ model: `${row.name}/${m}`, provider: row.name, kind: row.kind, source: row.projectId === null ? 'organization' : 'project' });
  }
  if (!seen.has('openai')) {
    for (const m of ctx.environmentModels()) out.push({ model: m, provider: 'openai', kind: 'openai', source: 'environment' });
  }
  return out;
}

/** The provider a model's provider name means in this project, key opened; null when none is set in the app. */
export function resolveProvider(ctx: ModelProviderContext, scope: Scope, name: string): Promise<OpenedProvider | null> {
  const key = `${scope.organizationId}\u0000${scope.projectId}\u0000${name}`;
  const now = performance.now();
  const recent = ctx.resolved.get(key);
  if (recent && now - recent.at < RESOLVED_FOR_MS) return recent.provider;
  if (ctx.resolved.size >= RESOLVED_MAX) ctx.resolved.clear();
  const provider = store.findByName(ctx.db.orm, scope.organizationId, scope.projectId, name).then((row) => (row ? openProvider(ctx, row) : null));
  ctx.resolved.set(key, { at: now, provider });
  provider.catch(() => ctx.resolved.delete(key));
  return provider;
}
