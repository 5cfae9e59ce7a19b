import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DELETE, GET, PATCH, POST, type Answer } from './client.ts';
import type { AddItemsBody, CompleteItemBody, CreateQueueBody, CreateScoreConfigBody, UpdateQueueBody } from './types.ts';
import type { components } from './openapi.gen.ts';

type Schemas = components['schemas'];
export type ScoreConfig = Schemas['ScoreConfig'];
export type Score = Schemas['Score'];
export type ReviewQueue = Schemas['ReviewQueue'];
export type QueueItem = Schemas['ReviewQueueItem'];
export type QueueItemDetail = Answer<'/api/queues/{id}/items/{itemId}', 'get'>;

export const reviewKeys = {
  scoreConfigs: (projectId: string) => ['score-configs', projectId] as const,
  queues: (projectId: string) => ['queues', projectId] as const,
  queueList: (projectId: string, mine: boolean) => ['queues', projectId, mine] as const,
  /** Every queue of the project (no id), or one. */
  queue: (projectId: string, queueId?: string) => (queueId === undefined ? (['queue', projectId] as const) : (['queue', projectId, queueId] as const)),
  claim: (projectId: string, queueId: string, round: number) => ['review-next', projectId, queueId, round] as const,
  item: (projectId: string, queueId: string, itemId: string | null) => ['queue-item', projectId, queueId, itemId] as const,
};

const queueAt = (id: string) => ({ params: { path: { id } } });
const itemAt = (queueId: string, itemId: string) => ({ params: { path: { id: queueId, itemId } } });

export function useScoreConfigs(projectId: string) {
  return useQuery({
    queryKey: reviewKeys.scoreConfigs(projectId),
    queryFn: async ({ signal }) => (await GET('/api/score-configs', { projectId, signal })).data,
  });
}

export function useScoreConfigMutations(projectId: string) {
  const client = useQueryClient();
  const done = () => client.invalidateQueries({ queryKey: reviewKeys.scoreConfigs(projectId) });
  return {
    create: useMutation({ mutationFn: (body: CreateScoreConfigBody) => POST('/api/score-configs', { projectId, body }), onSuccess: done }),
    remove: useMutation({ mutationFn: (id: string) => DELETE('/api/score-configs/{id}', { params: { path: { id } }, projectId }), onSuccess: done }),
  };
}

export function useQueues(projectId: string, mine = false) {
  return useQuery({
    queryKey: reviewKeys.queueList(projectId, mine),
    queryFn: async ({ signal }) => (await GET('/api/queues', { params: { query: mine ? { mine: 'true' } : {} }, projectId, signal })).data,
  });
}

export function useQueue(projectId: string, queueId: string) {
  return useQuery({
    queryKey: reviewKeys.queue(projectId, queueId),
    queryFn: async ({ signal }) => (await GET('/api/queues/{id}', { ...queueAt(queueId), projectId, signal })).data,
    retry: false,
  });
}

export function useQueueMutations(projectId: string) {
  const client = useQueryClient();
  const done = () => Promise.all([client.invalidateQueries({ queryKey: reviewKeys.queues(projectId) }), client.invalidateQueries({ queryKey: reviewKeys.queue(projectId) })]);
  return {
    create: useMutation({ mutationFn: (body: CreateQueueBody) => POST('/api/queues', { projectId, body }), onSuccess: done }),
    update: useMutation({ mutationFn: ({ id, body }: { id: string; body: UpdateQueueBody }) => PATCH('/api/queues/{id}', { ...queueAt(id), projectId, body }), onSuccess: done }),
    remove: useMutation({ mutationFn: (id: string) => DELETE('/api/queues/{id}', { ...queueAt(id), projectId }), onSuccess: done }),
    addItems: useMutation({
      mutationFn: ({ id, body }: { id: string; body: AddItemsBody }) => POST('/api/queues/{id}/items', { ...queueAt(id), projectId, body }),
      onSuccess: done,
    }),
  };
}

/**
 * A round of review: claim the next item (a POST: asked once per round, never refetched by
 * itself) and read what this reviewer already did in the queue, latest first.
 */
export function useClaim(projectId: string, queueId: string, round: number) {
  const client = useQueryClient();
  return useQuery({
    queryKey: reviewKeys.claim(projectId, queueId, round),
    queryFn: async () => {
      const [next, done] = await Promise.all([
        POST('/api/queues/{id}/next', { ...queueAt(queueId), projectId }),
        GET('/api/queues/{id}/items', { params: { path: { id: queueId }, query: { doneBy: 'me', pageSize: 100 } }, projectId }),
      ]);
      void client.invalidateQueries({ queryKey: reviewKeys.queue(projectId, queueId) });
      return { current: next.data, history: done.data };
    },
    staleTime: Infinity,
    gcTime: 0,
    retry: false,
    refetchOnWindowFocus: false,
  });
}

/** One item of the queue, with its trace and scores (an item reviewed before). */
export function useQueueItem(projectId: string, queueId: string, itemId: string | null) {
  return useQuery({
    queryKey: reviewKeys.item(projectId, queueId, itemId),
    queryFn: () => GET('/api/queues/{id}/items/{itemId}', { ...itemAt(queueId, itemId!), projectId }),
    enabled: itemId !== null,
  });
}

/** The reviewer's calls on the item claimed: complete, skip or release. */
export const review = {
  complete: (projectId: string, queueId: string, itemId: string, body: CompleteItemBody) => POST('/api/queues/{id}/items/{itemId}/complete', { ...itemAt(queueId, itemId), projectId, body }),
  skip: (projectId: string, queueId: string, itemId: string) => POST('/api/queues/{id}/items/{itemId}/skip', { ...itemAt(queueId, itemId), projectId }),
  release: (projectId: string, queueId: string, itemId: string) => POST('/api/queues/{id}/items/{itemId}/release', { ...itemAt(queueId, itemId), projectId }),
};
