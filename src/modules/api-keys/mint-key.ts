import { badRequest, forbidden } from '../../platform/errors.ts';
import { PermissionSet, rolePermissions, type BindingRole, type Principal } from '../../platform/auth/index.ts';
import type { Binding, CreateKeyInput, Directory, PermissionMode } from './types.ts';

/**
 * Minting a key (POST /api/api-keys): what the body asks for, checked against what the
 * caller may hand out. The steps run in the order the answers have always been given (a
 * 400 on the body before a 403 on the caller where they come first today), so each step
 * mixes the two only where that order asks it:
 *
 * 1. bodyRules: the body alone (expiry, the permission mode and its list);
 * 2. serviceKeyScope / personalKeyScope: who may mint that kind of key, its owner, its bindings;
 * 3. authorizeBindings: each binding inside this organization and within what the caller holds.
 */
export async function keyToMint(
  directory: Directory,
  principal: Principal,
  input: CreateKeyInput,
  now: Date,
): Promise<{ ownerUserId: string | null; bindings: Binding[] }> {
  bodyRules(input, now);
  const minted = input.keyType === 'service' ? await serviceKeyScope(directory, principal, input) : await personalKeyScope(directory, principal, input);
  await authorizeBindings(directory, principal, input, minted.bindings);
  return minted;
}

/** Rules of the body alone. */
function bodyRules(input: CreateKeyInput, now: Date): void {
  if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) {
    throw badRequest('invalid_expires_at', 'expiresAt must be in the future', 'expiresAt');
  }
  if (input.permissionMode === 'restricted' && !input.permissions?.length) {
    throw badRequest('permissions_required', 'permissionMode restricted requires a non-empty permissions list', 'permissions');
  }
  if (input.permissionMode !== 'restricted' && input.permissions !== undefined) {
    throw badRequest('permissions_not_allowed', 'permissions is only allowed with permissionMode restricted', 'permissions');
  }
}

const isOrganizationAdmin = (principal: Principal) => principal.organizationPermissions.has('apiKeys:manage');

/** A service key: organization admins only; no owner; bound to the listed projects, the given bindings, or the organization. */
async function serviceKeyScope(directory: Directory, principal: Principal, input: CreateKeyInput): Promise<{ ownerUserId: null; bindings: Binding[] }> {
  const defaultRole: BindingRole = input.permissionMode === 'restricted' ? 'CUSTOM' : 'ADMIN';
  if (!isOrganizationAdmin(principal)) throw forbidden('only organization admins can mint service keys');
  if (input.assignedToUserId !== undefined) {
    throw badRequest('invalid_assignee', 'assignedToUserId applies to personal keys; a service key is not tied to a user', 'assignedToUserId');
  }
  if (input.projectIds) {
    const unique = [...new Set(input.projectIds)];
    for (const [i, projectId] of unique.entries()) {
      if ((await directory.projectOrganization(projectId)) !== principal.organizationId) {
        throw badRequest('unknown_project', `no project ${projectId} in this organization`, `projectIds.${i}`);
      }
      if (!principal.projectPermissions(projectId).has('apiKeys:manage')) {
        throw forbidden(`you must be ADMIN on project ${projectId} to scope a key to it`);
      }
    }
    const bindings: Binding[] = input.bindings
      ? withinProjects(normalizeBindings(input.bindings, input.permissionMode), unique, principal.organizationId)
      : unique.map((scopeId) => ({ role: defaultRole, scopeType: 'PROJECT', scopeId }));
    return { ownerUserId: null, bindings };
  }
  if (input.bindings) return { ownerUserId: null, bindings: normalizeBindings(input.bindings, input.permissionMode) };
  return { ownerUserId: null, bindings: [{ role: defaultRole, scopeType: 'ORGANIZATION', scopeId: principal.organizationId }] };
}

/** A personal key: its owner (the caller, or a member an admin names) and at least one binding. */
async function personalKeyScope(directory: Directory, principal: Principal, input: CreateKeyInput): Promise<{ ownerUserId: string; bindings: Binding[] }> {
  if (input.projectIds !== undefined) {
    throw badRequest('invalid_project_ids', 'projectIds applies to service keys; give a personal key bindings', 'projectIds');
  }
  if (!input.bindings?.length) {
    throw badRequest('bindings_required', 'a personal key needs at least one binding (what it may do and where)', 'bindings');
  }
  const ownerUserId = input.assignedToUserId ?? principal.userId;
  if (!ownerUserId) {
    throw badRequest('assignee_required', 'the calling key has no user; name the owner with assignedToUserId', 'assignedToUserId');
  }
  if (ownerUserId !== principal.userId && !isOrganizationAdmin(principal)) {
    throw forbidden('only organization admins can mint keys for another member');
  }
  if (!(await directory.membershipRole(principal.organizationId, ownerUserId))) {
    throw badRequest('unknown_user', `user ${ownerUserId} is not a member of this organization`, 'assignedToUserId');
  }
  return { ownerUserId, bindings: normalizeBindings(input.bindings, input.permissionMode) };
}

/** Each binding names this organization or one of its projects, and grants nothing the caller does not hold there. */
async function authorizeBindings(directory: Directory, principal: Principal, input: CreateKeyInput, bindings: Binding[]): Promise<void> {
  for (const [i, b] of bindings.entries()) {
    if (b.scopeType === 'ORGANIZATION' && b.scopeId !== principal.organizationId) {
      throw badRequest('unknown_scope', `bindings[${i}].scopeId must be this organization's id (${principal.organizationId})`, `bindings.${i}.scopeId`);
    }
    if (b.scopeType === 'PROJECT' && (await directory.projectOrganization(b.scopeId)) !== principal.organizationId) {
      throw badRequest('unknown_scope', `no project ${b.scopeId} in this organization`, `bindings.${i}.scopeId`);
    }
    // Nobody hands out more than they hold.
    const held = b.scopeType === 'ORGANIZATION' ? principal.organizationPermissions : principal.projectPermissions(b.scopeId);
    const granted = effectivePermissions(b.role, input.permissionMode, input.permissions ?? [], null);
    if (!held.covers(granted)) {
      throw forbidden(`bindings[${i}] grants permissions the calling key does not hold on ${b.scopeType} ${b.scopeId}`);
    }
  }
}

function normalizeBindings(input: NonNullable<CreateKeyInput['bindings']>, mode: PermissionMode): Binding[] {
  const seen = new Set<string>();
  return input.map((b, i) => {
    const role = b.role ?? (mode === 'restricted' ? 'CUSTOM' : undefined);
    if (!role) throw badRequest('role_required', `bindings[${i}].role is required`, `bindings.${i}.role`);
    if (mode === 'restricted' && role !== 'CUSTOM') {
      throw badRequest('invalid_role', `bindings[${i}].role must be CUSTOM when permissionMode is restricted`, `bindings.${i}.role`);
    }
    if (mode !== 'restricted' && role === 'CUSTOM') {
      throw badRequest('invalid_role', `bindings[${i}].role CUSTOM needs permissionMode restricted and a permissions list`, `bindings.${i}.role`);
    }
    const k = `${b.scopeType}:${b.scopeId}`;
    if (seen.has(k)) throw badRequest('duplicate_binding', `bindings[${i}] repeats scope ${k}`, `bindings.${i}`);
    seen.add(k);
    return { role, scopeType: b.scopeType, scopeId: b.scopeId };
  });
}

/**
 * A service key with both projectIds and bindings: the bindings say what it may do, the
 * projects where. An organization binding becomes a binding to each listed project; a
 * project with both keeps the larger role (roles nest: VIEWER < MEMBER < ADMIN). A listed
 * project no binding reaches gets no rights.
 */
function withinProjects(bindings: Binding[], projectIds: string[], organizationId: string): Binding[] {
  const listed = new Set(projectIds);
  let organizationRole: BindingRole | null = null;
  const byProject = new Map<string, BindingRole>();
  for (const [i, b] of bindings.entries()) {
    if (b.scopeType === 'ORGANIZATION') {
      if (b.scopeId !== organizationId) {
        throw badRequest('unknown_scope', `bindings[${i}].scopeId must be this organization's id (${organizationId})`, `bindings.${i}.scopeId`);
      }
      organizationRole = b.role;
    } else if (!listed.has(b.scopeId)) {
      throw badRequest(
        'binding_outside_projects',
        `bindings[${i}] is bound to project ${b.scopeId}, which is not in projectIds; the key is restricted to the listed projects`,
        `bindings.${i}.scopeId`,
      );
    } else {
      byProject.set(b.scopeId, b.role);
    }
  }
  return projectIds.flatMap((scopeId): Binding[] => {
    const roles = [byProject.get(scopeId), organizationRole].filter((r): r is BindingRole => r !== undefined && r !== null);
    if (roles.length === 0) return [];
    const role = roles.reduce((a, b) => (ROLE_ORDER.indexOf(b) > ROLE_ORDER.indexOf(a) ? b : a));
    return [{ role, scopeType: 'PROJECT', scopeId }];
  });
}

// CUSTOM appears alone (restricted mode makes every binding CUSTOM), so it needs no rank.
const ROLE_ORDER: readonly BindingRole[] = ['CUSTOM', 'VIEWER', 'MEMBER', 'ADMIN'];

/** What a binding grants: its role's permissions, narrowed by the key's mode and list, and by `cap` (the owner's role). */
export function effectivePermissions(role: BindingRole, mode: string, permissions: string[], cap: PermissionSet | null): PermissionSet {
  let perms = role === 'CUSTOM' ? new PermissionSet(permissions) : rolePermissions(role);
  if (mode === 'readonly') perms = perms.viewOnly();
  if (mode === 'restricted') perms = perms.intersect(new PermissionSet(permissions));
  return cap ? perms.intersect(cap) : perms;
}
