import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { DELETE, GET, PATCH, POST, type Answer } from './client.ts';
import { evaluatorKeys } from './evaluators.ts';
import type { createCustomBody, updateCustomBody } from '../../modules/evaluators/custom/schemas.ts';

export type CustomEvaluator = Answer<'/api/custom-evaluators/{slug}', 'get'>;
export type CustomVersion = Answer<'/api/custom-evaluators/{slug}/versions', 'get'>['data'][number];
export type CreateCustomInput = z.input<typeof createCustomBody>;
export type UpdateCustomInput = z.input<typeof updateCustomBody>;
export type AnswerKind = CustomEvaluator['answer'];

const at = (slug: string) => ({ params: { path: { slug } } });

export const customEvaluatorKeys = {
  all: (projectId: string) => ['custom-evaluators', projectId] as const,
  one: (projectId: string, slug: string) => ['custom-evaluators', projectId, slug] as const,
  versions: (projectId: string, slug: string) => ['custom-evaluators', projectId, slug, 'versions'] as const,
};

export const customEvaluatorQuery = (projectId: string, slug: string) =>
  queryOptions({ queryKey: customEvaluatorKeys.one(projectId, slug), queryFn: ({ signal }) => GET('/api/custom-evaluators/{slug}', { ...at(slug), projectId, signal }) });

export const customVersionsQuery = (projectId: string, slug: string) =>
  queryOptions({
    queryKey: customEvaluatorKeys.versions(projectId, slug),
    queryFn: async ({ signal }) => (await GET('/api/custom-evaluators/{slug}/versions', { ...at(slug), projectId, signal })).data,
  });

export const useCustomEvaluator = (projectId: string, slug: string) => useQuery(customEvaluatorQuery(projectId, slug));
export const useCustomVersions = (projectId: string, slug: string) => useQuery(customVersionsQuery(projectId, slug));

/** Create, change (a new version when what the judge is asked changes) and delete; the catalogue is read again after each. */
export function useCustomEvaluatorMutations(projectId: string) {
  const client = useQueryClient();
  const refresh = async (saved?: CustomEvaluator) => {
    if (saved) client.setQueryData(customEvaluatorKeys.one(projectId, saved.slug), saved);
    await client.invalidateQueries({ queryKey: customEvaluatorKeys.all(projectId) });
    // The catalogue lists custom evaluators.
    await client.invalidateQueries({ queryKey: evaluatorKeys.catalogue(projectId) });
  };
  return {
    create: useMutation({ mutationFn: (body: CreateCustomInput) => POST('/api/custom-evaluators', { projectId, body }), onSuccess: refresh }),
    update: useMutation({ mutationFn: ({ slug, body }: { slug: string; body: UpdateCustomInput }) => PATCH('/api/custom-evaluators/{slug}', { ...at(slug), projectId, body }), onSuccess: refresh }),
    remove: useMutation({ mutationFn: (slug: string) => DELETE('/api/custom-evaluators/{slug}', { ...at(slug), projectId }), onSuccess: () => refresh() }),
  };
}
