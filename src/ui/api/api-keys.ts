import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DELETE, GET, POST, type Answer } from './client.ts';
import type { CreateKeyBody } from './types.ts';
import type { components } from './openapi.gen.ts';

type Schemas = components['schemas'];
export type ApiKey = Schemas['ApiKey'];
export type CreatedKey = Answer<'/api/api-keys', 'post'>;

export const apiKeyKeys = { all: ['api-keys'] as const };

export function useApiKeys(enabled = true) {
  return useQuery({
    queryKey: apiKeyKeys.all,
    queryFn: async () => (await GET('/api/api-keys')).data,
    enabled,
    retry: (count, error) => count < 1 && !('status' in error && (error as { status: number }).status < 500),
  });
}

export function useApiKeyMutations() {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: apiKeyKeys.all });
  return {
    create: useMutation({ mutationFn: (body: CreateKeyBody) => POST('/api/api-keys', { body }), onSuccess: refresh }),
    revoke: useMutation({ mutationFn: (id: string) => DELETE('/api/api-keys/{id}', { params: { path: { id } } }), onSuccess: refresh }),
  };
}

/** A new key for the project, for an empty project's first trace (POST /api/projects/{id}/api-keys). */
export function useMintProjectKey(projectId: string, onCreated: (created: CreatedKey) => void) {
  return useMutation({
    mutationFn: () => POST('/api/projects/{id}/api-keys', { params: { path: { id: projectId } } }),
    onSuccess: onCreated,
  });
}
