import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Database } from './index.ts';
import { PACKAGE_DIR } from '../package-dir.ts';

const MIGRATIONS_DIR = path.join(PACKAGE_DIR, 'src', 'db', 'migrations');
// Any constant: serializes migrations of several server processes on one PostgreSQL.
const MIGRATION_LOCK = 5_560_001;

export interface Migration {
  name: string;
  sql: string;
}

export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((name) => ({ name, sql: fs.readFileSync(path.join(dir, name), 'utf8') }));
}

/** What a database migrated with `migrations` holds: it changes when a migration is added, renamed or edited. */
export function migrationsDigest(migrations = listMigrations()): string {
  const hash = createHash('sha256');
  for (const m of migrations) hash.update(`${m.name}\0${m.sql}\0`);
  return hash.digest('hex');
}

/**
 * Applies the committed SQL migrations not yet applied, in file-name order, all in one
 * transaction (a failed migration leaves the database as it was). Returns the names applied.
 */
export async function migrate(db: Database, migrations = listMigrations()): Promise<string[]> {
  const applied: string[] = [];
  await db.runScripts(async (exec) => {
    if (db.kind === 'postgres') await exec(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await exec(`CREATE EXTENSION IF NOT EXISTS pg_trgm;
      CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await exec('SELECT name FROM schema_migrations')).map((r) => String(r.name)));
    for (const m of migrations) {
      if (done.has(m.name)) continue;
      if (!/^[\w.-]+$/.test(m.name)) throw new Error(`bad migration file name ${m.name}`);
      await exec(m.sql);
      await exec(`INSERT INTO schema_migrations (name) VALUES ('${m.name}')`);
      applied.push(m.name);
    }
  });
  return applied;
}
