import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { GET, POST } from './client.ts';
import type { ThreadsRequest } from './types.ts';
import type { components } from './openapi.gen.ts';

type Schemas = components['schemas'];
export type ThreadRow = Schemas['Thread'];
export type ThreadScore = Schemas['ThreadScore'];
export type ThreadEvaluation = Schemas['ThreadEvaluation'];

export const threadKeys = {
  list: (projectId: string, request: ThreadsRequest) => ['threads', projectId, request] as const,
  evaluations: (projectId: string, threadId: string) => ['thread-evaluations', projectId, threadId] as const,
};

/** A page of the project's threads (POST /api/threads), filtered by the trace search, sorted. */
export function useThreads(projectId: string, body: ThreadsRequest) {
  return useQuery({
    queryKey: threadKeys.list(projectId, body),
    queryFn: ({ signal }) => POST('/api/threads', { projectId, body, signal }),
    placeholderData: keepPreviousData,
  });
}

/** A thread's evaluations as a whole, newest first, each with the turns it covered. */
export function useThreadEvaluations(projectId: string, threadId: string) {
  return useQuery({
    queryKey: threadKeys.evaluations(projectId, threadId),
    queryFn: async ({ signal }) => (await GET('/api/threads/{threadId}/evaluations', { params: { path: { threadId } }, projectId, signal })).data,
  });
}

export type ThreadReview = Schemas['ThreadReview'];

/** People's reviews of a thread (review queues' thread items), oldest first. */
export function useThreadReviews(projectId: string, threadId: string) {
  return useQuery({
    queryKey: ['thread-reviews', projectId, threadId] as const,
    queryFn: async ({ signal }) => (await GET('/api/threads/{threadId}/reviews', { params: { path: { threadId } }, projectId, signal })).data,
  });
}
