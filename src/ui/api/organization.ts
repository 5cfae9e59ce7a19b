import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DELETE, GET, PATCH, POST, type Answer } from './client.ts';
import { SESSION_KEY } from './session.ts';
import { apiKeyKeys } from './api-keys.ts';
import type { Role, UpdateProjectBody } from './types.ts';
import type { components } from './openapi.gen.ts';

type Schemas = components['schemas'];
export type Organization = Schemas['Organization'];
export type Project = Schemas['Project'];
export type Member = Schemas['Member'];
export type AddedMember = Answer<'/api/members', 'post'>;
export type PendingInvitation = Answer<'/api/invitations', 'get'>['data'][number];

/** The settings pages' reads and writes of the organization, its projects and members. */

const noRetryOn4xx = (count: number, error: Error) => count < 1 && !('status' in error && (error as { status: number }).status < 500);

export const organizationKeys = {
  organization: ['organization'] as const,
  projects: ['projects'] as const,
  members: ['members'] as const,
  invitations: ['invitations'] as const,
};

export function useOrganization() {
  return useQuery({ queryKey: organizationKeys.organization, queryFn: () => GET('/api/organization'), retry: noRetryOn4xx });
}

export function useRenameOrganization() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => PATCH('/api/organization', { body: { name } }),
    onSuccess: (org) => {
      client.setQueryData(organizationKeys.organization, org);
      void client.invalidateQueries({ queryKey: SESSION_KEY });
    },
  });
}

export function useProjects() {
  return useQuery({ queryKey: organizationKeys.projects, queryFn: async () => (await GET('/api/projects')).data, retry: noRetryOn4xx });
}

/** Project changes also change the session's project list (the shell's switcher). */
export function useProjectMutations() {
  const client = useQueryClient();
  const refresh = () => Promise.all([client.invalidateQueries({ queryKey: organizationKeys.projects }), client.invalidateQueries({ queryKey: SESSION_KEY })]);
  const at = (id: string) => ({ params: { path: { id } } });
  return {
    create: useMutation({
      mutationFn: (body: { name: string; retentionDays?: number | null }) => POST('/api/projects', { body }),
      onSuccess: refresh,
    }),
    update: useMutation({
      mutationFn: ({ id, body }: { id: string; body: UpdateProjectBody }) => PATCH('/api/projects/{id}', { ...at(id), body }),
      onSuccess: refresh,
    }),
    rotateKey: useMutation({ mutationFn: (id: string) => POST('/api/projects/{id}/rotate-key', at(id)), onSuccess: () => client.invalidateQueries({ queryKey: apiKeyKeys.all }) }),
    remove: useMutation({ mutationFn: (id: string) => DELETE('/api/projects/{id}', at(id)), onSuccess: refresh }),
  };
}

/** The organization's members (GET /api/members). */
export const fetchMembers = (signal?: AbortSignal) => GET('/api/members', { signal });

export function useMembers() {
  return useQuery({ queryKey: organizationKeys.members, queryFn: async ({ signal }) => (await fetchMembers(signal)).data, retry: noRetryOn4xx });
}

export function useInvitations(enabled: boolean) {
  return useQuery({
    queryKey: organizationKeys.invitations,
    queryFn: async () => (await GET('/api/invitations')).data,
    enabled,
    retry: noRetryOn4xx,
  });
}

export function useMemberMutations() {
  const client = useQueryClient();
  const refresh = () => Promise.all([client.invalidateQueries({ queryKey: organizationKeys.members }), client.invalidateQueries({ queryKey: organizationKeys.invitations })]);
  const member = (userId: string) => ({ params: { path: { userId } } });
  const revoke = (id: string) => DELETE('/api/invitations/{id}', { params: { path: { id } } });
  return {
    add: useMutation({
      mutationFn: (body: { email: string; name?: string; role: Role }) => POST('/api/members', { body }),
      onSuccess: refresh,
    }),
    changeRole: useMutation({ mutationFn: ({ userId, role }: { userId: string; role: Role }) => PATCH('/api/members/{userId}', { ...member(userId), body: { role } }), onSuccess: refresh }),
    remove: useMutation({ mutationFn: (userId: string) => DELETE('/api/members/{userId}', member(userId)), onSuccess: refresh }),
    revokeInvitation: useMutation({ mutationFn: revoke, onSuccess: refresh }),
    /** Only a hash of an invitation link is kept: a new link is a new invitation (the old one revoked). */
    reissueInvitation: useMutation({
      mutationFn: async (invitation: PendingInvitation) => {
        await revoke(invitation.id);
        return POST('/api/members', { body: { email: invitation.email, role: invitation.role } });
      },
      onSuccess: refresh,
    }),
  };
}
