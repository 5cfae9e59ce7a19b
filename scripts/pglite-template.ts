/**
 * Writes dist/pglite-template.tar (run by `prepare`): an empty PGlite database with every
 * migration applied. A first start on an empty data directory unpacks it instead of running
 * initdb and the migrations (~4 s of CPU); migrations added later are applied at start as usual.
 * Beside it, dist/pglite-template.tar.migrations: the digest of the migrations it holds, which
 * the test suite's setup checks before it takes the template as its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, PGLITE_TEMPLATE, PGLITE_TEMPLATE_DIGEST } from '../src/db/index.ts';
import { listMigrations, migrate, migrationsDigest } from '../src/db/migrate.ts';

const migrations = listMigrations();
const db = await openDatabase({ databaseUrl: null, dataDir: null });
await migrate(db, migrations);
const dump = await db.pglite!.dumpDataDir();
await db.close();
fs.mkdirSync(path.dirname(PGLITE_TEMPLATE), { recursive: true });
fs.writeFileSync(PGLITE_TEMPLATE, Buffer.from(await dump.arrayBuffer()));
fs.writeFileSync(PGLITE_TEMPLATE_DIGEST, `${migrationsDigest(migrations)}\n`);
console.log(`pglite-template: wrote ${path.relative(fileURLToPath(new URL('..', import.meta.url)), PGLITE_TEMPLATE)}`);
