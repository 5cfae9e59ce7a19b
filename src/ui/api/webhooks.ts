import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client.ts';
import type { CreateEndpointBody, CreatedEndpoint, DeliveryAttempt, RolledSecret, UpdateEndpointBody, WebhookEndpoint, WebhookEventType } from './types.ts';

/** Webhook endpoints belong to a project: every call names it (X-Project-Id). */
const BASE = '/api/webhooks/v1';
const noRetryOn4xx = (count: number, error: Error) => count < 1 && !('status' in error && (error as { status: number }).status < 500);
const DELIVERIES_PAGE = 25;
/** The delivery log of an open endpoint is read again this often. */
export const DELIVERIES_REFRESH_MS = 2000;

export function useEventTypes(projectId: string) {
  return useQuery({
    queryKey: ['webhook-event-types', projectId],
    queryFn: async () => (await api<{ data: WebhookEventType[] }>('GET', `${BASE}/event-types`, { projectId })).data,
    staleTime: Infinity,
    retry: noRetryOn4xx,
  });
}

/** `live`: a delivery log is open, so the endpoints' health (last success, failing, disabled) is read as often. */
export function useEndpoints(projectId: string, live = false) {
  return useQuery({
    queryKey: ['webhooks', projectId],
    queryFn: async () => (await api<{ data: WebhookEndpoint[] }>('GET', `${BASE}/endpoints`, { projectId })).data,
    refetchInterval: live ? DELIVERIES_REFRESH_MS : false,
    retry: noRetryOn4xx,
  });
}

/** The attempts of one endpoint, newest first, paged through next_cursor; refreshed while shown. */
export function useDeliveries(projectId: string, endpointId: string) {
  return useInfiniteQuery({
    queryKey: ['deliveries', projectId, endpointId],
    queryFn: ({ pageParam, signal }) =>
      api<{ data: DeliveryAttempt[]; next_cursor: string | null }>(
        'GET',
        `${BASE}/endpoints/${encodeURIComponent(endpointId)}/deliveries?limit=${DELIVERIES_PAGE}${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ''}`,
        { projectId, signal },
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    refetchInterval: DELIVERIES_REFRESH_MS,
    retry: noRetryOn4xx,
  });
}

export function useEndpointMutations(projectId: string) {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: ['webhooks', projectId] });
  const path = (id: string) => `${BASE}/endpoints/${encodeURIComponent(id)}`;
  return {
    create: useMutation({
      mutationFn: async (body: CreateEndpointBody) => (await api<{ data: CreatedEndpoint }>('POST', `${BASE}/endpoints`, { projectId, body })).data,
      onSuccess: refresh,
    }),
    update: useMutation({
      mutationFn: async ({ id, body }: { id: string; body: UpdateEndpointBody }) => (await api<{ data: WebhookEndpoint }>('PATCH', path(id), { projectId, body })).data,
      onSuccess: refresh,
    }),
    remove: useMutation({ mutationFn: (id: string) => api('DELETE', path(id), { projectId }), onSuccess: refresh }),
    test: useMutation({
      mutationFn: (id: string) => api('POST', `${path(id)}/test`, { projectId }),
      onSuccess: (_data, id) => client.invalidateQueries({ queryKey: ['deliveries', projectId, id] }),
    }),
    rollSecret: useMutation({
      mutationFn: async (id: string) => (await api<{ data: RolledSecret }>('POST', `${path(id)}/roll-secret`, { projectId })).data,
      onSuccess: refresh,
    }),
  };
}
