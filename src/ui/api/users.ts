import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from './client.ts';
import type { UsersRequest, UsersResponse } from './types.ts';

/** A page of the project's end users (POST /api/analytics/users), sorted. */
export function useEndUsers(projectId: string, body: UsersRequest) {
  return useQuery({
    queryKey: ['end-users', projectId, body],
    queryFn: ({ signal }) => api<UsersResponse>('POST', '/api/analytics/users', { projectId, body, signal }),
    placeholderData: keepPreviousData,
  });
}
