import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pino, { type Logger } from 'pino';
import { afterAll, beforeAll, inject } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { openDatabase, type Database } from '../../src/db/index.ts';
import { firstStart, type InitialCredentials } from '../../src/first-start.ts';
import { ManualClock, systemClock, type Clock } from '../../src/platform/clock.ts';
import { TokenHasher } from '../../src/platform/tokens.ts';
import { adminQuery, testDatabasePrefix, withDatabase } from './global-setup.ts';
import { CHEAP_PASSWORD_HASH_COST } from './server-process.ts';

export type DatabaseKind = 'pglite' | 'postgres';

/**
 * PGlite always; PostgreSQL too when TEST_DATABASE_URL is set. For the files whose subject is the
 * SQL: stores, the filter contract, queries that differ between the two databases, operations
 * (backup, move), several processes on one database.
 */
export const databaseKinds: DatabaseKind[] = inject('pgTemplate') ? ['pglite', 'postgres'] : ['pglite'];

/**
 * PGlite only: for the files whose subject is not the SQL (routes, validation, the web app,
 * evaluators, the CLI). They run the same stores the `databaseKinds` files already prove on
 * PostgreSQL, so a second run there finds nothing new and costs a whole app per file.
 */
export const appDatabaseKinds: DatabaseKind[] = ['pglite'];

/**
 * A PostgreSQL database of its own, copied from the migrated template: for a test app, or for
 * a server a test runs in its own process (DATABASE_URL). `drop` removes it.
 */
export async function copyTemplateDatabase(): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const template = inject('pgTemplate')!;
  // Named after the run, so the run's end drops whatever a worker left (global-setup.ts).
  const name = `${testDatabasePrefix(template.name)}${randomBytes(6).toString('hex')}`;
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

/**
 * The environment of an app whose file runs its queued jobs by hand (`app.services.jobs.runDue()`,
 * after moving a ManualClock): without it the app's own poll, every 2 s of real time, could
 * claim a job between the clock's move and the file's runDue, which then ran none.
 */
export const JOBS_RUN_BY_HAND = { SPYGLASS_JOB_POLL_MS: '0' };

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

export interface StartAppOptions {
    /**
     * An app of its own on an empty database, even without other options: for files that count
     * what the whole database holds, check the first start, or stop the app.
     */
    fresh?: boolean;
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
}

/**
 * A real app on a real database, listening on a loopback port.
 *
 * Without options, or with only a `clock`, the app is the test worker's, shared by the files the
 * worker runs one after another (vitest keeps this module between files: `isolate: false`), and
 * the file gets an organization of its own (`creds`) that no other file's keys reach: a whole app
 * per file cost about 6 s of CPU (opening PGlite, building the app, the first start). The file's
 * clock (a ManualClock) becomes the shared app's clock until the next file starts; the app's
 * timers only ever ask the clock it was built with for the time, so they read the file's clock.
 * Any other option (an environment, `fresh`, ...) starts an app of its own on a database of its own.
 */
export async function startApp(kind: DatabaseKind, options: StartAppOptions = {}): Promise<TestApp> {
  const { clock: fileClock, ...rest } = options;
  const ownApp = Object.values(rest).some((v) => v !== undefined && v !== false);
  if (!ownApp) return tenantOfWorkerApp(kind, fileClock ?? systemClock);
  if (options.reopen && workerApps.has(options.reopen)) {
    throw new Error('startApp: reopen takes an app of its own; start the first one with { fresh: true }');
  }
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
    logger: options.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
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

/**
 * The clock of a worker's shared app: it asks the clock of the file being run (files in a worker
 * run one after another, never at once), the system's unless the file brought its own.
 */
class WorkerClock implements Clock {
  current: Clock = systemClock;
  now(): Date {
    return this.current.now();
  }
}

/** The worker's shared app per database kind, started by the first file that asks. */
const workerAppByKind = new Map<DatabaseKind, { app: Promise<TestApp>; clock: WorkerClock }>();
/** The apps handed to files from a worker's shared app (their `reopen` is refused). */
const workerApps = new WeakSet<TestApp>();

async function tenantOfWorkerApp(kind: DatabaseKind, fileClock: Clock): Promise<TestApp> {
  let worker = workerAppByKind.get(kind);
  if (!worker) {
    const clock = new WorkerClock();
    // No alert poll of its own: files ask for their rules' windows (alerts.evaluateDue) when
    // their data is in; a poll at a random phase of the shared app's timers would evaluate a
    // window while a file is still writing it. The poll is the subject of the files that set it.
    const started = startApp(kind, { fresh: true, clock, env: { SPYGLASS_ALERT_POLL_SECONDS: '0' } }).then((app) => {
      // Its database goes with the worker (PostgreSQL's at the run's end); its files go now.
      process.once('exit', () => fs.rmSync(app.dataDir, { recursive: true, force: true }));
      return app;
    });
    worker = { app: started, clock };
    workerAppByKind.set(kind, worker);
  }
  worker.clock.current = fileClock;
  const shared = await worker.app;
  // The earlier files' alert rules stop: this file's evaluations (alerts.evaluateDue) would
  // evaluate (and catch up) their windows at this file's clock, costing time and changing counts.
  await shared.db.orm.execute(sql`UPDATE alert_rules SET enabled = false WHERE enabled`);
  // The earlier files' jobs go too: a job made at an earlier file's clock (a ManualClock years
  // back) is due at once at this file's, and ran ahead of this file's own jobs (a dataset import
  // waited 30 s behind monitor runs whose model servers had stopped with their file).
  await shared.db.orm.execute(sql`DELETE FROM jobs`);
  const creds = await createTenantCredentials({ ...shared, clock: fileClock });
  const tenantApp: TestApp = {
    ...shared,
    clock: fileClock,
    creds,
    // The app goes on serving the worker's next files; this file's organization stays, out of their reach.
    stop: async () => {
      throw new Error('startApp: a file cannot stop the worker\'s shared app; start it with { fresh: true }');
    },
    close: async () => {},
  };
  workerApps.add(tenantApp);
  return tenantApp;
}

function requestHeaders(opts: RequestOptions): Record<string, string> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.basic) headers.authorization = `Basic ${Buffer.from(`${opts.basic[0]}:${opts.basic[1]}`).toString('base64')}`;
  if (opts.authToken) headers['x-auth-token'] = opts.authToken;
  if (opts.projectId) headers['x-project-id'] = opts.projectId;
  return headers;
}

function parsed(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text; // not JSON
  }
}

export async function request<T = any>(baseUrl: string, method: string, url: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers = requestHeaders(opts);
  let body: RequestInit["body"] | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody as RequestInit["body"];
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(baseUrl + url, { method, headers, body });
  const text = await res.text();
  return { status: res.status, body: parsed(text) as T, text, headers: res.headers };
}

/**
 * `t.request` without the socket: the app's own `inject` (Fastify's light-my-request), for files
 * that send thousands of requests whose subject is not the network (the routes' authorization).
 * The same headers, body and answer as `t.request`; test/foundation/auth-matrix.test.ts (about 4,000 calls: some 230 routes, each about 15 times) took 43.8-47.0 s of CPU with it against 48.2-55.3 s over the socket (three pairs, medians 46.5 and 54.2).
 */
export async function injectRequest<T = any>(t: TestApp, method: string, url: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers = requestHeaders(opts);
  let payload: string | Buffer | undefined;
  if (opts.rawBody !== undefined) payload = typeof opts.rawBody === 'string' ? opts.rawBody : Buffer.from(opts.rawBody);
  else if (opts.body !== undefined) {
    payload = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await t.app.http.inject({ method: method as 'GET', url, headers, payload, remoteAddress: '127.0.0.1' });
  const answerHeaders = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) answerHeaders.append(name, String(v));
  }
  return { status: res.statusCode, body: parsed(res.body) as T, text: res.body, headers: answerHeaders };
}

export { ManualClock };

export interface Tenant {
  organizationId: string;
  projectId: string;
  userId: string;
  adminToken: string;
  projectToken: string;
}

/** An organization with its admin user, first project and keys, as the first start makes one. */
async function createOrganization(t: TestApp, input: { organizationName: string; projectName: string; email: string; passwordHash: string | null }) {
  const { organizations, apiKeys } = t.app.services;
  return t.db.orm.transaction((tx) =>
    organizations.createOrganizationWithAdmin(tx, input, async (tx2, created) => ({
      project: (await apiKeys.mintProjectKey(tx2, { id: created.projectId, organizationId: created.organizationId })).token,
      admin: (await apiKeys.mintInitialAdminKey(tx2, created.organizationId, created.userId)).token,
    })),
  );
}

/** What the first start would give a file: names as a first start names them, a user who can sign in. */
async function createTenantCredentials(t: TestApp): Promise<InitialCredentials> {
  const password = randomBytes(12).toString('hex');
  const email = `admin-${randomBytes(6).toString('hex')}@localhost`;
  const result = await createOrganization(t, {
    organizationName: 'My Organization',
    projectName: 'My Project',
    email,
    passwordHash: await t.app.services.accounts.passwords.hash(password),
  });
  return {
    organization: result.organization,
    project: { id: result.project.id, name: result.project.name },
    user: { id: result.userId, email, password },
    projectApiKey: result.keys.project,
    adminApiKey: result.keys.admin,
    createdAt: t.clock.now().toISOString(),
  };
}

/** A second, separate organization (with admin and project) for isolation tests. */
export async function createTenant(t: TestApp, name = 'Other Org'): Promise<Tenant> {
  const result = await createOrganization(t, {
    organizationName: name,
    projectName: `${name} project`,
    email: `admin-${randomBytes(4).toString('hex')}@other.test`,
    passwordHash: null,
  });
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
 * together with a second tenant, and closed after them (the worker's app unless `options` ask
 * for one of its own, as a file that stops and restarts it does). `started` receives it once it runs (assign
 * it to the block's variables); the clock is returned for the tests to advance.
 */
export function useProjectApp(kind: DatabaseKind, started: (app: ProjectApp) => void, options: Omit<StartAppOptions, 'clock'> = {}): ManualClock {
  const clock = new ManualClock(TEST_START);
  let t: TestApp | undefined;
  beforeAll(async () => {
    t = await startApp(kind, { ...options, clock });
    started({ t, key: t.creds.projectApiKey, other: await createTenant(t) });
  });
  afterAll(() => t?.close());
  return clock;
}
