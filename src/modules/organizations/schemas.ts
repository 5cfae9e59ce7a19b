import { z } from 'zod';

export const roleSchema = z.enum(['ADMIN', 'MEMBER', 'VIEWER']);

export const projectSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    organizationId: z.string(),
    retentionDays: z.number().int().nullable().describe('Traces older than this many days are deleted; null keeps them.'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Project' });

export const projectName = z.string().trim().min(1).max(100);
export const retentionDays = z.number().int().min(1).max(3650).nullable();

export const createProjectBody = z.strictObject({
  name: projectName,
  retentionDays: retentionDays.optional(),
});

export const updateProjectBody = z
  .strictObject({ name: projectName.optional(), retentionDays: retentionDays.optional() })
  .refine((b) => b.name !== undefined || b.retentionDays !== undefined, { message: 'send name or retentionDays' });

export const issuedKeySchema = z.object({
  token: z.string().describe('The plaintext token; shown once only.'),
  apiKey: z.looseObject({ id: z.string(), name: z.string(), createdAt: z.string() }),
});

export const createdProjectSchema = z.object({ project: projectSchema }).extend(issuedKeySchema.shape);

export const memberSchema = z
  .object({ userId: z.string(), email: z.string(), name: z.string().nullable(), role: roleSchema, createdAt: z.string() })
  .meta({ id: 'Member' });

export const addMemberBody = z.strictObject({
  email: z.email().max(320),
  name: z.string().trim().min(1).max(200).optional(),
  role: roleSchema,
});

export const organizationSchema = z
  .object({ id: z.string(), name: z.string(), createdAt: z.string(), updatedAt: z.string() })
  .meta({ id: 'Organization' });

export const idParams = z.object({ id: z.string().min(1).max(100) });
export const userIdParams = z.object({ userId: z.string().min(1).max(100) });

// ---- signing in (the web app's session cookie), invitations, password resets

/** A new password: at least 8 characters. */
export const newPassword = z.string().min(8, 'must be at least 8 characters').max(1024, 'must be at most 1024 characters');

export const signInBody = z.strictObject({
  email: z.string().trim().min(1).max(320),
  password: z.string().min(1).max(1024),
});

export const sessionSchema = z
  .object({
    user: z.object({ id: z.string(), email: z.string(), name: z.string().nullable() }),
    organization: z.object({ id: z.string(), name: z.string() }).describe('The active organization: the session acts with the role held there.'),
    role: roleSchema,
    permissions: z.array(z.string()).describe('Every resource:action the role grants, manage expanded.'),
    organizations: z.array(z.object({ id: z.string(), name: z.string(), role: roleSchema })).describe('Every organization the user belongs to.'),
    projects: z.array(z.object({ id: z.string(), name: z.string() })).describe('The projects of the active organization.'),
    csrfToken: z.string().describe('Send it as X-CSRF-Token on every request but GET, HEAD and OPTIONS.'),
    expiresAt: z.string().describe('When the session ends unless used before (the idle limit), at most its absolute limit.'),
  })
  .meta({ id: 'Session' });

export const switchOrganizationBody = z.strictObject({ organizationId: z.string().min(1).max(100) });

export const sessionListSchema = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      createdAt: z.string(),
      lastSeenAt: z.string(),
      expiresAt: z.string(),
      userAgent: z.string().nullable(),
      ipAddress: z.string().nullable(),
      current: z.boolean().describe('The session making this request.'),
    }),
  ),
});

export const changePasswordBody = z.strictObject({
  currentPassword: z.string().min(1).max(1024),
  newPassword,
});

export const tokenParams = z.object({ token: z.string().min(1).max(200) });

export const invitationInfoSchema = z.object({ email: z.string(), organizationName: z.string(), role: roleSchema, expiresAt: z.string() });

export const acceptInvitationBody = z.strictObject({
  password: newPassword,
  name: z.string().trim().min(1).max(200).optional(),
});

export const resetInfoSchema = z.object({ email: z.string(), expiresAt: z.string() });

export const resetPasswordBody = z.strictObject({ password: newPassword });

export const invitationLinkSchema = z
  .object({ id: z.string(), url: z.string().describe('One-time link to set a password; shown once.'), expiresAt: z.string() })
  .meta({ id: 'InvitationLink' });

export const addedMemberSchema = memberSchema.extend({
  invitation: invitationLinkSchema
    .nullable()
    .describe('null when the user already has a password or belongs to another organization: they sign in with the account they have.'),
});

export const pendingInvitationSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: roleSchema,
  url: z.string().optional().describe('Never present: only a hash of the link is kept; revoke and invite again for a new one.'),
  createdAt: z.string(),
  expiresAt: z.string(),
  invitedByUserId: z.string().nullable(),
});

export const resetLinkSchema = z.object({ url: z.string().describe('One-time link to set a new password; shown once.'), expiresAt: z.string() });
