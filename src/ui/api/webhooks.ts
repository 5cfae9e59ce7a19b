import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DELETE, GET, PATCH, POST } from './client.ts';
import type { CreateEndpointBody, UpdateEndpointBody } from './types.ts';
import type { components } from './openapi.gen.ts';

type Schemas = components['schemas'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEventType = Schemas['WebhookEventType'];

/** Webhook endpoints belong to a project: every call names it (X-Project-Id). */
const noRetryOn4xx = (count: number, error: Error) => count < 1 && !('status' in error && (error as { status: number }).status < 500);
const DELIVERIES_PAGE = 25;
/** The delivery log of an open endpoint is read again this often. */
export const DELIVERIES_REFRESH_MS = 2000;

export const webhookKeys = {
  eventTypes: (projectId: string) => ['webhook-event-types', projectId] as const,
  endpoints: (projectId: string) => ['webhooks', projectId] as const,
  deliveries: (projectId: string, endpointId: string) => ['deliveries', projectId, endpointId] as const,
};

export function useEventTypes(projectId: string) {
  return useQuery({
    queryKey: webhookKeys.eventTypes(projectId),
    queryFn: async () => (await GET('/api/webhooks/v1/event-types', { projectId })).data,
    staleTime: Infinity,
    retry: noRetryOn4xx,
  });
}

/** `live`: a delivery log is open, so the endpoints' health (last success, failing, disabled) is read as often. */
export function useEndpoints(projectId: string, live = false) {
  return useQuery({
    queryKey: webhookKeys.endpoints(projectId),
    queryFn: async () => (await GET('/api/webhooks/v1/endpoints', { projectId })).data,
    refetchInterval: live ? DELIVERIES_REFRESH_MS : false,
    retry: noRetryOn4xx,
  });
}

/** The attempts of one endpoint, newest first, paged through next_cursor; refreshed while shown. */
export function useDeliveries(projectId: string, endpointId: string) {
  return useInfiniteQuery({
    queryKey: webhookKeys.deliveries(projectId, endpointId),
    queryFn: ({ pageParam, signal }) =>
      GET('/api/webhooks/v1/endpoints/{id}/deliveries', {
        params: { path: { id: endpointId }, query: { limit: DELIVERIES_PAGE, ...(pageParam ? { cursor: pageParam } : {}) } },
        projectId,
        signal,
      }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    refetchInterval: DELIVERIES_REFRESH_MS,
    retry: noRetryOn4xx,
  });
}

export function useEndpointMutations(projectId: string) {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: webhookKeys.endpoints(projectId) });
  const at = (id: string) => ({ params: { path: { id } }, projectId });
  return {
    create: useMutation({
      mutationFn: async (body: CreateEndpointBody) => (await POST('/api/webhooks/v1/endpoints', { projectId, body })).data,
      onSuccess: refresh,
    }),
    update: useMutation({
      mutationFn: async ({ id, body }: { id: string; body: UpdateEndpointBody }) => (await PATCH('/api/webhooks/v1/endpoints/{id}', { ...at(id), body })).data,
      onSuccess: refresh,
    }),
    remove: useMutation({ mutationFn: (id: string) => DELETE('/api/webhooks/v1/endpoints/{id}', at(id)), onSuccess: refresh }),
    test: useMutation({
      mutationFn: (id: string) => POST('/api/webhooks/v1/endpoints/{id}/test', at(id)),
      onSuccess: (_data, id) => client.invalidateQueries({ queryKey: webhookKeys.deliveries(projectId, id) }),
    }),
    rollSecret: useMutation({
      mutationFn: async (id: string) => (await POST('/api/webhooks/v1/endpoints/{id}/roll-secret', at(id))).data,
      onSuccess: refresh,
    }),
  };
}
