import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { POST } from './client.ts';
import type { UsersRequest } from './types.ts';

export const analyticsKeys = {
  endUsers: (projectId: string, request: UsersRequest) => ['end-users', projectId, request] as const,
};

/** A page of the project's end users (POST /api/analytics/users), sorted. */
export function useEndUsers(projectId: string, body: UsersRequest) {
  return useQuery({
    queryKey: analyticsKeys.endUsers(projectId, body),
    queryFn: ({ signal }) => POST('/api/analytics/users', { projectId, body, signal }),
    placeholderData: keepPreviousData,
  });
}
