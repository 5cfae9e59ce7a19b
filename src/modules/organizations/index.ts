export { buildOrganizations, organizationDirectory, organizationsModule, type Accounts, type MemberDirectory, type Organizations } from './module.ts';
export type { ProjectKeyIssuer, IssuedKey } from './context.ts';
export { presentProject, type ProjectView } from './presenters.ts';
export { userEmail } from './store.ts';
export { PasswordHasher } from './passwords.ts';
export { liveSessionsAndLinks } from './account-store.ts';
export type { AccountOptions } from './account-rules.ts';
