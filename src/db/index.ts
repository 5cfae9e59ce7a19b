import fs from 'node:fs';
import path from 'node:path';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { sql, type SQL } from 'drizzle-orm';
import pg from 'pg';
import * as schema from './schema/index.ts';
import { lockDataDir, type DataDirLock } from './data-dir-lock.ts';
import { fsyncPath, makePrivate, syncTree, unpackTar } from './pglite-fs.ts';
import { PGliteClient } from './pglite-client.ts';
import { PACKAGE_DIR } from '../package-dir.ts';
import { countStatements, primaryOnly, replicaReads, type Reads } from './replicas.ts';
export { asBookkeeping } from './replicas.ts';
import { pooledSession } from './pooled-session.ts';
import { refreshOnly, watchChanges, type Changes } from './changes.ts';
import type { Executor, Orm } from './orm.ts';

export type { Executor, Orm, Schema, Tx } from './orm.ts';

export interface Database {
  kind: 'pglite' | 'postgres';
  orm: Orm;
  /** PGlite (in its worker thread) when kind is pglite: tests dump it. */
  pglite: PGliteClient | null;
  /** The pool when kind is postgres. */
  pool: pg.Pool | null;
  /** PGlite in a data directory: the directory's lock, which also answers requests of other processes. */
  dataDirLock: DataDirLock | null;
  /** Where reads that may be a moment behind go: a replica (DATABASE_READ_URL) or the primary (db/replicas.ts). */
  reads: Reads;
  /** Changes to the small tables every request reads (a key's row, privacy settings), heard from the primary (db/changes.ts). */
  changes: Changes;
  /**
   * Runs multi-statement SQL scripts (migrations) in one transaction over the simple
   * query protocol, which drizzle's prepared statements cannot carry.
   */
  runScripts(fn: (exec: (script: string) => Promise<Record<string, unknown>[]>) => Promise<void>): Promise<void>;
  /**
   * Calls `onNotify` for every NOTIFY on `channel` (sent when the notifying transaction
   * commits, by this process or, on PostgreSQL, any other). PostgreSQL listens on a connection
   * of its own, reconnected after a failure; `onNotify` also runs after each reconnection,
   * since notifications sent meanwhile are lost. Answers the function that stops listening.
   */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Rows of a raw `execute`, whose result shape differs between the two drivers. */
export async function rows<T>(executor: Executor, query: SQL): Promise<T[]> {
  const result = (await executor.execute<Record<string, unknown>>(query)) as { rows: T[] };
  return result.rows;
}

/** Whether a table or an index exists (checks that run before the migrations, such as the start's key check). */
export async function relationExists(executor: Executor, relation: string): Promise<boolean> {
  return (await rows<{ ok: boolean }>(executor, sql`SELECT to_regclass(${relation}) IS NOT NULL AS ok`))[0].ok;
}

export { containsPattern } from './like.ts';
export { textArray } from './text-array.ts';
export { isUniqueViolation } from './sql-state.ts';
export { jsonParam, storableJson } from './json-param.ts';

// PGlite's WAL otherwise grows to its 1 GB default before a checkpoint. Shared buffers: PGlite's
// default 128 MB is resident in the WebAssembly memory once touched and doubles the OS page
// cache, which serves PGlite's file reads anyway; 32 MB measured 125 MB less RSS (docs/performance.md: Overload, memory and start).
const PGLITE_CONF = ['max_wal_size = 64MB', 'min_wal_size = 32MB', 'shared_buffers = 32MB'];

/** A migrated empty PGlite database, made by `prepare` (scripts/pglite-template.ts). */
export const PGLITE_TEMPLATE = path.join(PACKAGE_DIR, 'dist', 'pglite-template.tar');
/** Beside it: the digest of the migrations it was made with (`migrationsDigest`). */
export const PGLITE_TEMPLATE_DIGEST = `${PGLITE_TEMPLATE}.migrations`;

export interface OpenOptions {
  databaseUrl: string | null;
  /** PGlite data directory; null for an in-memory database. */
  dataDir: string | null;
  /** A dumped data directory to start from (tests). */
  loadDataDir?: Blob;
  poolSize?: number;
  /**
   * PGlite in a data directory: each commit is flushed to disk before it returns (default).
   * Only the benchmark turns it off, to measure what durability costs.
   */
  durable?: boolean;
  /** PostgreSQL: streaming replicas that take reads (DATABASE_READ_URL), and how far behind one may be. */
  replicas?: { urls: string[]; maxLagMs: number };
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
    // An idle client's error (server restart) must not crash the process; the next query reconnects.
    pool.on('error', () => {});
    // A client in use when its connection ends (the database dropped or restarted) emits 'error'
    // besides failing its query; pg-pool listens only while a client is idle, so without a
    // listener of its own that event would end the process (readiness is to say 503 instead).
    pool.on('connect', (client) => client.on('error', () => {}));
    const orm = drizzlePg({ client: pool, schema }) as unknown as Orm;
    let reads: Reads = primaryOnly(orm);
    if (options.replicas?.urls.length) {
      const counter = { count: 0 };
      countStatements(pool, counter, true);
      reads = replicaReads({ orm, url: options.databaseUrl, counter }, { urls: options.replicas.urls, maxLagMs: options.replicas.maxLagMs, poolSize: options.poolSize });
    }
    const changes = watchChanges(options.databaseUrl);
    return {
      kind: 'postgres',
      orm,
      pglite: null,
      pool,
      dataDirLock: null,
      reads,
      changes,
      runScripts: async (fn) => {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          await fn(async (script) => {
            const result = (await client.query(script)) as unknown as pg.QueryResult | pg.QueryResult[];
            const last = Array.isArray(result) ? result[result.length - 1] : result;
            return (last?.rows ?? []) as Record<string, unknown>[];
          });
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => {});
          throw err;
        } finally {
          client.release();
        }
      },
      listen: (channel, onNotify) => listenOnPostgres(options.databaseUrl!, channel, onNotify),
      close: async () => {
        await changes.close();
        await reads.close();
        await pool.end();
      },
    };
  }
  let lock: DataDirLock | null = null;
  let pgdata: string | null = null;
  let initializes = false;
  const durable = options.durable !== false;
  if (options.dataDir) {
    fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    lock = await lockDataDir(options.dataDir);
    pgdata = path.join(options.dataDir, 'pgdata');
    initializes = !fs.existsSync(path.join(pgdata, 'PG_VERSION'));
    // A first start unpacks the template (when `prepare` made one) instead of running initdb:
    // PGlite then opens it as on a restart.
    if (initializes && !options.loadDataDir && fs.existsSync(PGLITE_TEMPLATE)) {
      unpackTemplate(options.dataDir, pgdata, durable);
      initializes = false;
    }
    fs.mkdirSync(pgdata, { recursive: true, mode: 0o700 });
    makePrivate(options.dataDir);
  }
  let client: PGliteClient;
  try {
    client = await PGliteClient.create({
      pgdata,
      loadDataDir: options.loadDataDir ? new Uint8Array(await options.loadDataDir.arrayBuffer()) : null,
      conf: PGLITE_CONF,
      // In memory (tests) there is nothing to make durable.
      durable,
    });
  } catch (err) {
    await lock?.release();
    throw err;
  }
  if (options.dataDir) {
    // What initdb or loadDataDir wrote: private, and on disk before anything is acknowledged.
    makePrivate(options.dataDir);
    if (initializes && durable) syncTree(pgdata!);
  }
  const orm = drizzlePglite({ client: client as never, schema }) as unknown as Orm;
  return {
    kind: 'pglite',
    orm,
    pglite: client,
    pool: null,
    dataDirLock: lock,
    reads: primaryOnly(orm),
    changes: refreshOnly,
    runScripts: (fn) =>
      client.transaction(async (tx) => {
        await fn(async (script) => {
          const results = await tx.exec(script);
          return (results[results.length - 1]?.rows ?? []) as Record<string, unknown>[];
        });
      }),
    listen: (channel, onNotify) => client.listen(channel, onNotify),
    close: async () => {
      await client.close();
      await lock?.release();
    },
  };
}

/**
 * Unpacks the template into `pgdata` so that it holds either no database or a whole one,
 * whatever stops the process: unpacked beside it, flushed, then renamed into place.
 */
function unpackTemplate(dataDir: string, pgdata: string, durable: boolean): void {
  const unpacking = path.join(dataDir, 'pgdata.unpacking');
  fs.rmSync(unpacking, { recursive: true, force: true }); // left by a first start that was stopped
  unpackTar(PGLITE_TEMPLATE, unpacking);
  if (durable) syncTree(unpacking);
  // A pgdata without PG_VERSION holds no database, only what an interrupted initdb left.
  fs.rmSync(pgdata, { recursive: true, force: true });
  fs.renameSync(unpacking, pgdata);
  if (durable) fsyncPath(dataDir);
}

const RELISTEN_AFTER_MS = 1_000;

/** LISTEN on a dedicated connection (a pooled one would be handed to others), reconnecting until stopped. */
async function listenOnPostgres(connectionString: string, channel: string, onNotify: () => void): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  const connect = async (first: boolean): Promise<void> => {
    const c = new pg.Client({ connectionString });
    const lost = () => {
      if (client !== c) return;
      client = null;
      void c.end().catch(() => {});
      if (!stopped) retry = setTimeout(() => void connect(false), RELISTEN_AFTER_MS).unref();
    };
    c.on('error', lost);
    c.on('end', lost);
    c.on('notification', (n) => {
      if (n.channel === channel) onNotify();
    });
    client = c;
    try {
      await c.connect();
      await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      if (!first) onNotify();
    } catch (err) {
      if (first) {
        client = null;
        await c.end().catch(() => {});
        throw err;
      }
      lost();
    }
  };
  await connect(true);
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    const c = client;
    client = null;
    await c?.end().catch(() => {});
  };
}

/**
 * One connection kept for a caller across several statements, outside any transaction
 * (session state such as a WITH HOLD cursor lives on it): on PostgreSQL a connection taken
 * from the pool until `release`; PGlite has one connection, shared, and nothing to release.
 * `release(failed)`: a connection whose last statement failed is discarded, not pooled.
 */
export async function reserveSession(db: Database): Promise<{ exec: Orm; release(failed?: boolean): void }> {
  if (db.kind === 'pglite') return { exec: db.orm, release: () => {} };
  return pooledSession(db.pool!);
}
