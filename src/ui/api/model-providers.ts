import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
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
