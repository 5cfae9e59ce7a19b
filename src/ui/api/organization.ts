import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client.ts';
import { SESSION_KEY } from './session.ts';
import type { AddedMember, CreatedKey, CreatedProject, Member, Organization, PendingInvitation, Project, Role, UpdateProjectBody } from './types.ts';

/** The settings pages' reads and writes of the organization, its projects and members. */

const noRetryOn4xx = (count: number, error: Error) => count < 1 && !('status' in error && (error as { status: number }).status < 500);

export function useOrganization() {
  return useQuery({ queryKey: ['organization'], queryFn: () => api<Organization>('GET', '/api/organization'), retry: noRetryOn4xx });
}

export function useRenameOrganization() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api<Organization>('PATCH', '/api/organization', { body: { name } }),
    onSuccess: (org) => {
      client.setQueryData(['organization'], org);
      void client.invalidateQueries({ queryKey: SESSION_KEY });
    },
  });
}

export function useProjects() {
  return useQuery({ queryKey: ['projects'], queryFn: async () => (await api<{ data: Project[] }>('GET', '/api/projects')).data, retry: noRetryOn4xx });
}

/** Project changes also change the session's project list (the shell's switcher). */
export function useProjectMutations() {
  const client = useQueryClient();
  const refresh = () => Promise.all([client.invalidateQueries({ queryKey: ['projects'] }), client.invalidateQueries({ queryKey: SESSION_KEY })]);
  const path = (id: string) => `/api/projects/${encodeURIComponent(id)}`;
  return {
    create: useMutation({
      mutationFn: (body: { name: string; retentionDays?: number | null }) => api<CreatedProject>('POST', '/api/projects', { body }),
      onSuccess: refresh,
    }),
    update: useMutation({
      mutationFn: ({ id, body }: { id: string; body: UpdateProjectBody }) => api<Project>('PATCH', path(id), { body }),
      onSuccess: refresh,
    }),
    rotateKey: useMutation({ mutationFn: (id: string) => api<CreatedKey>('POST', `${path(id)}/rotate-key`), onSuccess: () => client.invalidateQueries({ queryKey: ['api-keys'] }) }),
    remove: useMutation({ mutationFn: (id: string) => api('DELETE', path(id)), onSuccess: refresh }),
  };
}

export function useMembers() {
  return useQuery({ queryKey: ['members'], queryFn: async () => (await api<{ data: Member[] }>('GET', '/api/members')).data, retry: noRetryOn4xx });
}

export function useInvitations(enabled: boolean) {
  return useQuery({
    queryKey: ['invitations'],
    queryFn: async () => (await api<{ data: PendingInvitation[] }>('GET', '/api/invitations')).data,
    enabled,
    retry: noRetryOn4xx,
  });
}

export function useMemberMutations() {
  const client = useQueryClient();
  const refresh = () => Promise.all([client.invalidateQueries({ queryKey: ['members'] }), client.invalidateQueries({ queryKey: ['invitations'] })]);
  const path = (userId: string) => `/api/members/${encodeURIComponent(userId)}`;
  return {
    add: useMutation({
      mutationFn: (body: { email: string; name?: string; role: Role }) => api<AddedMember>('POST', '/api/members', { body }),
      onSuccess: refresh,
    }),
    changeRole: useMutation({ mutationFn: ({ userId, role }: { userId: string; role: Role }) => api<Member>('PATCH', path(userId), { body: { role } }), onSuccess: refresh }),
    remove: useMutation({ mutationFn: (userId: string) => api('DELETE', path(userId)), onSuccess: refresh }),
    revokeInvitation: useMutation({ mutationFn: (id: string) => api('DELETE', `/api/invitations/${encodeURIComponent(id)}`), onSuccess: refresh }),
    /** Only a hash of an invitation link is kept: a new link is a new invitation (the old one revoked). */
    reissueInvitation: useMutation({
      mutationFn: async (invitation: PendingInvitation) => {
        await api('DELETE', `/api/invitations/${encodeURIComponent(invitation.id)}`);
        return api<AddedMember>('POST', '/api/members', { body: { email: invitation.email, role: invitation.role } });
      },
      onSuccess: refresh,
    }),
  };
}
