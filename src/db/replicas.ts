import { AsyncLocalStorage } from 'node:async_hooks';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from './schema/index.ts';
import type { Orm } from './orm.ts';
import { pooledSession } from './pooled-session.ts';

/**
 * Reads that may be a moment behind (search, trace reads, analytics, exports, comparisons,
 * alert evaluations) go to a streaming replica of the primary when one is configured
 * (DATABASE_READ_URL): one that answers, lags less than the bound, and has replayed past the
 * calling client's last write. Anything else, and every write, goes to the primary.
 *
 * A store's read function asks `reads.executor()` per query; PGlite and a PostgreSQL without
 * replicas answer the primary at once.
 */
export interface Reads {
  /** Where a read that may lag goes now. */
  executor(): Promise<Orm>;
  /**
   * One replica connection kept for several statements (a cursor), chosen as `executor`
   * chooses; null: the read goes to the primary (`reserveSession`).
   */
  session(): Promise<{ exec: Orm; release(failed?: boolean): void } | null>;
  /** The replicas and how far behind each is (empty without replicas). */
  status(): ReplicaStatus[];
  /** Statements sent by this process, per pool (`primary`, then each replica's host:port/database). */
  statements(): { pool: string; count: number }[];
  /** The primary's WAL position now (null without replicas: nothing to wait for). */
  primaryPosition(): Promise<string | null>;
  /** Remembers that `client` wrote up to `lsn`: its reads for a while go where that write is. */
  wrote(client: string, lsn: string): void;
  close(): Promise<void>;
}

export interface ReplicaStatus {
  name: string;
  /** Answered its last check and lags within the bound. */
  usable: boolean;
  /** Milliseconds behind the primary at the last check; null when it did not answer. */
  lagMs: number | null;
  detail: string;
}

/**
 * What one request carries: the WAL position its client last wrote at (from this process's
 * memory of the client, or the X-Spyglass-Read-After header), and whether it wrote itself.
 */
export interface ReadContext {
  client: string | null;
  after: bigint | null;
  wrote: boolean;
}

export const readContext = new AsyncLocalStorage<ReadContext>();

/** `X/Y` (hexadecimal halves) -> one number; null when it is not a WAL position. */
export function parseLsn(text: string): bigint | null {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text.trim());
  return m ? (BigInt(`0x${m[1]}`) << 32n) + BigInt(`0x${m[2]}`) : null;
}

export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

const NOT_WRITES = /^\s*(select|begin|start|commit|rollback|end|declare|fetch|move|close|show|set|reset|savepoint|release|listen|unlisten|explain)\b/i;
const WRITING_CTE = /^\s*with\b[\s\S]*\b(insert|update|delete|merge)\b/i;

/** Whether a statement may change data (a transaction's BEGIN and a SELECT do not). */
export function isWrite(text: string): boolean {
  return !NOT_WRITES.test(text) && (!/^\s*with\b/i.test(text) || WRITING_CTE.test(text));
}

/**
 * Counts the statements sent over each of the pool's connections; with `marksWrites`, a
 * statement that may change data marks the request it runs for (read-your-writes).
 */
export function countStatements(pool: pg.Pool, counter: { count: number }, marksWrites: boolean): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      counter.count++;
      if (marksWrites) {
        const first = args[0];
        const text = typeof first === 'string' ? first : ((first as { text?: string } | null)?.text ?? '');
        if (isWrite(text)) markWrote();
      }
      return query(...args);
    };
  });
}

/**
 * Runs `fn` (and what it starts) as the server's own bookkeeping, outside the request it
 * serves: a write there (a key's "last used") is not the client's, so the client's later
 * reads do not wait for a replica to replay it.
 */
export function asBookkeeping<T>(fn: () => T): T {
  return readContext.exit(fn);
}

function markWrote(): void {
  const ctx = readContext.getStore();
  if (ctx) ctx.wrote = true;
}

/** The primary alone (PGlite, or PostgreSQL without DATABASE_READ_URL). */
export function primaryOnly(orm: Orm): Reads {
  return {
    executor: () => Promise.resolve(orm),
    session: () => Promise.resolve(null),
    status: () => [],
    statements: () => [],
    primaryPosition: () => Promise.resolve(null),
    wrote: () => {},
    close: async () => {},
  };
}

export interface ReplicaOptions {
  urls: string[];
  /** A replica further behind than this is skipped. */
  maxLagMs: number;
  /** How often each replica is checked (lag, up). */
  checkEveryMs?: number;
  /** How long a read waits for a replica to replay past the client's last write before going to the primary. */
  waitForWriteMs?: number;
  poolSize?: number;
}

interface Replica {
  name: string;
  pool: pg.Pool;
  orm: Orm;
  counter: { count: number };
  checks: pg.Pool;
  check: (text: string) => Promise<pg.QueryResult>;
  replayed: bigint | null;
  lagMs: number | null;
  detail: string;
}

/** A replica's name in /metrics and the readiness detail: where it is, never its credentials. */
export function replicaName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return 'replica';
  }
}

const CHECK_TIMEOUT_MS = 1_000;
/** Checks' primary positions kept at most (an hour of checks once a second). */
const MAX_POSITIONS = 3_600;

export function replicaReads(primary: { orm: Orm; url: string; counter: { count: number } }, options: ReplicaOptions): Reads {
  const checkEveryMs = options.checkEveryMs ?? 1_000;
  const waitForWriteMs = options.waitForWriteMs ?? 200;
  const primaryPool = new pg.Pool({ connectionString: primary.url, max: 2, connectionTimeoutMillis: CHECK_TIMEOUT_MS });
  primaryPool.on('error', () => {});
  const primaryCheck = (text: string) => primaryPool.query(text);
  const replicas: Replica[] = options.urls.map((url) => {
    const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10, connectionTimeoutMillis: 2_000 });
    const counter = { count: 0 };
    countStatements(pool, counter, false);
    // Checks on a connection of their own, not counted with the reads.
    const checks = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: CHECK_TIMEOUT_MS });
    checks.on('error', () => {});
    return {
      name: replicaName(url),
      pool,
      orm: drizzlePg({ client: pool, schema }),
      counter,
      checks,
      check: (text) => checks.query(text),
      replayed: null,
      lagMs: null,
      detail: 'not checked yet',
    };
  });
  /** Clients' last writes: WAL position and until when it is remembered. */
  const writes = new Map<string, { lsn: bigint; until: number }>();
  const rememberMs = Math.max(10_000, options.maxLagMs * 2);
  let next = 0;
  let closed = false;

  /**
   * The primary's WAL position at each check, oldest first, while some replica has not
   * replayed it: a replica's lag is how long ago the primary had written the first position it
   * has not replayed yet (0 when it has replayed all the primary had at the last check). Unlike
   * now() - pg_last_xact_replay_timestamp(), an idle primary does not look like lag.
   */
  const positions: { lsn: bigint; at: number }[] = [];

  const checkOne = async (r: Replica, now: number): Promise<void> => {
    try {
      const result = await withTimeout(
        r.check('SELECT pg_is_in_recovery() AS standby, coalesce(pg_last_wal_replay_lsn(), pg_current_wal_lsn())::text AS replayed'),
        CHECK_TIMEOUT_MS,
      );
      const row = result.rows[0] as { standby: boolean; replayed: string };
      r.replayed = parseLsn(row.replayed);
      const behind = row.standby && r.replayed !== null ? positions.find((p) => p.lsn > r.replayed!) : undefined;
      r.lagMs = behind ? Math.max(0, now - behind.at) : 0;
      r.detail = r.lagMs > options.maxLagMs ? `${r.lagMs} ms behind the primary, past SPYGLASS_READ_MAX_LAG_MS (${options.maxLagMs})` : 'ok';
    } catch (err) {
      r.replayed = null;
      r.lagMs = null;
      r.detail = `does not answer: ${(err as Error).message}`;
    }
  };
  const checkAll = async (): Promise<void> => {
    const now = Date.now();
    try {
      const result = await withTimeout(primaryCheck('SELECT pg_current_wal_lsn()::text AS lsn'), CHECK_TIMEOUT_MS);
      const lsn = parseLsn((result.rows[0] as { lsn: string }).lsn);
      if (lsn !== null && (!positions.length || lsn > positions[positions.length - 1].lsn)) positions.push({ lsn, at: now });
    } catch {
      /* the primary's own trouble shows in readiness */
    }
    await Promise.all(replicas.map((r) => checkOne(r, Date.now())));
    // Positions every replica has replayed (or that are past any bound of interest) are forgotten.
    const replayed = replicas.map((r) => r.replayed).filter((l): l is bigint => l !== null);
    const oldest = replayed.length === replicas.length ? replayed.reduce((a, b) => (a < b ? a : b)) : null;
    while (positions.length > 1 && ((oldest !== null && positions[0].lsn <= oldest) || positions.length > MAX_POSITIONS)) positions.shift();
    for (const [client, w] of writes) if (w.until < now) writes.delete(client);
  };
  let timer: NodeJS.Timeout | null = null;
  let checking: Promise<void> = checkAll();
  const loop = () => {
    timer = setTimeout(() => {
      checking = checkAll().finally(() => {
        if (!closed) loop();
      });
    }, checkEveryMs);
    timer.unref();
  };
  void checking.finally(loop);

  const usable = (r: Replica) => r.lagMs !== null && r.lagMs <= options.maxLagMs;

  const replayedPast = async (r: Replica, lsn: bigint): Promise<boolean> => {
    if (r.replayed !== null && r.replayed >= lsn) return true;
    const deadline = Date.now() + waitForWriteMs;
    for (;;) {
      try {
        const result = await withTimeout(r.check('SELECT coalesce(pg_last_wal_replay_lsn(), pg_current_wal_lsn())::text AS replayed'), waitForWriteMs);
        const replayed = parseLsn((result.rows[0] as { replayed: string }).replayed);
        if (replayed !== null && (r.replayed === null || replayed > r.replayed)) r.replayed = replayed;
        if (replayed !== null && replayed >= lsn) return true;
      } catch {
        return false;
      }
      if (Date.now() + 10 > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  /** The replica a read goes to now; null: the primary. */
  const pick = async (): Promise<Replica | null> => {
      const candidates = replicas.filter(usable);
      if (!candidates.length) return null;
      const ctx = readContext.getStore();
      const remembered = ctx?.client ? writes.get(ctx.client) : undefined;
      let after = ctx?.after ?? null;
      if (remembered && remembered.until >= Date.now() && (after === null || remembered.lsn > after)) after = remembered.lsn;
      const start = next++ % candidates.length;
      const ordered = [...candidates.slice(start), ...candidates.slice(0, start)];
      if (after === null) return ordered[0];
      // The client's own write: a replica already past it, else the first one that gets there in time.
      const ready = ordered.find((r) => r.replayed !== null && r.replayed >= after);
      if (ready) return ready;
      for (const r of ordered) if (await replayedPast(r, after)) return r;
      return null;
  };

  for (const r of replicas) {
    // An idle connection lost (the replica shut down): no more reads there until a check finds it answering.
    r.pool.on('error', (err) => {
      r.lagMs = null;
      r.replayed = null;
      r.detail = `lost a connection: ${err.message}`;
    });
  }

  return {
    executor: async () => (await pick())?.orm ?? primary.orm,
    session: async () => {
      const r = await pick();
      if (!r) return null;
      return pooledSession(r.pool);
    },
    status: () => replicas.map((r) => ({ name: r.name, usable: usable(r), lagMs: r.lagMs, detail: r.detail })),
    statements: () => [{ pool: 'primary', count: primary.counter.count }, ...replicas.map((r) => ({ pool: r.name, count: r.counter.count }))],
    primaryPosition: async () => {
      const result = await primaryCheck('SELECT pg_current_wal_lsn()::text AS lsn');
      return (result.rows[0] as { lsn: string }).lsn;
    },
    wrote: (client, lsn) => {
      const parsed = parseLsn(lsn);
      if (parsed === null) return;
      const known = writes.get(client);
      writes.set(client, { lsn: known && known.lsn > parsed ? known.lsn : parsed, until: Date.now() + rememberMs });
    },
    close: async () => {
      closed = true;
      if (timer) clearTimeout(timer);
      await checking.catch(() => {});
      await Promise.all([primaryPool, ...replicas.flatMap((r) => [r.pool, r.checks])].map((p) => p.end().catch(() => {})));
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))),
  ]);
}
