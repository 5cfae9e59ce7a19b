import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Database, Executor } from './index.ts';
import { rows, textArray } from './index.ts';
import { hasSqlState } from './sql-state.ts';

/**
 * Tables partitioned by UTC day (migration 0069): a range partition `<table>_dYYYYMMDD` per
 * day on the integer column `day` (days since 1970-01-01), and `<table>_default` for rows of a
 * day that has no partition. Every table of a set has the same days, so retention drops a day
 * of all of them at once.
 *
 * Partitions are made outside any other transaction: on start and daily for the days around
 * today, and before an ingest transaction for days its rows need (never inside it: DDL there
 * would hold the parent's lock for the whole write, and PGlite's one connection would wait on
 * itself). A day whose partition cannot be made (the default partition holds rows of it) keeps
 * those rows in the default partition, where retention deletes them row by row.
 *
 * Making or dropping a partition locks its parent exclusively, on PostgreSQL while other
 * connections write: a writer that holds one table of the set and waits for another would
 * deadlock with it, and PostgreSQL would cancel one of the two after deadlock_timeout (the
 * writer's request answering 500). So the DDL waits for a lock only briefly (lock_timeout under
 * deadlock_timeout: it is the one that gives way, before any deadlock is detected) and tries
 * again after a pause. If it still cannot, the writes go on into the default partition: a day
 * missing its partition, whatever dropped it, never fails a write.
 */
export const DAY_MS = 86_400_000;
// Any constant: two processes making the same day wait for each other instead of failing.
const PARTITION_LOCK = 5_560_069;
/** How long DDL keeps trying to take its locks before it gives up (the writes use the default partition meanwhile). */
const DDL_PATIENCE_MS = 10_000;
/** What making a day's partition fails with when the default partition holds rows of that day. */
const DEFAULT_HOLDS_DAY = '23514';
/** lock_not_available (lock_timeout ran out), deadlock_detected. */
const LOCK_CONFLICT = ['55P03', '40P01'];
/**
 * In a DDL transaction (PostgreSQL): a lock not granted within half of deadlock_timeout (at
 * most 200 ms) fails this transaction, and only this one.
 */
const GIVE_WAY = sql.raw(
  `SELECT set_config('lock_timeout', greatest(1, least(200, setting::int / 2)) || 'ms', true) FROM pg_settings WHERE name = 'deadlock_timeout'`,
);

/** The UTC day (days since 1970-01-01) of an epoch-milliseconds time. */
export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);

/** `2026-11-30` -> `20261130`, the suffix of a day's partitions. */
const daySuffix = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10).replace(/-/g, '');

const ident = (name: string) => sql.raw(`"${name.replace(/"/g, '""')}"`);

export class DayPartitions {
  /** Days known to have their partitions in every table (this process made or saw them). */
  private readonly known = new Set<number>();
  /**
   * This process's making and dropping take turns: a drop never lands between ensure's reading
   * of the catalogue and its remembering the day (the day would be remembered, gone).
   */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Database,
    readonly tables: readonly string[],
    private readonly logger?: Logger,
  ) {}

  /**
   * Makes the partitions of these days that this process has not seen yet, each table of the
   * set. A day whose locks stay taken is left without (its rows go to the default partition)
   * and tried again by the next call that needs it.
   */
  async ensure(days: Iterable<number>): Promise<void> {
    const wanted = [...new Set(days)].filter((d) => !this.known.has(d)).sort((a, b) => a - b);
    if (!wanted.length) return;
    await this.inTurn(async () => {
      const missing = wanted.filter((d) => !this.known.has(d));
      if (!missing.length) return;
      const existing = new Set(await this.days());
      for (const day of missing) {
        if (!existing.has(day)) {
          try {
            await this.make(day);
          } catch (err) {
            if (!hasSqlState(err, LOCK_CONFLICT)) throw err;
            this.logger?.warn({ err, day, tables: this.tables }, 'a day partition could not be made (its tables stayed locked): its rows go to the default partition for now');
            continue;
          }
        }
        this.known.add(day);
      }
    });
  }

  /** Days that have partitions (of the set's first table), ascending. */
  async days(exec: Executor = this.db.orm): Promise<number[]> {
    return partitionDays(exec, this.tables[0]);
  }

  /** Projects with rows of this day in these tables of the set (each has a project_id column). */
  async projectsOn(day: number, tables: readonly string[], exec: Executor = this.db.orm): Promise<string[]> {
    const found = new Set<string>();
    for (const table of tables) {
      // `day = <constant>` reads that day's partition alone.
      const held = await rows<{ project_id: string }>(exec, sql`SELECT DISTINCT project_id FROM ${ident(table)} WHERE day = ${sql.raw(String(day))}`);
      for (const r of held) found.add(r.project_id);
    }
    return [...found];
  }

  /**
   * Drops one day's partitions of every table, in one short transaction of its own (a lock on
   * each parent until it commits). `beforeDrop` runs first in that transaction: the caller's own
   * work that must go with the day (its rollup rows), or a last check; false keeps the day.
   * Answers whether the day had them. Another process dropping the same day at once is no error.
   */
  async drop(day: number, beforeDrop?: (tx: Executor) => Promise<boolean>): Promise<boolean> {
    return this.inTurn(async () => {
      this.known.delete(day);
      const partitions = this.tables.map((t) => `${t}_d${daySuffix(day)}`);
      return this.ddl([...this.tables, ...partitions], async (tx) => {
        if (beforeDrop && !(await beforeDrop(tx))) return false;
        let dropped = false;
        for (const name of partitions) {
          const [{ exists }] = await rows<{ exists: boolean }>(tx, sql`SELECT to_regclass(${name}) IS NOT NULL AS exists`);
          if (!exists) continue;
          await tx.execute(sql`DROP TABLE IF EXISTS ${ident(name)}`);
          dropped = true;
        }
        return dropped;
      });
    });
  }

  private async make(day: number): Promise<void> {
    try {
      // A new partition locks its parent, and the default partition that it reads for rows of its day.
      await this.ddl([...this.tables, ...this.tables.map((t) => `${t}_default`)], async (tx) => {
        for (const table of this.tables) {
          await tx.execute(
            sql`CREATE TABLE IF NOT EXISTS ${ident(`${table}_d${daySuffix(day)}`)} PARTITION OF ${ident(table)} FOR VALUES FROM (${sql.raw(String(day))}) TO (${sql.raw(String(day + 1))})`,
          );
        }
      });
    } catch (err) {
      // The default partition holds rows of this day (check_violation): they stay there (see above).
      if (!hasSqlState(err, [DEFAULT_HOLDS_DAY])) throw err;
    }
  }

  /**
   * DDL on the set's tables in a transaction that gives way to writers (see above), tried
   * again after a pause while its locks are taken, for DDL_PATIENCE_MS at most. Two processes
   * doing DDL on a set wait for each other (the advisory lock) instead of failing.
   */
  private async ddl<T>(relations: string[], work: (tx: Executor) => Promise<T>): Promise<T> {
    const giveUpAt = Date.now() + DDL_PATIENCE_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.db.orm.transaction(async (tx) => {
          if (this.db.kind === 'postgres') {
            await tx.execute(sql`SELECT pg_advisory_xact_lock(${PARTITION_LOCK})`);
            await tx.execute(GIVE_WAY);
            // Every lock the DDL needs, taken at once before any of it runs: it never holds one
            // for long while it waits for another.
            const present = await rows<{ name: string }>(tx, sql`SELECT n AS name FROM unnest(${textArray(relations)}) AS n WHERE to_regclass(n) IS NOT NULL`);
            if (present.length) await tx.execute(sql`LOCK TABLE ONLY ${sql.join(present.map((r) => ident(r.name)), sql`, `)} IN ACCESS EXCLUSIVE MODE`);
          }
          return work(tx);
        });
      } catch (err) {
        if (!hasSqlState(err, LOCK_CONFLICT) || Date.now() >= giveUpAt) throw err;
        // Apart from the other DDL waiting: a pause that grows, at random within it.
        await sleep(Math.random() * Math.min(500, 20 * 2 ** attempt));
      }
    }
  }

  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const run = this.turn.then(work, work);
    this.turn = run.catch(() => {});
    return run;
  }
}

/** Days with a partition of `table`, ascending (read from the partitions' names). */
export async function partitionDays(exec: Executor, table: string): Promise<number[]> {
  const found = await rows<{ name: string }>(
    exec,
    sql`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = to_regclass(${table})`,
  );
  const prefix = `${table}_d`;
  return found
    .map((r) => r.name)
    .filter((n) => n.startsWith(prefix) && /^\d{8}$/.test(n.slice(prefix.length)))
    .map((n) => {
      const s = n.slice(prefix.length);
      return dayOf(Date.UTC(Number(s.slice(0, 4)), Number(s.slice(4, 6)) - 1, Number(s.slice(6, 8))));
    })
    .sort((a, b) => a - b);
}
