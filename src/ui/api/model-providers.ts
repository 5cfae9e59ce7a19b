import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { DELETE, GET, POST, type Answer } from './client.ts';
import type { createProviderBody } from '../../modules/model-providers/schemas.ts';

export type ModelProvider = Answer<'/api/model-providers', 'get'>['data'][number];
export type ProviderTest = Answer<'/api/model-providers/{id}/test', 'post'>;
export type ModelOption = Answer<'/api/model-providers/models', 'get'>['data'][number];
export type CreateProviderInput = z.input<typeof createProviderBody>;

export const modelProviderKeys = {
  all: (projectId: string) => ['model-providers', projectId] as const,
  options: (projectId: string) => ['model-options', projectId] as const,
  listed: (projectId: string, id: string) => ['model-options', projectId, 'listed', id] as const,
};

export function useModelProviders(projectId: string) {
  return useQuery({
    queryKey: modelProviderKeys.all(projectId),
    queryFn: async () => (await GET('/api/model-providers', { projectId })).data,
  });
}

export function useModelOptions(projectId: string) {
  return useQuery({
    queryKey: modelProviderKeys.options(projectId),
    queryFn: async () => (await GET('/api/model-providers/models', { projectId })).data,
  });
}

/**
 * The models to pick from wherever a model is chosen: every model the project can name (the
 * providers' models as set, the server environment's), with what each provider set in the app
 * lists itself right now (GET /api/model-providers/{id}/models) merged in per provider. A
 * provider whose list cannot be had (down, refused) keeps the models it was set with.
 */
export function useLiveModelOptions(projectId: string): { models: { provider: string; model: string }[]; isPending: boolean; unlisted: string[] } {
  const options = useModelOptions(projectId);
  const providers = useModelProviders(projectId);
  // A project's provider hides the organization's of the same name, as the server resolves names.
  const shown = (providers.data ?? []).filter((p, i, all) => all.findIndex((q) => q.name === p.name) === i);
  const listed = useQueries({
    queries: shown.map((p) => ({
      queryKey: modelProviderKeys.listed(projectId, p.id),
      queryFn: async () => (await GET('/api/model-providers/{id}/models', { params: { path: { id: p.id } }, projectId })).models,
      staleTime: 5 * 60_000,
      retry: false,
    })),
  });
  const seen = new Set<string>();
  const models: { provider: string; model: string }[] = [];
  const add = (provider: string, model: string) => {
    if (seen.has(model)) return;
    seen.add(model);
    models.push({ provider, model });
  };
  for (const o of options.data ?? []) add(o.provider, o.model);
  shown.forEach((p, i) => {
    for (const m of listed[i]?.data ?? []) add(p.name, `${p.name}/${m}`);
  });
  return { models, isPending: options.isPending, unlisted: shown.filter((_, i) => listed[i]?.isError).map((p) => p.name) };
}

/** POST /api/model-providers/discover-models: the models a provider about to be set lists itself. */
export function useDiscoverModels(projectId: string) {
  return useMutation({
    mutationFn: (body: { kind: CreateProviderInput['kind']; base_url?: string; api_key?: string }) => POST('/api/model-providers/discover-models', { projectId, body }),
  });
}

export function useModelProviderMutations(projectId: string) {
  const client = useQueryClient();
  const refresh = async () => {
    await client.invalidateQueries({ queryKey: modelProviderKeys.all(projectId) });
    await client.invalidateQueries({ queryKey: modelProviderKeys.options(projectId) });
  };
  return {
    create: useMutation({ mutationFn: (body: CreateProviderInput) => POST('/api/model-providers', { projectId, body }), onSuccess: refresh }),
    remove: useMutation({ mutationFn: (id: string) => DELETE('/api/model-providers/{id}', { params: { path: { id } }, projectId }), onSuccess: refresh }),
    test: useMutation({ mutationFn: (id: string) => POST('/api/model-providers/{id}/test', { params: { path: { id } }, projectId, body: {} }) }),
  };
}
