import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client.ts';
import { can, useSession } from './session.ts';
import type { CreatePromptBody, Member, Prompt, PromptTag, UpdatePromptBody } from './types.ts';

/** A prompt's path segment: id or handle, a handle's slash encoded (`support%2Freply`). */
export const promptPath = (idOrHandle: string) => `/api/prompts/${encodeURIComponent(idOrHandle)}`;

export function usePrompts(projectId: string) {
  return useQuery({ queryKey: ['prompts', projectId], queryFn: ({ signal }) => api<Prompt[]>('GET', '/api/prompts', { projectId, signal }) });
}

export function usePromptVersions(projectId: string, promptId: string) {
  return useQuery({
    queryKey: ['prompt-versions', projectId, promptId],
    queryFn: ({ signal }) => api<Prompt[]>('GET', `${promptPath(promptId)}/versions`, { projectId, signal }),
  });
}

/** Names of the organization's members by user id (authors); empty for a role that cannot list members. */
export function useMemberNames() {
  const { data: session } = useSession();
  const allowed = can(session, 'organization:view');
  const members = useQuery({
    queryKey: ['members', session?.organization.id],
    queryFn: ({ signal }) => api<{ data: Member[] }>('GET', '/api/members', { signal }),
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
    await Promise.all([
      client.invalidateQueries({ queryKey: ['prompt-versions', projectId, promptId] }),
      client.invalidateQueries({ queryKey: ['prompts', projectId] }),
    ]);
  };
  return {
    save: useMutation({ mutationFn: (body: UpdatePromptBody) => api<Prompt>('PUT', promptPath(promptId), { projectId, body }), onSuccess: refresh }),
    restore: useMutation({
      mutationFn: (versionId: string) => api<Prompt>('POST', `${promptPath(promptId)}/versions/${encodeURIComponent(versionId)}/restore`, { projectId, body: {} }),
      onSuccess: refresh,
    }),
    tag: useMutation({
      mutationFn: ({ tag, versionId }: { tag: string; versionId: string }) =>
        api<PromptTag>('PUT', `${promptPath(promptId)}/tags/${encodeURIComponent(tag)}`, { projectId, body: { versionId } }),
      onSuccess: refresh,
    }),
    untag: useMutation({ mutationFn: (tag: string) => api('DELETE', `${promptPath(promptId)}/tags/${encodeURIComponent(tag)}`, { projectId }), onSuccess: refresh }),
    remove: useMutation({ mutationFn: () => api('DELETE', promptPath(promptId), { projectId }), onSuccess: () => client.invalidateQueries({ queryKey: ['prompts', projectId] }) }),
  };
}

export function useCreatePrompt(projectId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CreatePromptBody) => api<Prompt>('POST', '/api/prompts', { projectId, body }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['prompts', projectId] }),
  });
}

export type CompiledPrompt = Prompt & { variables: Record<string, unknown> };

export function compilePrompt(projectId: string, promptId: string, version: number, variables: Record<string, unknown>) {
  return api<CompiledPrompt>('POST', `${promptPath(promptId)}/compile?version=${version}`, { projectId, body: { variables } });
}

/** Tag badges: production stands out; shades dark enough for outline text on white (WCAG AA). */
export const tagColor = (tag: string) => (tag === 'production' ? 'teal.9' : 'indigo.7');
