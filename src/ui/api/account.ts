import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DELETE, GET, POST, type Answer } from './client.ts';
import type { ChangePasswordBody } from './types.ts';

export type UserSession = Answer<'/api/auth/sessions', 'get'>['data'][number];

/** The signed-in user's own sessions and password. */

export const accountKeys = { sessions: ['user-sessions'] as const };

export function useUserSessions() {
  return useQuery({ queryKey: accountKeys.sessions, queryFn: async () => (await GET('/api/auth/sessions')).data });
}

export function useAccountMutations() {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: accountKeys.sessions });
  return {
    revokeSession: useMutation({ mutationFn: (id: string) => DELETE('/api/auth/sessions/{id}', { params: { path: { id } } }), onSuccess: refresh }),
    changePassword: useMutation({ mutationFn: (body: ChangePasswordBody) => POST('/api/auth/password', { body }), onSuccess: refresh }),
  };
}
