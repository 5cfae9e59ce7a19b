import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { buildApp, type App, type Deps } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { firstStart, type InitialCredentials } from '../../src/first-start.ts';
import { TokenHasher } from '../../src/platform/tokens.ts';
import { appDatabaseKinds, ManualClock, openTestDatabase, request } from '../support/harness.ts';

/**
 * An app of its own whose privacy detection a test replaces or breaks (a test-only hook of
 * buildApp's dependencies), listening on a port, with `env` added to its configuration.
 */
export async function privacyApp(kind: (typeof appDatabaseKinds)[number], privacy: NonNullable<Deps['privacy']>, env: Record<string, string> = {}) {
  const { db, drop } = await openTestDatabase(kind);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spyglass-privacy-'));
  const config = loadConfig({ SPYGLASS_DATA_DIR: dataDir, ...env });
  const app: App = await buildApp({ config, db, clock: new ManualClock(new Date('2026-11-22T10:00:00Z')), logger: pino({ level: 'silent' }), tokenHasher: new TokenHasher(randomBytes(32)), privacy });
  const creds: InitialCredentials = (await firstStart(config, app.services, new Date()))!;
  await app.http.listen({ port: 0, host: '127.0.0.1' });
  const address = app.http.server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    creds,
    baseUrl,
    call: (method: string, url: string, body?: unknown, token = creds.projectApiKey) => request(baseUrl, method, url, { token, body, projectId: creds.project.id }),
    otlp: (doc: unknown) => request(baseUrl, 'POST', '/api/otel/v1/traces', { token: creds.projectApiKey, headers: { 'content-type': 'application/json' }, rawBody: JSON.stringify(doc) }),
    close: async () => {
      await app.http.close();
      await drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
