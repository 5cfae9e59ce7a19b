import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pino, { type Logger } from 'pino';
import { afterAll, beforeAll, inject } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { openDatabase, type Database } from '../../src/db/index.ts';
import { firstStart, type InitialCredentials } from '../../src/first-start.ts';
import { ManualClock, systemClock, type Clock } from '../../src/platform/clock.ts';
import { TokenHasher } from '../../src/platform/tokens.ts';
import { adminQuery, withDatabase } from './global-setup.ts';
import { CHEAP_PASSWORD_HASH_COST } from './server-process.ts';

export type DatabaseKind = 'pglite' | 'postgres';

/** PGlite always; PostgreSQL too when TEST_DATABASE_URL is set. */
export const databaseKinds: DatabaseKind[] = inject('pgTemplate') ? ['pglite', 'postgres'] : ['pglite'];

/**
 * A PostgreSQL database of its own, copied from the migrated template: for a test app, or for
 * a server a test runs in its own process (DATABASE_URL). `drop` removes it.
 */
export async function copyTemplateDatabase(): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const template = inject('pgTemplate')!;
  const name = `spyglass_t_${randomBytes(6).toString('hex')}`;
  // Two files copying the template at once can collide ("source database is being accessed"): retry.
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(template.url, `CREATE DATABASE ${name} TEMPLATE ${template.name}`);
      break;
    } catch (err) {
      if (attempt >= 20) throw err;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
  return { name, url: withDatabase(template.url, name), drop: () => adminQuery(template.url, `DROP DATABASE IF EXISTS ${name}`) };
}

export async function openTestDatabase(
  kind: DatabaseKind,
  options: { pgliteDataDir?: string } = {},
): Promise<{ db: Database; drop: () => Promise<void>; url: string | null }> {
  if (kind === 'pglite') {
    const blob = new Blob([fs.readFileSync(inject('pgliteTemplate'))]);
    const db = await openDatabase({ databaseUrl: null, dataDir: options.pgliteDataDir ?? null, loadDataDir: blob });
    return { db, drop: () => db.close(), url: null };
  }
  const copy = await copyTemplateDatabase();
  const url = copy.url;
  const db = await openDatabase({ databaseUrl: url, dataDir: null, poolSize: 5 });
  return {
    db,
    url,
    drop: async () => {
      await db.close();
      await copy.drop();
    },
  };
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export interface RequestOptions {
  /** Bearer token. */
  token?: string;
  /** Basic projectId:token. */
  basic?: [string, string];
  /** X-Auth-Token. */
  authToken?: string;
  projectId?: string;
  body?: unknown;
  rawBody?: string | Buffer | Uint8Array;
  headers?: Record<string, string>;
}

export interface TestApp {
  kind: DatabaseKind;
  baseUrl: string;
  app: App;
  db: Database;
  clock: Clock;
  config: Config;
  creds: InitialCredentials;
  dataDir: string;
  tokenHasher: TokenHasher;
  request<T = any>(method: string, url: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /** Closes this app only; the database stays open for `startApp(kind, {reopen})`. */
  stop(): Promise<void>;
  /** Closes this app; the last app on a database also drops the database and the data dir. */
  close(): Promise<void>;
}

/** What apps reopened on one database share. */
interface SharedResources {
  db: Database;
  drop: () => Promise<void>;
  dataDir: string;
  tokenHasher: TokenHasher;
  creds: InitialCredentials;
  apps: number;
}
const sharedResources = new WeakMap<TestApp, SharedResources>();

/** A real app on a real database, listening on a loopback port. */
export async function startApp(
  kind: DatabaseKind,
  options: {
    clock?: Clock;
    env?: Record<string, string>;
    /** PGlite only: keep the database in files under `dataDir` (as a server does) instead of in memory. */
    persistent?: boolean;
    /**
     * Another app on the open database (and data dir, token-hash key, credentials) of an
     * earlier app: a restart after `stop()`, or a second server process on one PostgreSQL.
     */
    reopen?: TestApp;
    /** The app's logger (default: silent). */
    logger?: Logger;
  } = {},
): Promise<TestApp> {
  const previous = options.reopen ? sharedResources.get(options.reopen) : undefined;
  if (options.reopen && !previous) throw new Error('startApp: reopen takes an app made by startApp');
  let shared: SharedResources;
  if (previous) shared = previous;
  else {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spyglass-test-'));
    const { db, drop } = await openTestDatabase(kind, { pgliteDataDir: options.persistent && kind === 'pglite' ? dataDir : undefined });
    shared = { db, drop, dataDir, tokenHasher: new TokenHasher(randomBytes(32)), creds: null as unknown as InitialCredentials, apps: 0 };
  }
  const { db, dataDir, tokenHasher } = shared;
  const config = loadConfig({ SPYGLASS_DATA_DIR: dataDir, LOG_LEVEL: 'silent', SPYGLASS_PASSWORD_HASH_COST: CHEAP_PASSWORD_HASH_COST, ...(options.env ?? {}) });
  const clock = options.clock ?? systemClock;
  const app = await buildApp({
    config,
    db,
    clock,
    logger: options.logger ?? pino({ level: 'silent' }),
    tokenHasher,
  });
  if (!previous) shared.creds = (await firstStart(config, app.services, clock.now()))!;
  const creds = shared.creds;
  shared.apps++;
  await app.http.listen({ port: 0, host: '127.0.0.1' });
  const address = app.http.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const baseUrl = `http://127.0.0.1:${port}`;
  let stopped: Promise<void> | null = null;
  let closed = false;
  const stop = () => (stopped ??= app.http.close());
  const testApp: TestApp = {
    kind,
    baseUrl,
    app,
    db,
    clock,
    config,
    creds,
    dataDir,
    tokenHasher,
    request: (method, url, opts) => request(baseUrl, method, url, opts),
    stop,
    close: async () => {
      await stop();
      if (closed) return;
      closed = true;
      if (--shared.apps > 0) return;
      await shared.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  sharedResources.set(testApp, shared);
  return testApp;
}

export async function request<T = any>(baseUrl: string, method: string, url: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.basic) headers.authorization = `Basic ${Buffer.from(`${opts.basic[0]}:${opts.basic[1]}`).toString('base64')}`;
  if (opts.authToken) headers['x-auth-token'] = opts.authToken;
  if (opts.projectId) headers['x-project-id'] = opts.projectId;
  let body: RequestInit["body"] | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody as RequestInit["body"];
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(baseUrl + url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed as T, text, headers: res.headers };
}

export { ManualClock };

export interface Tenant {
  organizationId: string;
  projectId: string;
  userId: string;
  adminToken: string;
  projectToken: string;
}

/** A second, separate organization (with admin and project) for isolation tests. */
export async function createTenant(t: TestApp, name = 'Other Org'): Promise<Tenant> {
  const { organizations, apiKeys } = t.app.services;
  const result = await t.db.orm.transaction((tx) =>
    organizations.createOrganizationWithAdmin(
      tx,
      { organizationName: name, projectName: `${name} project`, email: `admin-${randomBytes(4).toString('hex')}@other.test`, passwordHash: null },
      async (tx2, created) => ({
        project: (await apiKeys.mintProjectKey(tx2, { id: created.projectId, organizationId: created.organizationId })).token,
        admin: (await apiKeys.mintInitialAdminKey(tx2, created.organizationId, created.userId)).token,
      }),
    ),
  );
  return {
    organizationId: result.organization.id,
    projectId: result.project.id,
    userId: result.userId,
    adminToken: result.keys.admin,
    projectToken: result.keys.project,
  };
}

/** The app of a describe block that tests one project's API and its isolation from another. */
export interface ProjectApp {
  t: TestApp;
  /** The first project's API key. */
  key: string;
  /** A second organization, with its own project and keys. */
  other: Tenant;
}

/** Where the ManualClock of useProjectApp starts. */
const TEST_START = new Date('2026-11-22T10:00:00Z');

/**
 * For a describe block: an app on a ManualClock at TEST_START, started before the block's tests
 * together with a second tenant, and closed after them. `started` receives it once it runs (assign
 * it to the block's variables); the clock is returned for the tests to advance.
 */
export function useProjectApp(kind: DatabaseKind, started: (app: ProjectApp) => void): ManualClock {
  const clock = new ManualClock(TEST_START);
  let t: TestApp | undefined;
  beforeAll(async () => {
    t = await startApp(kind, { clock });
    started({ t, key: t.creds.projectApiKey, other: await createTenant(t) });
  });
  afterAll(() => t?.close());
  return clock;
}
