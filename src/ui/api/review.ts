import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client.ts';
import type { AddItemsBody, CompleteItemBody, CompletedItem, CreateQueueBody, CreateScoreConfigBody, NextItem, QueueItem, QueueItemDetail, ReviewQueue, ScoreConfig, UpdateQueueBody } from './types.ts';

const queuePath = (id: string) => `/api/queues/${encodeURIComponent(id)}`;

export function useScoreConfigs(projectId: string) {
  return useQuery({
    queryKey: ['score-configs', projectId],
    queryFn: async ({ signal }) => (await api<{ data: ScoreConfig[] }>('GET', '/api/score-configs', { projectId, signal })).data,
  });
}

export function useScoreConfigMutations(projectId: string) {
  const client = useQueryClient();
  const done = () => client.invalidateQueries({ queryKey: ['score-configs', projectId] });
  return {
    create: useMutation({ mutationFn: (body: CreateScoreConfigBody) => api<{ data: ScoreConfig }>('POST', '/api/score-configs', { projectId, body }), onSuccess: done }),
    remove: useMutation({ mutationFn: (id: string) => api('DELETE', `/api/score-configs/${encodeURIComponent(id)}`, { projectId }), onSuccess: done }),
  };
}

export function useQueues(projectId: string, mine = false) {
  return useQuery({
    queryKey: ['queues', projectId, mine],
    queryFn: async ({ signal }) => (await api<{ data: ReviewQueue[] }>('GET', `/api/queues${mine ? '?mine=true' : ''}`, { projectId, signal })).data,
  });
}

export function useQueue(projectId: string, queueId: string) {
  return useQuery({
    queryKey: ['queue', projectId, queueId],
    queryFn: async ({ signal }) => (await api<{ data: ReviewQueue }>('GET', queuePath(queueId), { projectId, signal })).data,
    retry: false,
  });
}

export function useQueueMutations(projectId: string) {
  const client = useQueryClient();
  const done = () => Promise.all([client.invalidateQueries({ queryKey: ['queues', projectId] }), client.invalidateQueries({ queryKey: ['queue', projectId] })]);
  return {
    create: useMutation({ mutationFn: (body: CreateQueueBody) => api<{ data: ReviewQueue }>('POST', '/api/queues', { projectId, body }), onSuccess: done }),
    update: useMutation({ mutationFn: ({ id, body }: { id: string; body: UpdateQueueBody }) => api<{ data: ReviewQueue }>('PATCH', queuePath(id), { projectId, body }), onSuccess: done }),
    remove: useMutation({ mutationFn: (id: string) => api('DELETE', queuePath(id), { projectId }), onSuccess: done }),
    addItems: useMutation({
      mutationFn: ({ id, body }: { id: string; body: AddItemsBody }) => api<{ added: number; alreadyQueued: number }>('POST', `${queuePath(id)}/items`, { projectId, body }),
      onSuccess: done,
    }),
  };
}

/** The reviewer's calls: claim the next item, read one, complete, skip or release. */
export const review = {
  next: (projectId: string, queueId: string) => api<NextItem>('POST', `${queuePath(queueId)}/next`, { projectId }),
  item: (projectId: string, queueId: string, itemId: string) => api<QueueItemDetail>('GET', `${queuePath(queueId)}/items/${encodeURIComponent(itemId)}`, { projectId }),
  done: (projectId: string, queueId: string) => api<{ data: QueueItem[]; total: number }>('GET', `${queuePath(queueId)}/items?doneBy=me&pageSize=100`, { projectId }),
  complete: (projectId: string, queueId: string, itemId: string, body: CompleteItemBody) =>
    api<CompletedItem>('POST', `${queuePath(queueId)}/items/${encodeURIComponent(itemId)}/complete`, { projectId, body }),
  skip: (projectId: string, queueId: string, itemId: string) => api<{ data: QueueItem }>('POST', `${queuePath(queueId)}/items/${encodeURIComponent(itemId)}/skip`, { projectId }),
  release: (projectId: string, queueId: string, itemId: string) => api<{ data: QueueItem }>('POST', `${queuePath(queueId)}/items/${encodeURIComponent(itemId)}/release`, { projectId }),
};
