import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DELETE, GET, PATCH, POST } from './client.ts';
import type { CreateViewBody, UpdateViewBody } from './types.ts';
import type { components } from './openapi.gen.ts';

type Schemas = components['schemas'];
export type SavedView = Schemas['TraceView'];

export const viewKeys = { all: (projectId: string) => ['trace-views', projectId] as const };

/** The project's saved views of the traces list (GET /api/trace-views). */
export function useSavedViews(projectId: string) {
  return useQuery({
    queryKey: viewKeys.all(projectId),
    queryFn: async ({ signal }) => (await GET('/api/trace-views', { projectId, signal })).data,
  });
}

export function useSavedViewMutations(projectId: string) {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: viewKeys.all(projectId) });
  return {
    create: useMutation({ mutationFn: (body: CreateViewBody) => POST('/api/trace-views', { projectId, body }), onSuccess: refresh }),
    update: useMutation({
      mutationFn: ({ id, body }: { id: string; body: UpdateViewBody }) => PATCH('/api/trace-views/{id}', { params: { path: { id } }, projectId, body }),
      onSuccess: refresh,
    }),
    remove: useMutation({ mutationFn: (id: string) => DELETE('/api/trace-views/{id}', { params: { path: { id } }, projectId }), onSuccess: refresh }),
  };
}
