import { useMemo } from 'react';
import { infiniteQueryOptions, queryOptions, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DELETE, GET, PATCH, POST, type Answer } from './client.ts';
import type { CreateAnnotationBody, NewTracesRequest, SearchRequest, UpdateAnnotationBody } from './types.ts';
import type { components } from './openapi.gen.ts';
import { TRACE_LIST_PAGE, firstPageBody } from '../lib/list-search.ts';
import type { TraceEvaluation } from '../../modules/evaluators/schemas.ts';

type Schemas = components['schemas'];
export type { TraceEvaluation };
export type TraceSummary = Schemas['TraceSummary'];
export type Span = Schemas['Span'];
export type SpanOutline = Schemas['SpanOutline'];
/**
 * What the trace page loads first: the trace with its spans in outline, and its evaluations.
 * The document leaves an evaluation's shape open (the traces module does not know the
 * evaluators'); the evaluators module's schema says it.
 */
export type TraceOutline = Answer<'/api/trace/{id}/outline', 'get'> & { evaluations: TraceEvaluation[] };
export type SpanPayload = Span['input'];
export type ChatMessage = Extract<NonNullable<SpanPayload>, { type: 'chat_messages' }>['value'][number];
export type ShareState = Schemas['ShareState'];
export type Annotation = Schemas['Annotation'];

/** Where a trace comes from: a project (signed in) or a public share token. */
export type TraceSource = { projectId: string; traceId: string } | { shareToken: string };

const notRetriedBelow500 = (count: number, error: Error) => count < 2 && !('status' in error && (error as { status: number }).status < 500);

export const traceKeys = {
  list: (projectId: string, request: SearchRequest) => ['traces', projectId, request] as const,
  thread: (projectId: string, threadId: string) => ['thread', projectId, threadId] as const,
  picker: (projectId: string, query: string) => ['trace-picker', projectId, query] as const,
  outline: (source: TraceSource) => ('shareToken' in source ? ['share', source.shareToken] : ['trace', source.projectId, source.traceId]) as readonly string[],
  span: (source: TraceSource, spanId: string | null) => ['span', 'shareToken' in source ? source.shareToken : `${source.projectId}/${source.traceId}`, spanId] as const,
  shareState: (projectId: string, traceId: string) => ['share-state', projectId, traceId] as const,
  annotations: (projectId: string, traceId: string) => ['annotations', projectId, traceId] as const,
};

/** One page of the trace search (POST /api/trace/search), after `scrollId` when given. */
export const searchTraces = (projectId: string, body: SearchRequest, signal?: AbortSignal) => POST('/api/trace/search', { projectId, body, signal });

export { TRACE_LIST_PAGE };

/**
 * The traces list: the search, a page at a time (keyset paging by scrollId). The route's
 * loader asks for the first page with it while the page's code loads.
 */
export const traceListQuery = (projectId: string, request: SearchRequest) =>
  infiniteQueryOptions({
    queryKey: traceKeys.list(projectId, request),
    queryFn: ({ pageParam, signal }) => searchTraces(projectId, { ...firstPageBody(request), ...(pageParam ? { scrollId: pageParam } : {}) }, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.pagination.scrollId,
  });

export const useTraceList = (projectId: string, request: SearchRequest) => useInfiniteQuery(traceListQuery(projectId, request));

/** A thread's turns: its traces, oldest first, a page of `pageSize` at a time. */
export function useThreadTraces(projectId: string, threadId: string, pageSize: number) {
  return useInfiniteQuery({
    queryKey: traceKeys.thread(projectId, threadId),
    queryFn: ({ pageParam, signal }) =>
      searchTraces(projectId, { filters: { thread_id: threadId }, sortBy: 'started_at', sortDirection: 'asc', pageSize, ...(pageParam ? { scrollId: pageParam } : {}) }, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.pagination.scrollId,
  });
}

/** The trace picker's 20 newest traces matching `query` (all of them when empty). */
export function useTracePicker(projectId: string, query: string, enabled: boolean) {
  return useQuery({
    queryKey: traceKeys.picker(projectId, query),
    queryFn: ({ signal }) => searchTraces(projectId, { ...(query.trim() ? { query: query.trim() } : {}), pageSize: 20 }, signal),
    enabled,
  });
}

/** The traces that arrived since `since` (POST /api/trace/search/new), for the list's live updates. */
export const fetchNewTraces = (projectId: string, body: NewTracesRequest) => POST('/api/trace/search/new', { projectId, body });

/** A trace whole, with its spans and evaluations (GET /api/trace/{id}). */
export const fetchTrace = (projectId: string, traceId: string) => GET('/api/trace/{id}', { params: { path: { id: traceId } }, projectId });

/** The trace with its spans in outline (a 10,000-span trace stays a few MB); spans are read whole one at a time. */
export function useTraceOutline(source: TraceSource) {
  return useQuery(traceOutlineQuery(source));
}

/** The outline's query, also started by the route before its code has loaded. */
export function traceOutlineQuery(source: TraceSource) {
  return queryOptions({
    queryKey: traceKeys.outline(source),
    // The document leaves the evaluations' shape open; types.ts TraceOutline says it.
    queryFn: ({ signal }) =>
      ('shareToken' in source
        ? GET('/api/share/{token}/outline', { params: { path: { token: source.shareToken } }, signal })
        : GET('/api/trace/{id}/outline', { params: { path: { id: source.traceId } }, projectId: source.projectId, signal })) as Promise<TraceOutline>,
    retry: notRetriedBelow500,
    staleTime: 10_000,
  });
}

/** One span, whole: input, output, params, attributes, events. */
export function useSpan(source: TraceSource, spanId: string | null) {
  return useQuery({
    queryKey: traceKeys.span(source, spanId),
    queryFn: ({ signal }) =>
      'shareToken' in source
        ? GET('/api/share/{token}/spans/{spanId}', { params: { path: { token: source.shareToken, spanId: spanId! } }, signal })
        : GET('/api/trace/{id}/spans/{spanId}', { params: { path: { id: source.traceId, spanId: spanId! } }, projectId: source.projectId, signal }),
    enabled: spanId !== null,
    retry: notRetriedBelow500,
    staleTime: 60_000,
  });
}

/**
 * The trace page's search of what the outline lacks (GET /api/trace/{id}/span-search: inputs,
 * outputs, error messages, attribute values): span ids in start order. Undefined for a shared trace (its visitors search what the outline has).
 */
export function useSpanSearch(source: TraceSource): ((text: string, signal: AbortSignal) => Promise<string[]>) | undefined {
  const projectId = 'projectId' in source ? source.projectId : null;
  const traceId = 'traceId' in source ? source.traceId : null;
  return useMemo(
    () =>
      projectId && traceId
        ? async (text: string, signal: AbortSignal) => (await GET('/api/trace/{id}/span-search', { params: { path: { id: traceId }, query: { q: text } }, projectId, signal })).span_ids
        : undefined,
    [projectId, traceId],
  );
}

export function useShareState(projectId: string, traceId: string, enabled = true) {
  return useQuery({
    queryKey: traceKeys.shareState(projectId, traceId),
    queryFn: () => GET('/api/trace/{id}/share', { params: { path: { id: traceId } }, projectId }),
    enabled,
  });
}

/** What a public share hides from its visitors. */
export type ShareOptions = NonNullable<ShareState['options']>;

export function useShareMutation(projectId: string, traceId: string) {
  const client = useQueryClient();
  return useMutation({
    /** `false`: unshare; options: share (or change what the share hides). */
    mutationFn: async (share: false | ShareOptions): Promise<ShareState> => {
      const params = { path: { id: traceId } };
      if (share) return { shared: true, path: (await POST('/api/trace/{id}/share', { params, projectId, body: share })).path, options: share };
      await POST('/api/trace/{id}/unshare', { params, projectId });
      return { shared: false, path: null, options: null };
    },
    onSuccess: (state) => client.setQueryData(traceKeys.shareState(projectId, traceId), state),
  });
}

export function useAnnotations(projectId: string, traceId: string) {
  return useQuery({
    queryKey: traceKeys.annotations(projectId, traceId),
    queryFn: async () => (await GET('/api/annotations/trace/{id}', { params: { path: { id: traceId } }, projectId })).data,
  });
}

export function useAnnotationMutations(projectId: string, traceId: string) {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: traceKeys.annotations(projectId, traceId) });
  return {
    create: useMutation({
      mutationFn: (body: CreateAnnotationBody) => POST('/api/annotations/trace/{id}', { params: { path: { id: traceId } }, projectId, body }),
      onSuccess: refresh,
    }),
    update: useMutation({
      mutationFn: ({ id, body }: { id: string; body: UpdateAnnotationBody }) => PATCH('/api/annotations/{id}', { params: { path: { id } }, projectId, body }),
      onSuccess: refresh,
    }),
    remove: useMutation({
      mutationFn: (id: string) => DELETE('/api/annotations/{id}', { params: { path: { id } }, projectId }),
      onSuccess: refresh,
    }),
  };
}
