export { OrganizationService, projectView, type ProjectKeyIssuer, type IssuedKey, type ProjectView } from './service.ts';
export { organizationRoutes } from './routes.ts';
export * as organizationStore from './store.ts';
export { userEmail } from './store.ts';
export { hashPassword, verifyPassword } from './passwords.ts';
export { AccountService, type AccountOptions } from './account-service.ts';
