import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type net from 'node:net';
import type { Config } from '../config.ts';
import { openDatabase, type Database } from '../db/index.ts';
import { requestHolder } from '../db/data-dir-lock.ts';
import { migrate } from '../db/migrate.ts';
import { fsyncPath, syncTree } from '../db/pglite-fs.ts';
import { OpsError } from './errors.ts';
import { INSTALLATION_KEYS } from './keys.ts';
import { readTar, writeTar } from '../platform/tar.ts';

/**
 * Backups of a PGlite installation: one gzipped tar holding the PGlite data directory,
 * the installation's key files and a manifest.
 *
 * Consistency: the copy is taken by the process that owns the database, inside PGlite's
 * query lock right after a checkpoint, so no statement runs while the files are read; an
 * open transaction's writes are the ones crash recovery undoes on restore. Every commit
 * acknowledged before the backup began is in the copy. A running server pauses its
 * queries for the time it takes to read the files (requests wait; none fails); a server
 * that is not running is not needed: the command opens the directory itself.
 */

export const BACKUP_COMMAND = 'backup';
const MANIFEST = 'spyglass-backup.json';
const PGDATA = 'pgdata.tar';
const FORMAT = 'spyglass-backup';
const VERSION = 1;

export interface BackupManifest {
  format: typeof FORMAT;
  version: number;
  createdAt: string;
  /** How long the database's queries waited while its files were read, in ms. */
  pausedMs: number;
  migrations: string[];
  keys: { file: string; variable: string; included: boolean }[];
}

/** The backup of an open PGlite database; the keys the process reads from variables are left out (and say so). */
export async function createBackup(db: Database, config: Config): Promise<{ manifest: BackupManifest; data: Buffer }> {
  const pglite = db.pglite;
  if (!pglite || !db.dataDirLock) throw new OpsError('backups are of a PGlite data directory; on PostgreSQL use pg_dump (see README, "Operating Spyglass")');
  const migrations = ((await pglite.query('SELECT name FROM schema_migrations ORDER BY name')).rows as { name: string }[]).map((r) => r.name);
  // A checkpoint first, so a restore has little WAL to replay.
  await pglite.exec('CHECKPOINT');
  const started = performance.now();
  const dump = await pglite.dumpDataDir();
  const pausedMs = Math.round(performance.now() - started);
  const entries = [{ name: PGDATA, data: Buffer.from(await dump.arrayBuffer()) }];
  const keys: BackupManifest['keys'] = [];
  for (const k of INSTALLATION_KEYS) {
    const file = path.join(config.dataDir, k.file);
    const included = !k.configured(config) && fs.existsSync(file);
    if (included) entries.push({ name: k.file, data: fs.readFileSync(file) });
    keys.push({ file: k.file, variable: k.variable, included });
  }
  const manifest: BackupManifest = { format: FORMAT, version: VERSION, createdAt: new Date().toISOString(), pausedMs, migrations, keys };
  const tar = writeTar([{ name: MANIFEST, data: Buffer.from(JSON.stringify(manifest, null, 2) + '\n') }, ...entries]);
  return { manifest, data: await promisify(zlib.gzip)(tar) };
}

/** What a running server answers to a backup request: a JSON line, then the backup's bytes. */
export function backupHandler(db: Database, config: Config): (socket: net.Socket) => Promise<void> {
  return async (socket) => {
    const { manifest, data } = await createBackup(db, config);
    socket.write(JSON.stringify({ ok: true, bytes: data.length, manifest }) + '\n');
    socket.end(data);
  };
}

/**
 * Writes a backup of the installation to `file` (mode 0600: it holds the keys): asked of
 * the server holding the data directory when one runs, else taken here.
 */
export async function backupTo(config: Config, file: string): Promise<{ manifest: BackupManifest; bytes: number; via: string }> {
  if (config.databaseUrl) throw new OpsError('DATABASE_URL is set: on PostgreSQL back up with pg_dump (see README, "Operating Spyglass")');
  if (!fs.existsSync(path.join(config.dataDir, 'pgdata', 'PG_VERSION'))) throw new OpsError(`no PGlite database in ${config.dataDir} (set SPYGLASS_DATA_DIR)`);
  const partial = `${file}.partial`;
  fs.rmSync(partial, { force: true });
  try {
    let result: { manifest: BackupManifest; bytes: number; via: string };
    const holder = await requestHolder(config.dataDir, BACKUP_COMMAND);
    if (holder) {
      const { header, body } = await splitHeader(holder.answer);
      if (!header.ok) throw new OpsError(`the server (process ${holder.pid}) refused: ${header.error}`);
      fs.writeFileSync(partial, body, { mode: 0o600 });
      if (body.length !== header.bytes) throw new OpsError(`the server (process ${holder.pid}) sent ${body.length} of ${header.bytes} bytes`);
      result = { manifest: header.manifest, bytes: body.length, via: `the running server (process ${holder.pid})` };
    } else {
      const db = await openDatabase({ databaseUrl: null, dataDir: config.dataDir });
      try {
        const { manifest, data } = await createBackup(db, config);
        fs.writeFileSync(partial, data, { mode: 0o600 });
        result = { manifest, bytes: data.length, via: 'the data directory (no server was running)' };
      } finally {
        await db.close();
      }
    }
    fsyncPath(partial);
    fs.renameSync(partial, file);
    return result;
  } finally {
    fs.rmSync(partial, { force: true });
  }
}

async function splitHeader(stream: NodeJS.ReadableStream): Promise<{ header: any; body: Buffer }> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const all = Buffer.concat(chunks);
  const end = all.indexOf('\n');
  if (end < 0) throw new OpsError('the server closed the connection without an answer');
  return { header: JSON.parse(all.subarray(0, end).toString('utf8')), body: all.subarray(end + 1) };
}

/**
 * Restores a backup into an empty (or absent) data directory: the PGlite files, then the
 * key files it holds, then the migrations of this version. Returns the manifest.
 */
export async function restoreFrom(config: Config, file: string): Promise<{ manifest: BackupManifest; traces: number; applied: string[] }> {
  if (config.databaseUrl) throw new OpsError('DATABASE_URL is set: restore a PostgreSQL backup with pg_restore (see README, "Operating Spyglass")');
  let entries;
  try {
    entries = readTar(zlib.gunzipSync(fs.readFileSync(file)));
  } catch (err) {
    throw new OpsError(`${file} is not a Spyglass backup: ${(err as Error).message}`);
  }
  const byName = new Map(entries.map((e) => [e.name, e.data]));
  const manifest = JSON.parse(byName.get(MANIFEST)?.toString('utf8') ?? 'null') as BackupManifest | null;
  const pgdata = byName.get(PGDATA);
  if (manifest?.format !== FORMAT || !pgdata) throw new OpsError(`${file} is not a Spyglass backup (no ${MANIFEST} or ${PGDATA})`);
  if (manifest.version > VERSION) throw new OpsError(`${file} was written by a newer Spyglass (backup format ${manifest.version}); upgrade first`);
  const present = fs.existsSync(config.dataDir) ? fs.readdirSync(config.dataDir) : [];
  if (present.length) {
    throw new OpsError(`the data directory ${config.dataDir} is not empty (${present.slice(0, 5).join(', ')}); restore into a new directory (SPYGLASS_DATA_DIR)`);
  }
  const db = await openDatabase({ databaseUrl: null, dataDir: config.dataDir, loadDataDir: new Blob([pgdata]) });
  let traces: number;
  let applied: string[];
  try {
    for (const k of INSTALLATION_KEYS) {
      const data = byName.get(k.file);
      if (data) fs.writeFileSync(path.join(config.dataDir, k.file), data, { mode: 0o600, flag: 'wx' });
    }
    applied = await migrate(db);
    traces = Number((await db.pglite!.query<{ n: number }>('SELECT count(*)::int AS n FROM traces')).rows[0].n);
  } finally {
    await db.close();
  }
  // The loaded files were written without fsync; the restore is done when they are on disk.
  syncTree(config.dataDir);
  return { manifest, traces, applied };
}
