import type { Executor } from '../../db/index.ts';
import type { BindingRole, Permission, Role } from '../../platform/auth/index.ts';

/** The api-keys module's own vocabulary, shared by its use cases and presenters. */
export type PermissionMode = 'all' | 'readonly' | 'restricted';

export interface Binding {
  role: BindingRole;
  scopeType: 'ORGANIZATION' | 'PROJECT';
  scopeId: string;
}

export interface CreateKeyInput {
  name: string;
  description?: string;
  keyType: 'personal' | 'service';
  assignedToUserId?: string;
  permissionMode: PermissionMode;
  permissions?: Permission[];
  bindings?: { role?: BindingRole; scopeType: 'ORGANIZATION' | 'PROJECT'; scopeId: string }[];
  projectIds?: string[];
  expiresAt?: Date;
}

/** What the api-keys module needs of the organizations module, handed in by app.ts. */
export interface Directory {
  membershipRole(organizationId: string, userId: string, db?: Executor): Promise<Role | null>;
  projectOrganization(projectId: string): Promise<string | null>;
  firstAdmin(): Promise<{ organizationId: string; userId: string } | null>;
}
