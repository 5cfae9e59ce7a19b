import { sql } from 'drizzle-orm';
import type { Database, Executor } from './index.ts';
import { rows } from './index.ts';
import { hasSqlState } from './unique-violation.ts';

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
 */

export const DAY_MS = 86_400_000;
// Any constant: two processes making the same day wait for each other instead of failing.
const PARTITION_LOCK = 5_560_069;

/** The UTC day (days since 1970-01-01) of an epoch-milliseconds time. */
export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);

/** `2026-11-30` -> `20261130`, the suffix of a day's partitions. */
const daySuffix = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10).replace(/-/g, '');

const ident = (name: string) => sql.raw(`"${name.replace(/"/g, '""')}"`);

export class DayPartitions {
  /** Days known to have their partitions in every table (this process made or saw them). */
  private readonly known = new Set<number>();

  constructor(
    private readonly db: Database,
    readonly tables: readonly string[],
  ) {}

  /** Makes the partitions of these days that this process has not seen yet, each table of the set. */
  async ensure(days: Iterable<number>): Promise<void> {
    const missing = [...new Set(days)].filter((d) => !this.known.has(d)).sort((a, b) => a - b);
    if (!missing.length) return;
    const existing = new Set(await this.days());
    for (const day of missing) {
      if (!existing.has(day)) await this.make(day);
      this.known.add(day);
    }
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
   * Drops one day's partitions of every table, in the caller's transaction (a lock on each
   * parent until it commits: keep that transaction short). Answers whether the day had them.
   */
  async drop(tx: Executor, day: number): Promise<boolean> {
    let dropped = false;
    for (const table of this.tables) {
      const name = `${table}_d${daySuffix(day)}`;
      const [{ exists }] = await rows<{ exists: boolean }>(tx, sql`SELECT to_regclass(${name}) IS NOT NULL AS exists`);
      if (!exists) continue;
      await tx.execute(sql`DROP TABLE ${ident(name)}`);
      dropped = true;
    }
    this.known.delete(day);
    return dropped;
  }

  private async make(day: number): Promise<void> {
    try {
      await this.db.orm.transaction(async (tx) => {
        if (this.db.kind === 'postgres') await tx.execute(sql`SELECT pg_advisory_xact_lock(${PARTITION_LOCK})`);
        for (const table of this.tables) {
          await tx.execute(
            sql`CREATE TABLE IF NOT EXISTS ${ident(`${table}_d${daySuffix(day)}`)} PARTITION OF ${ident(table)} FOR VALUES FROM (${sql.raw(String(day))}) TO (${sql.raw(String(day + 1))})`,
          );
        }
      });
    } catch (err) {
      // The default partition holds rows of this day (its constraint would be violated,
      // SQLSTATE 23514, on the driver's error under drizzle's): they stay there (see above).
      if (!hasSqlState(err, '23514')) throw err;
    }
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
