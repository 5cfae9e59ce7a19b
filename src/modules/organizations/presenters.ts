import type { z } from 'zod';
import type { memberSchema, pendingInvitationSchema, projectSchema, sessionSchema } from './schemas.ts';
import type { ProjectRow } from './store.ts';

/** The answers' types come from their schemas: a field a schema gains and a presenter forgets fails to compile. */
export type ProjectView = z.output<typeof projectSchema>;
export type MemberView = z.output<typeof memberSchema>;
export type SessionView = z.output<typeof sessionSchema>;
export type PendingInvitationView = z.output<typeof pendingInvitationSchema>;

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

export function presentMember(m: { userId: string; email: string; name: string | null; role: MemberView['role']; createdAt: Date }): MemberView {
  return { userId: m.userId, email: m.email, name: m.name, role: m.role, createdAt: m.createdAt.toISOString() };
}
