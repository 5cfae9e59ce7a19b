import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DELETE, GET, POST, PUT } from './client.ts';
import { fetchMembers } from './organization.ts';
import { can, useSession } from './session.ts';
import type { CreatePromptBody, UpdatePromptBody } from './types.ts';
import type { components } from './openapi.gen.ts';

type Schemas = components['schemas'];
export type Prompt = Schemas['Prompt'];
export type PromptMessage = Prompt['messages'][number];

export const promptKeys = {
  all: (projectId: string) => ['prompts', projectId] as const,
  versions: (projectId: string, promptId: string) => ['prompt-versions', projectId, promptId] as const,
  memberNames: (organizationId: string | undefined) => ['members', organizationId] as const,
};

/** A prompt's path parameter: id or handle (a handle's slash is encoded by the client: `support%2Freply`). */
const at = (idOrHandle: string) => ({ params: { path: { id: idOrHandle } } });

export function usePrompts(projectId: string) {
  return useQuery({ queryKey: promptKeys.all(projectId), queryFn: ({ signal }) => GET('/api/prompts', { projectId, signal }) });
}

export function usePromptVersions(projectId: string, promptId: string) {
  return useQuery({
    queryKey: promptKeys.versions(projectId, promptId),
    queryFn: ({ signal }) => GET('/api/prompts/{id}/versions', { ...at(promptId), projectId, signal }),
  });
}

/** Names of the organization's members by user id (authors); empty for a role that cannot list members. */
export function useMemberNames() {
  const { data: session } = useSession();
  const allowed = can(session, 'organization:view');
  const members = useQuery({
    queryKey: promptKeys.memberNames(session?.organization.id),
    queryFn: ({ signal }) => fetchMembers(signal),
    enabled: allowed,
    staleTime: 60_000,
  });
  const names = new Map<string, string>((members.data?.data ?? []).map((m) => [m.userId, m.name ?? m.email]));
  if (session) names.set(session.user.id, session.user.name ?? session.user.email);
  return (userId: string | null) => (userId ? (names.get(userId) ?? userId) : '–');
}

export function usePromptMutations(projectId: string, promptId: string) {
  const client = useQueryClient();
  const refresh = async () => {
    await Promise.all([client.invalidateQueries({ queryKey: promptKeys.versions(projectId, promptId) }), client.invalidateQueries({ queryKey: promptKeys.all(projectId) })]);
  };
  return {
    save: useMutation({ mutationFn: (body: UpdatePromptBody) => PUT('/api/prompts/{id}', { ...at(promptId), projectId, body }), onSuccess: refresh }),
    restore: useMutation({
      mutationFn: (versionId: string) => POST('/api/prompts/{id}/versions/{versionId}/restore', { params: { path: { id: promptId, versionId } }, projectId, body: {} }),
      onSuccess: refresh,
    }),
    tag: useMutation({
      mutationFn: ({ tag, versionId }: { tag: string; versionId: string }) => PUT('/api/prompts/{id}/tags/{tag}', { params: { path: { id: promptId, tag } }, projectId, body: { versionId } }),
      onSuccess: refresh,
    }),
    untag: useMutation({ mutationFn: (tag: string) => DELETE('/api/prompts/{id}/tags/{tag}', { params: { path: { id: promptId, tag } }, projectId }), onSuccess: refresh }),
    remove: useMutation({ mutationFn: () => DELETE('/api/prompts/{id}', { ...at(promptId), projectId }), onSuccess: () => client.invalidateQueries({ queryKey: promptKeys.all(projectId) }) }),
  };
}

export function useCreatePrompt(projectId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CreatePromptBody) => POST('/api/prompts', { projectId, body }),
    onSuccess: () => client.invalidateQueries({ queryKey: promptKeys.all(projectId) }),
  });
}

/** The prompt's messages with `variables` filled in (POST /api/prompts/{id}/compile). */
function compilePrompt(projectId: string, promptId: string, version: number, variables: Record<string, unknown>) {
  return POST('/api/prompts/{id}/compile', { params: { path: { id: promptId }, query: { version: String(version) } }, projectId, body: { variables } });
}
export type CompiledPrompt = Awaited<ReturnType<typeof compilePrompt>>;

/** Compile a version of the prompt with the variables given; `onError` sees a refusal (a variable's, say). */
export function useCompilePrompt(projectId: string, promptId: string, version: number, onError: (error: Error) => void) {
  return useMutation({ mutationFn: (variables: Record<string, unknown>) => compilePrompt(projectId, promptId, version, variables), onError });
}

/** Tag badges: production stands out; shades dark enough for outline text on white (WCAG AA). */
export const tagColor = (tag: string) => (tag === 'production' ? 'teal.9' : 'indigo.7');

/** A version rendered with `variables`, read again when they change (previews); a refusal is its error. */
export function useRenderedPrompt(projectId: string, promptId: string, version: number | undefined, variables: Record<string, unknown>, enabled: boolean) {
  return useQuery({
    queryKey: ['prompt-rendered', projectId, promptId, version ?? 0, JSON.stringify(variables)],
    queryFn: () => compilePrompt(projectId, promptId, version ?? 0, variables),
    enabled: enabled && !!promptId && version !== undefined,
    retry: false,
    staleTime: 60_000,
  });
}
