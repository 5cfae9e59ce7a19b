import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { api } from './client.ts';
import type { createCustomBody, CustomEvaluatorView, customVersionSchema, updateCustomBody } from '../../modules/evaluators/custom/schemas.ts';

export type CustomEvaluator = CustomEvaluatorView;
export type CustomVersion = z.output<typeof customVersionSchema>;
export type CreateCustomInput = z.input<typeof createCustomBody>;
export type UpdateCustomInput = z.input<typeof updateCustomBody>;
export type AnswerKind = CustomEvaluator['answer'];

const BASE = '/api/custom-evaluators';
const at = (slug: string) => `${BASE}/${encodeURIComponent(slug)}`;

export const customEvaluatorKeys = {
  all: (projectId: string) => ['custom-evaluators', projectId] as const,
  one: (projectId: string, slug: string) => ['custom-evaluators', projectId, slug] as const,
  versions: (projectId: string, slug: string) => ['custom-evaluators', projectId, slug, 'versions'] as const,
};

export const customEvaluatorQuery = (projectId: string, slug: string) =>
  queryOptions({ queryKey: customEvaluatorKeys.one(projectId, slug), queryFn: ({ signal }) => api<CustomEvaluator>('GET', at(slug), { projectId, signal }) });

export const customVersionsQuery = (projectId: string, slug: string) =>
  queryOptions({
    queryKey: customEvaluatorKeys.versions(projectId, slug),
    queryFn: async ({ signal }) => (await api<{ data: CustomVersion[] }>('GET', `${at(slug)}/versions`, { projectId, signal })).data,
  });

export const useCustomEvaluator = (projectId: string, slug: string) => useQuery(customEvaluatorQuery(projectId, slug));
export const useCustomVersions = (projectId: string, slug: string) => useQuery(customVersionsQuery(projectId, slug));

/** Create, change (a new version when what the judge is asked changes) and delete; the catalogue is read again after each. */
export function useCustomEvaluatorMutations(projectId: string) {
  const client = useQueryClient();
  const refresh = async (saved?: CustomEvaluator) => {
    if (saved) client.setQueryData(customEvaluatorKeys.one(projectId, saved.slug), saved);
    await client.invalidateQueries({ queryKey: customEvaluatorKeys.all(projectId) });
    // The catalogue lists custom evaluators (its key: api/evaluators.ts useCatalogue).
    await client.invalidateQueries({ queryKey: ['evaluators', projectId] });
  };
  return {
    create: useMutation({ mutationFn: (body: CreateCustomInput) => api<CustomEvaluator>('POST', BASE, { projectId, body }), onSuccess: refresh }),
    update: useMutation({ mutationFn: ({ slug, body }: { slug: string; body: UpdateCustomInput }) => api<CustomEvaluator>('PATCH', at(slug), { projectId, body }), onSuccess: refresh }),
    remove: useMutation({ mutationFn: (slug: string) => api<{ slug: string }>('DELETE', at(slug), { projectId }), onSuccess: () => refresh() }),
  };
}
