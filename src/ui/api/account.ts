import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client.ts';
import type { ChangePasswordBody, UserSession } from './types.ts';

/** The signed-in user's own sessions and password. */

export function useUserSessions() {
  return useQuery({ queryKey: ['user-sessions'], queryFn: async () => (await api<{ data: UserSession[] }>('GET', '/api/auth/sessions')).data });
}

export function useAccountMutations() {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: ['user-sessions'] });
  return {
    revokeSession: useMutation({ mutationFn: (id: string) => api('DELETE', `/api/auth/sessions/${encodeURIComponent(id)}`), onSuccess: refresh }),
    changePassword: useMutation({ mutationFn: (body: ChangePasswordBody) => api('POST', '/api/auth/password', { body }), onSuccess: refresh }),
  };
}
