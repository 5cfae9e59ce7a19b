import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { POST } from './client.ts';
import type { TimeseriesRequest, UsersRequest } from './types.ts';
import type { components } from './openapi.gen.ts';

type Schemas = components['schemas'];
export type TimeseriesResponse = Schemas['TimeseriesResponse'];
export type TimeseriesBucket = TimeseriesResponse['series'][number]['buckets'][number];

export const analyticsKeys = {
  timeseries: (projectId: string, request: TimeseriesRequest) => ['analytics', projectId, request] as const,
  endUsers: (projectId: string, request: UsersRequest) => ['end-users', projectId, request] as const,
};

/** The dashboard's measures per interval (POST /api/analytics/timeseries); the last answer stays while the next loads. */
export function useTimeseries(projectId: string, body: TimeseriesRequest) {
  return useQuery({
    queryKey: analyticsKeys.timeseries(projectId, body),
    queryFn: ({ signal }) => POST('/api/analytics/timeseries', { projectId, signal, body }),
    placeholderData: keepPreviousData,
  });
}

/** A page of the project's end users (POST /api/analytics/users), sorted. */
export function useEndUsers(projectId: string, body: UsersRequest) {
  return useQuery({
    queryKey: analyticsKeys.endUsers(projectId, body),
    queryFn: ({ signal }) => POST('/api/analytics/users', { projectId, body, signal }),
    placeholderData: keepPreviousData,
  });
}
