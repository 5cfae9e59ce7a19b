import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client.ts';
import type { CreateViewBody, SavedView, UpdateViewBody } from './types.ts';

/** The project's saved views of the traces list (GET /api/trace-views). */
export function useSavedViews(projectId: string) {
  return useQuery({
    queryKey: ['trace-views', projectId],
    queryFn: async ({ signal }) => (await api<{ data: SavedView[] }>('GET', '/api/trace-views', { projectId, signal })).data,
  });
}

export function useSavedViewMutations(projectId: string) {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: ['trace-views', projectId] });
  return {
    create: useMutation({ mutationFn: (body: CreateViewBody) => api<SavedView>('POST', '/api/trace-views', { projectId, body }), onSuccess: refresh }),
    update: useMutation({
      mutationFn: ({ id, body }: { id: string; body: UpdateViewBody }) => api<SavedView>('PATCH', `/api/trace-views/${encodeURIComponent(id)}`, { projectId, body }),
      onSuccess: refresh,
    }),
    remove: useMutation({ mutationFn: (id: string) => api('DELETE', `/api/trace-views/${encodeURIComponent(id)}`, { projectId }), onSuccess: refresh }),
  };
}
