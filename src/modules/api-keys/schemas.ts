import { z } from 'zod';
import { isPermission } from '../../platform/auth/permissions.schema.ts';

const permission = z
  .string()
  .refine(isPermission, { message: 'must be resource:action, e.g. traces:view (see GET /api/openapi.json)' });

export const bindingSchema = z.strictObject({
  role: z.enum(['ADMIN', 'MEMBER', 'VIEWER', 'CUSTOM']).optional().describe('CUSTOM only with permissionMode restricted (and then the default)'),
  scopeType: z.enum(['ORGANIZATION', 'PROJECT']),
  scopeId: z.string().min(1).max(100),
});

export const createKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  description: z.string().max(500).optional(),
  keyType: z.enum(['personal', 'service']).default('personal'),
  assignedToUserId: z.string().min(1).max(100).optional().describe('Organization admins only; defaults to the caller'),
  permissionMode: z.enum(['all', 'readonly', 'restricted']).default('all'),
  permissions: z.array(permission).min(1).max(60).optional().describe('restricted mode only'),
  bindings: z.array(bindingSchema).max(20).optional().describe('required for personal keys'),
  projectIds: z.array(z.string().min(1).max(100)).min(1).max(50).optional().describe('service keys only'),
  expiresAt: z.iso.datetime({ offset: true }).optional().describe('ISO 8601; the key stops working then'),
});

export const apiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    keyType: z.enum(['project', 'personal', 'service']),
    organizationId: z.string(),
    projectId: z.string().nullable(),
    ownerUserId: z.string().nullable(),
    permissionMode: z.enum(['all', 'readonly', 'restricted']),
    permissions: z.array(z.string()),
    bindings: z.array(z.object({ role: z.string(), scopeType: z.string(), scopeId: z.string() })),
    expiresAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
    lastUsedAt: z.string().nullable().describe('When the key last authenticated a request, to the minute; null if never'),
    status: z.enum(['active', 'revoked', 'expired']),
    createdAt: z.string(),
  })
  .meta({ id: 'ApiKey' });

export const createdKeySchema = z.object({
  token: z.string().describe('The plaintext token; shown once only'),
  apiKey: apiKeySchema,
});
