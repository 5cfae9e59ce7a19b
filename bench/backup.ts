import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../src/db/index.ts';
import { migrate } from '../src/db/migrate.ts';
import { procStatus, startServer } from './overload.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(here, '..', 'bin', 'spyglass.mjs');

export interface BackupBenchResult {
  /** pg_database_size of the data built, MiB, and the data directory on disk. */
  databaseMiB: number;
  dataDirMiB: number;
  buildSeconds: number;
  runs: {
    via: 'command alone (no server)' | 'running server';
    /** Peak RSS (VmHWM) of the `spyglass backup` process, MiB. */
    commandPeakMiB: number;
    /** The server's peak RSS while it made the backup (VmHWM reset before), MiB; null without a server. */
    serverPeakMiB: number | null;
    serverBeforeMiB: number | null;
    seconds: number;
    /** How long queries waited (the command's own report). */
    pausedMs: number;
    fileMiB: number;
  }[];
}

const MiB = 1024 * 1024;

/** Resets the process's peak RSS (VmHWM) to its current RSS: Linux, as root or the owner. */
function resetPeak(pid: number): void {
  fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

function duSize(dir: string): number {
  let bytes = 0;
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) if (e.isFile()) bytes += fs.statSync(path.join(e.parentPath, e.name)).size;
  return bytes;
}

/**
 * A PGlite data directory of about `targetMiB`: one table of 1 KB rows made by SQL
 * (generate_series) in ~64 MiB statements, unlogged and without fsync; the server's own tables are
 * migrated in and otherwise empty (the first start sets them up). 1 KB rows stay inline and
 * uncompressed in PostgreSQL (below TOAST's 2 KB threshold), so the files are as big as the
 * data; the text repeats an md5, so gzip shrinks it much more than real traces.
 */
async function buildDatabase(dataDir: string, targetMiB: number): Promise<number> {
  const db = await openDatabase({ databaseUrl: null, dataDir, durable: false });
  try {
    await migrate(db);
    // Unlogged: no WAL, so building it is about twice as fast; a shutdown checkpoint writes it out like any table.
    await db.pglite!.exec('CREATE UNLOGGED TABLE bench_backup_filler (id int PRIMARY KEY, payload text NOT NULL)');
    const rowsPerStatement = 60_000;
    let next = 1;
    for (;;) {
      const size = Number((await db.pglite!.query<{ n: number }>('SELECT (pg_database_size(current_database()) / 1048576)::int AS n')).rows[0].n);
      if (size >= targetMiB) return size;
      const rows = Math.min(rowsPerStatement, Math.max(1000, Math.ceil(((targetMiB - size) * MiB) / 1150)));
      await db.pglite!.query(`INSERT INTO bench_backup_filler SELECT g, repeat(md5(g::text), 31) FROM generate_series($1::int, $2::int) g`, [next, next + rows - 1]);
      next += rows;
    }
  } finally {
    await db.close();
  }
}

/** Runs `spyglass backup` to `file`, sampling its RSS peak and, when given, the server's. */
async function runBackup(dataDir: string, file: string, serverPid: number | null) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, 'backup', file], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', SPYGLASS_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  let commandPeak = 0;
  let serverPeak = 0;
  const sample = () => {
    // An exited child (a zombie) has no VmHWM line: NaN, skipped.
    const peak = (pid: number) => {
      try {
        return procStatus(pid, 'VmHWM') || 0;
      } catch {
        return 0;
      }
    };
    commandPeak = Math.max(commandPeak, peak(child.pid!));
    if (serverPid) serverPeak = Math.max(serverPeak, peak(serverPid));
  };
  const timer = setInterval(sample, 25);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearInterval(timer);
  sample();
  if (code !== 0) throw new Error(`spyglass backup exited with ${code}: ${out}`);
  return {
    seconds: (performance.now() - t0) / 1000,
    commandPeakMiB: commandPeak / 1024,
    serverPeakMiB: serverPid ? serverPeak / 1024 : null,
    pausedMs: Number(/queries paused (\d+) ms/.exec(out)?.[1] ?? NaN),
    fileMiB: fs.statSync(file).size / MiB,
  };
}

/**
 * `spyglass backup` of a PGlite database of BENCH_BACKUP_MIB (default 1024) MiB, by the
 * command alone and from a running server: both processes' peak RSS (target: at most 600 MiB
 * each, whatever the database's size), the time and the pause. BENCH_BACKUP_DIR keeps the
 * built database there between runs (it is built when the directory is empty).
 */
export async function benchBackup(targetMiB: number): Promise<BackupBenchResult> {
  const kept = process.env.BENCH_BACKUP_DIR;
  const root = kept ?? fs.mkdtempSync(path.join(os.tmpdir(), 'spyglass-bench-backup-'));
  const dataDir = path.join(root, 'data');
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spyglass-bench-backup-out-'));
  try {
    const t0 = performance.now();
    let databaseMiB: number;
    if (fs.existsSync(path.join(dataDir, 'pgdata', 'PG_VERSION'))) {
      const db = await openDatabase({ databaseUrl: null, dataDir });
      databaseMiB = Number((await db.pglite!.query<{ n: number }>('SELECT (pg_database_size(current_database()) / 1048576)::int AS n')).rows[0].n);
      await db.close();
    } else {
      databaseMiB = await buildDatabase(dataDir, targetMiB);
    }
    const buildSeconds = (performance.now() - t0) / 1000;
    const runs: BackupBenchResult['runs'] = [];
    const alone = await runBackup(dataDir, path.join(outDir, 'alone.tar.gz'), null);
    runs.push({ via: 'command alone (no server)', ...alone, serverBeforeMiB: null });
    fs.rmSync(path.join(outDir, 'alone.tar.gz'));
    const server = await startServer({ SPYGLASS_DATA_DIR: dataDir });
    try {
      const before = procStatus(server.child.pid!, 'VmRSS') / 1024;
      resetPeak(server.child.pid!);
      const served = await runBackup(dataDir, path.join(outDir, 'served.tar.gz'), server.child.pid!);
      runs.push({ via: 'running server', ...served, serverBeforeMiB: before });
    } finally {
      await server.stop();
    }
    return { databaseMiB, dataDirMiB: duSize(dataDir) / MiB, buildSeconds, runs };
  } finally {
    fs.rmSync(outDir, { recursive: true, force: true });
    if (!kept) fs.rmSync(root, { recursive: true, force: true });
  }
}
