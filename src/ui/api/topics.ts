import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { GET, POST, PUT, type Answer } from './client.ts';
import type { paths } from './openapi.gen.ts';

export type TopicsAnswer = Answer<'/api/topics', 'get'>;
export type Topic = TopicsAnswer['topics'][number];
export type TopicSettings = Answer<'/api/topics/settings', 'get'>;
export type TopicSettingsInput = paths['/api/topics/settings']['put']['requestBody']['content']['application/json'];

const topicsKey = (projectId: string) => ['topics', projectId] as const;

/** The project's topics over a range; read again every 30 s while a build is asked for. */
export function useTopics(projectId: string, range: { startDate: number; endDate: number }) {
  return useQuery({
    queryKey: [...topicsKey(projectId), range.startDate, range.endDate],
    queryFn: ({ signal }) => GET('/api/topics', { params: { query: range }, projectId, signal }),
    placeholderData: (previous) => previous,
    refetchInterval: (q) => (q.state.data?.status.rebuildRequestedAt ? 5_000 : false),
  });
}

export function useTopicSettings(projectId: string) {
  return useQuery({ queryKey: [...topicsKey(projectId), 'settings'], queryFn: () => GET('/api/topics/settings', { projectId }) });
}

export function useTopicMutations(projectId: string) {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: topicsKey(projectId) });
  return {
    save: useMutation({ mutationFn: (body: TopicSettingsInput) => PUT('/api/topics/settings', { projectId, body }), onSuccess: refresh }),
    rebuild: useMutation({ mutationFn: () => POST('/api/topics/rebuild', { projectId }), onSuccess: refresh }),
  };
}

/** Topic names by id (for filters that name topics by id). */
export function useTopicNames(projectId: string, enabled: boolean): Map<string, string> | undefined {
  const topics = useQuery({
    queryKey: [...topicsKey(projectId), 'names'],
    // Names only: the range's counts are not read, so any range serves.
    queryFn: ({ signal }) => GET('/api/topics', { params: { query: { startDate: 0, endDate: 86_400_000 } }, projectId, signal }),
    enabled,
    staleTime: 60_000,
  });
  return topics.data ? new Map(topics.data.topics.map((t) => [t.id, t.name])) : undefined;
}
