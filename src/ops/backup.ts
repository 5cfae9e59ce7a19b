import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import type net from 'node:net';
import type { Config } from '../config.ts';
import { openDatabase, type Database } from '../db/index.ts';
import { requestHolder } from '../db/data-dir-lock.ts';
import { migrate } from '../db/migrate.ts';
import { fsyncPath, syncTree } from '../db/pglite-fs.ts';
import { OpsError } from './errors.ts';
import { INSTALLATION_KEYS } from './keys.ts';
import { readTar, TAR_BLOCK, TAR_END, tarHeader, tarPadded, tarPadding } from '../platform/tar.ts';

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

/**
 * Writes the backup of an open PGlite database to `out`, streamed: memory stays bounded
 * whatever the database's size. Under the database's hold (no statement runs) the data
 * directory's files are copied beside it (a reflink where the file system has them, else a
 * plain copy: the disk needs room for one more copy of pgdata meanwhile), so queries wait
 * only for that copy, not for the compression; the copy is then packed and deleted. The keys
 * the process reads from variables are left out (and the manifest says so).
 */
export async function streamBackup(db: Database, config: Config, out: Writable): Promise<BackupManifest> {
  const pglite = db.pglite;
  if (!pglite || !db.dataDirLock) throw new OpsError('backups are of a PGlite data directory; on PostgreSQL use pg_dump (see docs/operating.md)');
  const migrations = ((await pglite.query('SELECT name FROM schema_migrations ORDER BY name')).rows as { name: string }[]).map((r) => r.name);
  const snapshot = path.join(config.dataDir, `backup-snapshot.${process.pid}`);
  fs.rmSync(snapshot, { recursive: true, force: true });
  try {
    const release = await pglite.hold();
    const started = performance.now();
    let files: SnapshotEntry[];
    try {
      files = copyTree(path.join(config.dataDir, 'pgdata'), snapshot);
    } finally {
      await release();
    }
    const pausedMs = Math.round(performance.now() - started);
    const keys: BackupManifest['keys'] = [];
    const keyFiles: { name: string; data: Buffer }[] = [];
    for (const k of INSTALLATION_KEYS) {
      const file = path.join(config.dataDir, k.file);
      const included = !k.configured(config) && fs.existsSync(file);
      if (included) keyFiles.push({ name: k.file, data: fs.readFileSync(file) });
      keys.push({ file: k.file, variable: k.variable, included });
    }
    const manifest: BackupManifest = { format: FORMAT, version: VERSION, createdAt: new Date().toISOString(), pausedMs, migrations, keys };
    const gzip = zlib.createGzip();
    const piped = pipeline(gzip, out);
    const write = async (chunk: Buffer) => {
      if (!gzip.write(chunk)) await once(gzip, 'drain');
    };
    for (const entry of [{ name: MANIFEST, data: Buffer.from(JSON.stringify(manifest, null, 2) + '\n') }, ...keyFiles]) {
      await write(tarHeader(entry.name, entry.data.length));
      await write(entry.data);
      await write(tarPadding(entry.data.length));
    }
    // pgdata.tar, the data directory as PGlite's dumpDataDir lays it out (restore loads it as such).
    const innerSize = files.reduce((n, f) => n + TAR_BLOCK + tarPadded(f.size), 0) + TAR_END.length;
    await write(tarHeader(PGDATA, innerSize));
    for (const f of files) {
      await write(tarHeader(f.name, f.size, { mode: f.dir ? 0o700 : 0o600, mtime: f.mtime, type: f.dir ? '5' : '0' }));
      if (f.dir) continue;
      let read = 0;
      for await (const chunk of fs.createReadStream(path.join(snapshot, f.name), { highWaterMark: 1 << 20 })) {
        read += (chunk as Buffer).length;
        await write(chunk as Buffer);
      }
      if (read !== f.size) throw new Error(`${f.name} changed size while it was backed up (${f.size} -> ${read} bytes)`);
      await write(tarPadding(f.size));
    }
    await write(TAR_END);
    await write(tarPadding(innerSize));
    await write(TAR_END);
    gzip.end();
    await piped;
    return manifest;
  } finally {
    fs.rmSync(snapshot, { recursive: true, force: true });
  }
}

interface SnapshotEntry {
  /** `/base/1/1259`, as PGlite's dumps name their members. */
  name: string;
  dir: boolean;
  size: number;
  mtime: Date;
}

/** Copies the tree (a reflink where the file system can) and lists it, parents first. */
function copyTree(from: string, to: string): SnapshotEntry[] {
  const entries: SnapshotEntry[] = [];
  const walk = (rel: string) => {
    fs.mkdirSync(path.join(to, rel), { mode: 0o700 });
    for (const d of fs.readdirSync(path.join(from, rel), { withFileTypes: true })) {
      const child = `${rel}/${d.name}`;
      const st = fs.statSync(path.join(from, child));
      if (d.isDirectory()) {
        entries.push({ name: child, dir: true, size: 0, mtime: st.mtime });
        walk(child);
      } else if (d.isFile()) {
        fs.copyFileSync(path.join(from, child), path.join(to, child), fs.constants.COPYFILE_FICLONE);
        entries.push({ name: child, dir: false, size: st.size, mtime: st.mtime });
      }
    }
  };
  walk('');
  return entries;
}

/**
 * What a running server answers to a backup request: a JSON line, then the backup in
 * frames (a 4-byte big-endian length, then that many bytes) ended by an empty frame and a
 * JSON line with the byte count and manifest: a server that stops midway leaves no frame
 * end, so a cut backup is never taken for a whole one.
 */
export function backupHandler(db: Database, config: Config): (socket: net.Socket) => Promise<void> {
  return async (socket) => {
    socket.write(JSON.stringify({ ok: true, framed: true }) + '\n');
    let bytes = 0;
    const frames = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        const length = Buffer.alloc(4);
        length.writeUInt32BE(chunk.length);
        socket.write(length);
        if (socket.write(chunk)) callback();
        else socket.once('drain', () => callback());
      },
    });
    // A client that goes away stops the backup (and frees its snapshot) instead of leaving it waiting to write.
    socket.once('close', () => frames.destroy(new Error('the client closed the connection')));
    const manifest = await streamBackup(db, config, frames);
    socket.write(Buffer.alloc(4));
    socket.end(JSON.stringify({ bytes, manifest }) + '\n');
  };
}

/**
 * Writes a backup of the installation to `file` (mode 0600: it holds the keys): asked of
 * the server holding the data directory when one runs, else taken here.
 */
export async function backupTo(config: Config, file: string): Promise<{ manifest: BackupManifest; bytes: number; via: string }> {
  if (config.databaseUrl) throw new OpsError('DATABASE_URL is set: on PostgreSQL back up with pg_dump (see docs/operating.md)');
  if (!fs.existsSync(path.join(config.dataDir, 'pgdata', 'PG_VERSION'))) throw new OpsError(`no PGlite database in ${config.dataDir} (set SPYGLASS_DATA_DIR)`);
  const partial = `${file}.partial`;
  fs.rmSync(partial, { force: true });
  try {
    let result: { manifest: BackupManifest; bytes: number; via: string };
    const holder = await requestHolder(config.dataDir, BACKUP_COMMAND);
    if (holder) {
      const received = await receiveFrames(holder.answer, fs.createWriteStream(partial, { mode: 0o600 }), holder.pid);
      result = { ...received, via: `the running server (process ${holder.pid})` };
    } else {
      const db = await openDatabase({ databaseUrl: null, dataDir: config.dataDir });
      try {
        const out = fs.createWriteStream(partial, { mode: 0o600 });
        const manifest = await streamBackup(db, config, out);
        result = { manifest, bytes: out.bytesWritten, via: 'the data directory (no server was running)' };
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

/** Reads a server's answer (see backupHandler) into `out`, a frame at a time. */
async function receiveFrames(answer: Readable, out: fs.WriteStream, pid: string): Promise<{ manifest: BackupManifest; bytes: number }> {
  const done = once(out, 'finish');
  let pending: Buffer = Buffer.alloc(0);
  let header: { ok: boolean; error?: string } | null = null;
  let frame: number | null = null;
  let bytes = 0;
  let trailer: string | null = null;
  for await (const chunk of answer) {
    pending = pending.length ? Buffer.concat([pending, chunk as Buffer]) : (chunk as Buffer);
    for (;;) {
      if (trailer !== null) {
        trailer += pending.toString('utf8');
        pending = Buffer.alloc(0);
        break;
      }
      if (!header) {
        const end = pending.indexOf('\n');
        if (end < 0) break;
        const parsed = JSON.parse(pending.subarray(0, end).toString('utf8')) as { ok: boolean; error?: string };
        header = parsed;
        pending = pending.subarray(end + 1);
        if (!parsed.ok) throw new OpsError(`the server (process ${pid}) refused: ${parsed.error}`);
        continue;
      }
      if (frame === null) {
        if (pending.length < 4) break;
        frame = pending.readUInt32BE(0);
        pending = pending.subarray(4);
        if (frame === 0) trailer = '';
        continue;
      }
      if (pending.length === 0) break;
      const part = pending.subarray(0, frame);
      pending = pending.subarray(part.length);
      frame -= part.length;
      bytes += part.length;
      if (frame === 0) frame = null;
      if (!out.write(part)) await once(out, 'drain');
    }
  }
  out.end();
  await done;
  if (!header) throw new OpsError('the server closed the connection without an answer');
  if (trailer === null || !trailer.includes('\n')) throw new OpsError(`the server (process ${pid}) stopped sending after ${bytes} bytes; the backup is incomplete`);
  const end = JSON.parse(trailer.slice(0, trailer.indexOf('\n'))) as { bytes: number; manifest: BackupManifest };
  if (end.bytes !== bytes) throw new OpsError(`the server (process ${pid}) sent ${bytes} of ${end.bytes} bytes`);
  return { manifest: end.manifest, bytes };
}

/**
 * Restores a backup into an empty (or absent) data directory: the PGlite files, then the
 * key files it holds, then the migrations of this version. Returns the manifest.
 */
export async function restoreFrom(config: Config, file: string): Promise<{ manifest: BackupManifest; traces: number; applied: string[] }> {
  if (config.databaseUrl) throw new OpsError('DATABASE_URL is set: restore a PostgreSQL backup with pg_restore (see docs/operating.md)');
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
