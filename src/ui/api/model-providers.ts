import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { api } from './client.ts';
import type { createProviderBody, ModelOption, ProviderView, TestProviderResponse } from '../../modules/model-providers/schemas.ts';

export type ModelProvider = ProviderView;
export type CreateProviderInput = z.input<typeof createProviderBody>;
export type ProviderTest = TestProviderResponse;
export type { ModelOption };

const BASE = '/api/model-providers';

export function useModelProviders(projectId: string) {
  return useQuery({
    queryKey: ['model-providers', projectId],
    queryFn: async () => (await api<{ data: ModelProvider[] }>('GET', BASE, { projectId })).data,
  });
}

export function useModelOptions(projectId: string) {
  return useQuery({
    queryKey: ['model-options', projectId],
    queryFn: async () => (await api<{ data: ModelOption[] }>('GET', `${BASE}/models`, { projectId })).data,
  });
}

export function useModelProviderMutations(projectId: string) {
  const client = useQueryClient();
  const refresh = async () => {
    await client.invalidateQueries({ queryKey: ['model-providers', projectId] });
    await client.invalidateQueries({ queryKey: ['model-options', projectId] });
  };
  return {
    create: useMutation({ mutationFn: (body: CreateProviderInput) => api<ModelProvider>('POST', BASE, { projectId, body }), onSuccess: refresh }),
    remove: useMutation({ mutationFn: (id: string) => api<{ id: string }>('DELETE', `${BASE}/${encodeURIComponent(id)}`, { projectId }), onSuccess: refresh }),
    test: useMutation({ mutationFn: (id: string) => api<ProviderTest>('POST', `${BASE}/${encodeURIComponent(id)}/test`, { projectId, body: {} }) }),
  };
}
