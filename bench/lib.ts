import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import pg from 'pg';
import { buildApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase, rows, type Database } from '../src/db/index.ts';
import { migrate } from '../src/db/migrate.ts';
import { firstStart, type InitialCredentials } from '../src/first-start.ts';
import { systemClock } from '../src/platform/clock.ts';
import { TokenHasher } from '../src/platform/tokens.ts';

export interface BenchServer {
  kind: 'pglite' | 'postgres';
  app: App;
  db: Database;
  baseUrl: string;
  /** OTLP over gRPC: `grpc://127.0.0.1:<port>`. */
  grpcUrl: string;
  creds: InitialCredentials;
  /** The token hasher its keys were made with: a second process on the same database needs it. */
  tokenHasher: TokenHasher;
  close(): Promise<void>;
}

/** A real server on loopback: PGlite in a data directory (as `npm start`), or a fresh PostgreSQL database. */
export async function startBenchServer(
  kind: 'pglite' | 'postgres',
  postgresUrl: string,
  options: { durable?: boolean; env?: Record<string, string> } = {},
): Promise<BenchServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spyglass-bench-'));
  let dropDb: (() => Promise<void>) | null = null;
  let databaseUrl: string | null = null;
  if (kind === 'postgres') {
    const name = `spyglass_bench_${randomBytes(4).toString('hex')}`;
    await admin(postgresUrl, `CREATE DATABASE ${name}`);
    const u = new URL(postgresUrl);
    u.pathname = `/${name}`;
    databaseUrl = u.toString();
    dropDb = () => admin(postgresUrl, `DROP DATABASE IF EXISTS ${name}`);
  }
  const config = loadConfig({ SPYGLASS_DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), ...(options.env ?? {}) });
  const db = await openDatabase({ databaseUrl, dataDir: kind === 'pglite' ? dataDir : null, poolSize: 10, durable: options.durable });
  await migrate(db);
  const tokenHasher = new TokenHasher(randomBytes(32));
  const app = await buildApp({ config, db, clock: systemClock, logger: pino({ level: 'silent' }), tokenHasher });
  const creds = (await firstStart(config, app.services, new Date()))!;
  await app.http.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.http.server.address() as { port: number }).port;
  const grpcPort = await app.otlpGrpc.listen(0, '127.0.0.1');
  return {
    kind,
    app,
    db,
    baseUrl: `http://127.0.0.1:${port}`,
    grpcUrl: `grpc://127.0.0.1:${grpcPort}`,
    creds,
    tokenHasher,
    close: async () => {
      await app.http.close();
      await db.close();
      // BENCH_KEEP_DATABASE=1: the PostgreSQL database stays (its URL printed) to be examined after the run; drop it by hand.
      if (process.env.BENCH_KEEP_DATABASE === '1' && databaseUrl) console.error(`bench: database kept: ${databaseUrl}`);
      else await dropDb?.();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function admin(url: string, text: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

export const median = (values: number[]) => percentile(values, 50);

export { pool } from '../src/platform/task-pool.ts';

export function table(rows: Record<string, string | number>[]): string {
  const cols = Object.keys(rows[0] ?? {});
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => c.padEnd(width[i])).join(' | ') + ' |';
  return [line(cols), line(width.map((w) => '-'.repeat(w))), ...rows.map((r) => line(cols.map((c) => String(r[c]))))].join('\n');
}

/** CPU seconds (user + system) of each thread of this process, by thread id (Linux; empty elsewhere), and each thread's nice value. */
function threadTimes(): Map<number, { seconds: number; nice: number }> {
  const out = new Map<number, { seconds: number; nice: number }>();
  let tids: string[];
  try {
    tids = fs.readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  const tick = 100; // USER_HZ on Linux
  for (const tid of tids) {
    try {
      // Fields after the command's closing parenthesis: state is field 3; utime 14, stime 15, nice 19.
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), { seconds: (Number(f[11]) + Number(f[12])) / tick, nice: Number(f[16]) });
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

/**
 * CPU time of the server's threads over a stretch of work, when the server runs in this
 * process (as bench/ingest-median.ts runs it): the main thread, the OTLP decode worker (the
 * thread at nice 10), the busiest other thread (on PGlite: its worker) and the rest (V8's
 * collector and compiler helpers, libuv). Far less sensitive to other work on the machine
 * than wall time.
 */
export function threadCpu() {
  const before = threadTimes();
  return () => {
    const after = threadTimes();
    let main = 0;
    let decode = 0;
    const others: number[] = [];
    for (const [tid, t] of after) {
      const used = t.seconds - (before.get(tid)?.seconds ?? 0);
      if (tid === process.pid) main += used;
      else if (t.nice === 10) decode += used;
      else others.push(used);
    }
    others.sort((a, b) => b - a);
    return { main, decode, busiestOther: others[0] ?? 0, rest: others.slice(1).reduce((a, b) => a + b, 0) };
  };
}

/** CPU seconds of the PostgreSQL backends serving the server's database (readable in /proc: same machine), by pid. */
export async function backendCpu(server: BenchServer): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (server.kind !== 'postgres') return out;
  const pids = await rows<{ pid: number }>(server.db.orm, sql`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`);
  for (const { pid } of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(pid), (Number(f[11]) + Number(f[12])) / 100);
    } catch {
      // Another machine, or the backend is gone.
    }
  }
  return out;
}
