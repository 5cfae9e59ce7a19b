import { performance } from 'node:perf_hooks';
import { AppError, badRequest } from '../../platform/errors.ts';
import type { ModelProviderContext, OpenedProvider, Scope } from './context.ts';
import { listProviderOwnModels, probe } from './gateway.ts';
import { findProvider, openProvider, redactKey, requireBaseUrl, requireKey, withoutKey } from './providers.ts';
import type { DiscoverModelsBody, TestProviderResponse } from './schemas.ts';

/** One tiny call ("Reply with OK"): whether the key, address and model work. Never throws for the provider's failure. */
export async function testProvider(ctx: ModelProviderContext, scope: Scope, id: string, model?: string): Promise<TestProviderResponse> {
  const row = await findProvider(ctx, scope, id);
  const modelId = model ?? row.models[0];
  if (model !== undefined && !row.models.includes(model)) {
    throw badRequest('unknown_model', `model: ${model} is not one of this provider's models (${row.models.join(', ')})`, 'model');
  }
  const provider = openProvider(ctx, row);
  const started = performance.now();
  try {
    const answer = await probe(ctx, provider, modelId);
    return { ok: true, model: `${row.name}/${modelId}`, latency_ms: Math.round(performance.now() - started), output: answer.text.slice(0, 200), error: null };
  } catch (err) {
    if (!(err instanceof AppError) || err.status < 500) throw err;
    return {
      ok: false,
      model: `${row.name}/${modelId}`,
      latency_ms: Math.round(performance.now() - started),
      output: null,
      error: { code: err.code, message: redactKey(err.message, provider.apiKey) },
    };
  }
}

/** The models a provider set in the app lists itself (its /models), to choose from. */
export async function providerModels(ctx: ModelProviderContext, scope: Scope, id: string): Promise<{ models: string[] }> {
  const provider = openProvider(ctx, await findProvider(ctx, scope, id));
  return { models: await listed(ctx, provider) };
}

/** The models a provider about to be set lists (the form's "Load models"): nothing is stored. */
export async function discoverModels(ctx: ModelProviderContext, body: DiscoverModelsBody): Promise<{ models: string[] }> {
  requireBaseUrl(body);
  const apiKey = requireKey(body.kind, body.api_key);
  return { models: await listed(ctx, { name: body.kind, kind: body.kind, baseUrl: body.base_url ?? null, apiKey }) };
}

async function listed(ctx: ModelProviderContext, provider: OpenedProvider): Promise<string[]> {
  try {
    return [...new Set(await listProviderOwnModels(ctx, provider))].sort();
  } catch (err) {
    throw withoutKey(err, provider.apiKey);
  }
}
