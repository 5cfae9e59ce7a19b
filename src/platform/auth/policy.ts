import type { Permission } from './permissions.schema.ts';
import type { PermissionSet } from './permissions.ts';

/**
 * Who may do what to records that belong to a user (API keys today). The route table
 * checks the action's permission before the handler runs; the policy then adds ownership:
 * each action names the permission that allows it on anyone's record and the one that
 * allows it on the caller's own. The caller's permission set already carries its
 * permission mode (a readonly key holds view actions only), so the mode applies here too.
 */
export interface OwnedRecordPolicy<A extends string> {
  actions: Record<A, { any: Permission; own: Permission | null }>;
  /** The action that makes a record visible at all: records the caller may not see answer 404, not 403. */
  see: A;
}

export type Access = 'allowed' | 'forbidden' | 'hidden';

export interface Caller {
  userId: string | null;
  permissions: PermissionSet;
}

export function definePolicy<A extends string>(policy: {
  actions: Record<A, { any: Permission; own: Permission | null }>;
  see: NoInfer<A>;
}): OwnedRecordPolicy<A> {
  return policy;
}

/** Whether the caller may do `action` to every record, whoever owns it. */
export function allowsOnAny<A extends string>(policy: OwnedRecordPolicy<A>, caller: Caller, action: A): boolean {
  return caller.permissions.has(policy.actions[action].any);
}

export function accessTo<A extends string>(policy: OwnedRecordPolicy<A>, caller: Caller, ownerUserId: string | null, action: A): Access {
  const owns = caller.userId !== null && ownerUserId === caller.userId;
  const may = (a: A) => {
    const rule = policy.actions[a];
    return caller.permissions.has(rule.any) || (owns && rule.own !== null && caller.permissions.has(rule.own));
  };
  if (!may(policy.see)) return 'hidden';
  return may(action) ? 'allowed' : 'forbidden';
}
