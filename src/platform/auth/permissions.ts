import { ACTIONS, RESOURCES, type Permission, type Resource } from './permissions.schema.ts';

// Roles map to sets of permissions (their vocabulary is permissions.schema.ts). A key's
// effective set is its bindings', capped by its owner's role (personal keys) and narrowed by
// its permission mode.

export const ALL_PERMISSIONS: Permission[] = RESOURCES.flatMap((r) => ACTIONS.map((a): Permission => `${r}:${a}`));

export type Role = 'ADMIN' | 'MEMBER' | 'VIEWER';
export type BindingRole = Role | 'CUSTOM';

const manageAll = (resources: readonly Resource[]) => resources.map((r) => `${r}:manage` as Permission);
const viewAll = (resources: readonly Resource[]) => resources.map((r) => `${r}:view` as Permission);

const PROJECT_DATA: Resource[] = ['traces', 'annotations', 'prompts', 'evaluations', 'evaluators', 'monitors', 'alerts', 'dashboards', 'simulations', 'agentCache', 'datasets', 'experiments', 'scoreConfigs', 'reviewQueues'];

export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  ADMIN: manageAll(RESOURCES),
  MEMBER: [
    'organization:view',
    'project:view',
    ...manageAll(PROJECT_DATA),
    'webhookEndpoints:view',
    // Which models the project can use (names and last four characters of keys), not the keys.
    'modelProviders:view',
    // Their own keys only: the api-keys policy adds ownership to these.
    'apiKeys:view',
    'apiKeys:create',
    'apiKeys:delete',
  ],
  VIEWER: viewAll(['organization', 'project', ...PROJECT_DATA]),
};

/** What a legacy project key (sgp-) may do inside its own project. */
export const PROJECT_KEY_PERMISSIONS: readonly Permission[] = [
  'project:view',
  ...manageAll(PROJECT_DATA),
  'webhookEndpoints:manage',
  'modelProviders:view',
];

export class PermissionSet {
  private readonly set: ReadonlySet<string>;
  constructor(perms: Iterable<string> = []) {
    this.set = new Set(perms);
  }
  has(permission: Permission): boolean {
    if (this.set.has(permission)) return true;
    const [resource] = permission.split(':');
    return this.set.has(`${resource}:manage`);
  }
  /** Every permission this set grants, with manage expanded. */
  expanded(): Permission[] {
    return ALL_PERMISSIONS.filter((p) => this.has(p));
  }
  union(other: PermissionSet): PermissionSet {
    return new PermissionSet([...this.set, ...other.set]);
  }
  intersect(other: PermissionSet): PermissionSet {
    return new PermissionSet(this.expanded().filter((p) => other.has(p)));
  }
  /** readonly mode: view actions only (manage still implies view). */
  viewOnly(): PermissionSet {
    return new PermissionSet(this.expanded().filter((p) => p.endsWith(':view')));
  }
  covers(other: PermissionSet): boolean {
    return other.expanded().every((p) => this.has(p));
  }
  get isEmpty(): boolean {
    return this.set.size === 0;
  }
  static none = new PermissionSet();
}

export function rolePermissions(role: Role): PermissionSet {
  return new PermissionSet(ROLE_PERMISSIONS[role]);
}

export function isViewAction(permission: Permission): boolean {
  return permission.endsWith(':view');
}
