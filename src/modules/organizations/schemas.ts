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
