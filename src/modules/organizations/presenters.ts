import type { z } from 'zod';
import type {
  addedMemberSchema,
  invitationInfoSchema,
  invitationLinkSchema,
  memberSchema,
  organizationSchema,
  pendingInvitationSchema,
  projectSchema,
  resetInfoSchema,
  resetLinkSchema,
  sessionListSchema,
  sessionSchema,
} from './schemas.ts';
import type { ProjectRow } from './store.ts';

/** The answers' types come from their schemas: a field a schema gains and a presenter forgets fails to compile. */
export type ProjectView = z.output<typeof projectSchema>;
export type OrganizationView = z.output<typeof organizationSchema>;
export type MemberView = z.output<typeof memberSchema>;
export type AddedMemberView = z.output<typeof addedMemberSchema>;
export type InvitationLinkView = z.output<typeof invitationLinkSchema>;
export type SessionView = z.output<typeof sessionSchema>;
export type SessionListItemView = z.output<typeof sessionListSchema>['data'][number];
export type PendingInvitationView = z.output<typeof pendingInvitationSchema>;
export type InvitationInfoView = z.output<typeof invitationInfoSchema>;
export type ResetInfoView = z.output<typeof resetInfoSchema>;
export type ResetLinkView = z.output<typeof resetLinkSchema>;

export function presentProject(p: ProjectRow): ProjectView {
  return {
    id: p.id,
    name: p.name,
    organizationId: p.organizationId,
    retentionDays: p.retentionDays,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

export function presentOrganization(o: { id: string; name: string; createdAt: Date; updatedAt: Date }): OrganizationView {
  return { id: o.id, name: o.name, createdAt: o.createdAt.toISOString(), updatedAt: o.updatedAt.toISOString() };
}

export function presentMember(m: { userId: string; email: string; name: string | null; role: MemberView['role']; createdAt: Date }): MemberView {
  return { userId: m.userId, email: m.email, name: m.name, role: m.role, createdAt: m.createdAt.toISOString() };
}

/** A sign-in session as its owner sees it; `end` is when it stops working (idle or absolute limit). */
export function presentSession(s: { user: SessionView['user']; active: SessionView['organization'] & { role: SessionView['role'] }; permissions: string[]; organizations: SessionView['organizations']; projects: SessionView['projects']; csrfToken: string; end: Date }): SessionView {
  return {
    user: { id: s.user.id, email: s.user.email, name: s.user.name },
    organization: { id: s.active.id, name: s.active.name },
    role: s.active.role,
    permissions: s.permissions,
    organizations: s.organizations,
    projects: s.projects,
    csrfToken: s.csrfToken,
    expiresAt: s.end.toISOString(),
  };
}

export function presentSessionListItem(s: { id: string; createdAt: Date; lastSeenAt: Date; userAgent: string | null; ipAddress: string | null }, end: Date, current: boolean): SessionListItemView {
  return {
    id: s.id,
    createdAt: s.createdAt.toISOString(),
    lastSeenAt: s.lastSeenAt.toISOString(),
    expiresAt: end.toISOString(),
    userAgent: s.userAgent,
    ipAddress: s.ipAddress,
    current,
  };
}

export function presentPendingInvitation(r: { id: string; email: string; role: PendingInvitationView['role']; createdAt: Date; expiresAt: Date; invitedByUserId: string | null }): PendingInvitationView {
  return { id: r.id, email: r.email, role: r.role, createdAt: r.createdAt.toISOString(), expiresAt: r.expiresAt.toISOString(), invitedByUserId: r.invitedByUserId };
}

export function presentInvitationInfo(i: { email: string; organizationName: string; role: InvitationInfoView['role']; expiresAt: Date }): InvitationInfoView {
  return { email: i.email, organizationName: i.organizationName, role: i.role, expiresAt: i.expiresAt.toISOString() };
}

export function presentInvitationLink(id: string, url: string, expiresAt: Date): InvitationLinkView {
  return { id, url, expiresAt: expiresAt.toISOString() };
}

export function presentResetInfo(r: { email: string; expiresAt: Date }): ResetInfoView {
  return { email: r.email, expiresAt: r.expiresAt.toISOString() };
}

export function presentResetLink(url: string, expiresAt: Date): ResetLinkView {
  return { url, expiresAt: expiresAt.toISOString() };
}
