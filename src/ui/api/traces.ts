import { useMemo } from 'react';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client.ts';
import type { Annotation, CreateAnnotationBody, ShareState, Span, SpanSearchResponse, TraceOutline, UpdateAnnotationBody } from './types.ts';

/** Where a trace comes from: a project (signed in) or a public share token. */
export type TraceSource = { projectId: string; traceId: string } | { shareToken: string };

const notRetriedBelow500 = (count: number, error: Error) => count < 2 && !('status' in error && (error as { status: number }).status < 500);

/** The trace with its spans in outline (a 10,000-span trace stays a few MB); spans are read whole one at a time. */
export function useTraceOutline(source: TraceSource) {
  return useQuery(traceOutlineQuery(source));
}

/** The outline's query, also started by the route before its code has loaded. */
export function traceOutlineQuery(source: TraceSource) {
  return queryOptions({
    queryKey: 'shareToken' in source ? ['share', source.shareToken] : ['trace', source.projectId, source.traceId],
    queryFn: ({ signal }) =>
      'shareToken' in source
        ? api<TraceOutline>('GET', `/api/share/${encodeURIComponent(source.shareToken)}/outline`, { signal })
        : api<TraceOutline>('GET', `/api/trace/${encodeURIComponent(source.traceId)}/outline`, { projectId: source.projectId, signal }),
    retry: notRetriedBelow500,
    staleTime: 10_000,
  });
}

/** One span, whole: input, output, params, attributes, events. */
export function useSpan(source: TraceSource, spanId: string | null) {
  return useQuery({
    queryKey: ['span', 'shareToken' in source ? source.shareToken : `${source.projectId}/${source.traceId}`, spanId],
    queryFn: ({ signal }) =>
      'shareToken' in source
        ? api<Span>('GET', `/api/share/${encodeURIComponent(source.shareToken)}/spans/${encodeURIComponent(spanId!)}`, { signal })
        : api<Span>('GET', `/api/trace/${encodeURIComponent(source.traceId)}/spans/${encodeURIComponent(spanId!)}`, { projectId: source.projectId, signal }),
    enabled: spanId !== null,
    retry: notRetriedBelow500,
    staleTime: 60_000,
  });
}

/**
 * The trace page's attribute search (GET /api/trace/{id}/span-search): span ids in start
 * order. Undefined for a shared trace (its visitors search what the outline has).
 */
export function useSpanSearch(source: TraceSource): ((text: string, signal: AbortSignal) => Promise<string[]>) | undefined {
  const projectId = 'projectId' in source ? source.projectId : null;
  const traceId = 'traceId' in source ? source.traceId : null;
  return useMemo(
    () =>
      projectId && traceId
        ? async (text: string, signal: AbortSignal) =>
            (await api<SpanSearchResponse>('GET', `/api/trace/${encodeURIComponent(traceId)}/span-search?q=${encodeURIComponent(text)}`, { projectId, signal })).span_ids
        : undefined,
    [projectId, traceId],
  );
}

export function useShareState(projectId: string, traceId: string, enabled = true) {
  return useQuery({
    queryKey: ['share-state', projectId, traceId],
    queryFn: () => api<ShareState>('GET', `/api/trace/${encodeURIComponent(traceId)}/share`, { projectId }),
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
      const path = `/api/trace/${encodeURIComponent(traceId)}/${share ? 'share' : 'unshare'}`;
      if (share) return { shared: true, path: (await api<{ path: string }>('POST', path, { projectId, body: share })).path, options: share };
      await api('POST', path, { projectId });
      return { shared: false, path: null, options: null };
    },
    onSuccess: (state) => client.setQueryData(['share-state', projectId, traceId], state),
  });
}

export function useAnnotations(projectId: string, traceId: string) {
  return useQuery({
    queryKey: ['annotations', projectId, traceId],
    queryFn: async () => (await api<{ data: Annotation[] }>('GET', `/api/annotations/trace/${encodeURIComponent(traceId)}`, { projectId })).data,
  });
}

export function useAnnotationMutations(projectId: string, traceId: string) {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: ['annotations', projectId, traceId] });
  return {
    create: useMutation({
      mutationFn: (body: CreateAnnotationBody) => api<{ data: Annotation }>('POST', `/api/annotations/trace/${encodeURIComponent(traceId)}`, { projectId, body }),
      onSuccess: refresh,
    }),
    update: useMutation({
      mutationFn: ({ id, body }: { id: string; body: UpdateAnnotationBody }) => api<{ data: Annotation }>('PATCH', `/api/annotations/${encodeURIComponent(id)}`, { projectId, body }),
      onSuccess: refresh,
    }),
    remove: useMutation({
      mutationFn: (id: string) => api('DELETE', `/api/annotations/${encodeURIComponent(id)}`, { projectId }),
      onSuccess: refresh,
    }),
  };
}
