import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client.ts';
import type { ApiKey, CreateKeyBody, CreatedKey } from './types.ts';

export function useApiKeys(enabled = true) {
  return useQuery({
    queryKey: ['api-keys'],
    queryFn: async () => (await api<{ data: ApiKey[] }>('GET', '/api/api-keys')).data,
    enabled,
    retry: (count, error) => count < 1 && !('status' in error && (error as { status: number }).status < 500),
  });
}

export function useApiKeyMutations() {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: ['api-keys'] });
  return {
    create: useMutation({ mutationFn: (body: CreateKeyBody) => api<CreatedKey>('POST', '/api/api-keys', { body }), onSuccess: refresh }),
    revoke: useMutation({ mutationFn: (id: string) => api<ApiKey>('DELETE', `/api/api-keys/${encodeURIComponent(id)}`), onSuccess: refresh }),
  };
}
