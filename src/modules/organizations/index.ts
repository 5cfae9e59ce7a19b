export { OrganizationService, type ProjectKeyIssuer, type IssuedKey } from './service.ts';
export { presentProject, type ProjectView } from './presenters.ts';
export { organizationRoutes } from './routes.ts';
export * as organizationStore from './store.ts';
export { userEmail } from './store.ts';
export { PasswordHasher } from './passwords.ts';
export { AccountService, type AccountOptions } from './account-service.ts';
