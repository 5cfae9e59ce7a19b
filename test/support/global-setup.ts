import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase, PGLITE_TEMPLATE, PGLITE_TEMPLATE_DIGEST } from '../../src/db/index.ts';
import { listMigrations, migrate, migrationsDigest } from '../../src/db/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A dumped, migrated PGlite data directory: each test file starts from a copy. */
    pgliteTemplate: string;
    /** A migrated PostgreSQL database each test file copies (CREATE DATABASE ... TEMPLATE). */
    pgTemplate: { url: string; name: string } | null;
  }
}

/**
 * One migrated database per run and vitest project for the files to copy: PGlite's from `prepare`
 * when it is current (PGlite's initdb alone takes seconds), PostgreSQL's made here. Both projects
 * (shared, isolated) set up in one process, so the names carry a random part too.
 */
/** Projects whose setup has run and whose teardown has not. */
let projectsSetUp = 0;

export default async function setup(project: TestProject) {
  projectsSetUp++;
  requireWhatCiTests();
  buildServerBundleIfStale();
  const run = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const migrations = listMigrations();
  // `prepare`'s template (dist/pglite-template.tar) when it holds exactly these migrations: this
  // setup runs before any test file starts, and building one costs about 6 s of CPU.
  const prepared = fs.existsSync(PGLITE_TEMPLATE_DIGEST) && fs.readFileSync(PGLITE_TEMPLATE_DIGEST, 'utf8').trim() === migrationsDigest(migrations);
  const file = prepared ? PGLITE_TEMPLATE : path.join(os.tmpdir(), `spyglass-pglite-template-${run}.tar`);
  if (!prepared) {
    const db = await openDatabase({ databaseUrl: null, dataDir: null });
    await migrate(db, migrations);
    const dump = await db.pglite!.dumpDataDir();
    fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
    await db.close();
  }
  project.provide('pgliteTemplate', file);

  const url = process.env.TEST_DATABASE_URL;
  let template: { url: string; name: string } | null = null;
  if (url) {
    const name = `spyglass_tpl_${run}`;
    await adminQuery(url, `DROP DATABASE IF EXISTS ${name}`);
    await adminQuery(url, `CREATE DATABASE ${name}`);
    const tdb = await openDatabase({ databaseUrl: withDatabase(url, name), dataDir: null, poolSize: 1 });
    await migrate(tdb);
    await tdb.close();
    template = { url, name };
  }
  project.provide('pgTemplate', template);

  return async () => {
    if (!prepared) fs.rmSync(file, { force: true });
    // The RAM directory vitest.config.ts made for the run's temporary files (test-tmpdir.ts),
    // when the last project set up is torn down.
    const ramTmpdir = process.env.SPYGLASS_TEST_RAM_TMPDIR;
    if (--projectsSetUp === 0 && ramTmpdir) fs.rmSync(ramTmpdir, { recursive: true, force: true });
    if (!template) return;
    // The copies the workers' shared apps keep open until their process ends, and any a test left.
    const copies = await adminRows(template.url, `SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, [testDatabasePrefix(template.name)]);
    for (const { datname } of copies) await adminQuery(template.url, `DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    await adminQuery(template.url, `DROP DATABASE IF EXISTS ${template.name}`);
  };
}

let bundleChecked = false;

/**
 * The servers and CLIs the tests spawn run `bin/spyglass.mjs`, which runs the server's bundle
 * (dist/server) only while it is as new as the sources, and the sources through tsx otherwise:
 * after an edit to src/, every spawned process compiled the sources again (a server's start cost
 * about 3 s more CPU: test/foundation/data-dir.test.ts's 6 servers 47.8 s against 28.4 s). The
 * bundle is rebuilt here once per run when stale (a few seconds, in esbuild's own process), as
 * `prepare` built it; test/foundation/bundle.test.ts still checks the bundle itself.
 */
function buildServerBundleIfStale(): void {
  if (bundleChecked) return;
  bundleChecked = true;
  execFileSync(process.execPath, [path.resolve('scripts/build-server.mjs'), '--if-stale'], { stdio: 'inherit' });
}

/** How the copies of a run's template are named (the template's name is the run's). */
export function testDatabasePrefix(templateName: string): string {
  return `${templateName.replace('spyglass_tpl_', 'spyglass_t_')}_`;
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function adminQuery(url: string, text: string): Promise<void> {
  await adminRows(url, text);
}

async function adminRows(url: string, text: string, values: unknown[] = []): Promise<Record<string, string>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * In CI nothing a test needs may be missing: the browser tests, the fsync count and the
 * PostgreSQL runs would otherwise be skipped and the run would still go green.
 */
function requireWhatCiTests(): void {
  if (!process.env.CI) return;
  const missing: string[] = [];
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!fs.existsSync(chromium)) missing.push(`Chromium (${chromium})`);
  if (!['/usr/bin/strace', '/bin/strace'].some((p) => fs.existsSync(p))) missing.push('strace');
  if (!process.env.TEST_DATABASE_URL) missing.push('PostgreSQL (TEST_DATABASE_URL)');
  // The web app's build (npm ci's prepare): the page-code checks run only with its manifest.
  if (!fs.existsSync(path.resolve('dist/ui/.vite/manifest.json'))) missing.push('the web app\'s build (dist/ui: npm run build:ui)');
  if (missing.length > 0) throw new Error(`CI: the suite needs ${missing.join(', ')}; refusing to run with those tests skipped`);
}
