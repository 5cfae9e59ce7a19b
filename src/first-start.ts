import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.ts';
import type { Ports } from './app.ts';
import { randomAlphanumeric } from './platform/ids.ts';

export interface InitialCredentials {
  organization: { id: string; name: string };
  project: { id: string; name: string };
  user: { id: string; email: string; password: string };
  projectApiKey: string;
  adminApiKey: string;
  createdAt: string;
}

/**
 * On an empty database: creates the organization, project, admin user, project key and
 * organization admin key (SPYGLASS_INIT_* values replace generated ones). Null when the
 * database was set up before.
 */
export async function firstStart(config: Config, services: Ports, now: Date): Promise<InitialCredentials | null> {
  // Every later start ends here, before the (deliberately slow) password hash.
  if (await services.organizations.isSetUp()) return null;
  const password = config.init.userPassword ?? randomAlphanumeric(20);
  const email = config.init.userEmail ?? 'admin@localhost';
  const result = await services.organizations.bootstrap(
    {
      organizationName: config.init.orgName ?? 'My Organization',
      projectName: config.init.projectName ?? 'My Project',
      email,
      passwordHash: await services.accounts.passwords.hash(password),
    },
    async (tx, created) => {
      const project = await services.apiKeys.mintProjectKey(
        tx,
        { id: created.projectId, organizationId: created.organizationId },
        config.init.projectApiKey ?? undefined,
      );
      const admin = await services.apiKeys.mintInitialAdminKey(tx, created.organizationId, created.userId, config.init.adminApiKey ?? undefined);
      return { project: project.token, admin: admin.token };
    },
  );
  if (!result) return null;
  return {
    organization: result.organization,
    project: { id: result.project.id, name: result.project.name },
    user: { id: result.userId, email, password },
    projectApiKey: result.keys.project,
    adminApiKey: result.keys.admin,
    createdAt: now.toISOString(),
  };
}

/** `<dataDir>/initial-credentials.json`, readable by the owner only. */
export function writeCredentialsFile(dataDir: string, creds: InitialCredentials): string {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, 'initial-credentials.json');
  fs.writeFileSync(file, JSON.stringify(creds, null, 2) + '\n', { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return file;
}

export function credentialsBox(creds: InitialCredentials, baseUrl: string, file: string): string {
  const lines = [
    'Spyglass is set up. These credentials are shown once:',
    '',
    `  Organization      ${creds.organization.name} (${creds.organization.id})`,
    `  Project           ${creds.project.name} (${creds.project.id})`,
    `  Admin user        ${creds.user.email}`,
    `  Admin password    ${creds.user.password}`,
    `  Project API key   ${creds.projectApiKey}`,
    `  Admin API key     ${creds.adminApiKey}`,
    '',
    `  Saved to ${file} (mode 0600).`,
  ];
  const width = Math.max(...lines.map((l) => l.length)) + 2;
  const bar = '─'.repeat(width);
  return [
    `┌${bar}┐`,
    ...lines.map((l) => `│ ${l.padEnd(width - 1)}│`),
    `└${bar}┘`,
    `Try: curl -H "Authorization: Bearer ${creds.adminApiKey}" ${baseUrl}/api/projects`,
  ].join('\n');
}
