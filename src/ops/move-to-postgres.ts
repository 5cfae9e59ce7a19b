import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { openDatabase, type Database } from '../db/index.ts';
import type { PGliteClient, PgliteQueries } from '../db/pglite-client.ts';
import { migrate } from '../db/migrate.ts';
import { DayPartitions, partitionDays } from '../db/day-partitions.ts';
import { OpsError } from './errors.ts';
import { checkKeys, missingRecords, type InstallationKeys } from './key-check.ts';

/**
 * Copies a PGlite data directory's database into an empty PostgreSQL database, keeping
 * every row (ids included) as it is.
 *
 * The target is migrated first (its own transaction), then every table is copied in ONE
 * transaction that also checks each table's row count and checksum against the source
 * before it commits. An interrupted run (killed, connection lost, a mismatch) therefore
 * leaves the target migrated and empty, which is exactly what a new run accepts: starting
 * again is the whole recovery. The source is opened as the server would open it (its lock
 * refuses a running server), migrated to the same schema, and otherwise only read.
 */

export interface MoveReport {
  tables: { name: string; rows: number }[];
  totalRows: number;
}

/** Tables whose rows a fresh migration writes itself: they do not make a target "not empty". */
const SEEDED_BY_MIGRATIONS = new Set(['schema_migrations', 'webhook_outbox_cursor']);
/** Rows copied per INSERT, and the text size at which a batch is sent early. */
const BATCH_ROWS = 500;
const BATCH_CHARS = 8 * 1024 * 1024;

export async function moveToPostgres(options: {
  dataDir: string;
  databaseUrl: string;
  /** The source's keys (ops/key-check.ts): checked against the source, recorded in the target when the source has no record yet. */
  keys: InstallationKeys;
  progress: (line: string) => void;
}): Promise<MoveReport> {
  if (!fs.existsSync(path.join(options.dataDir, 'pgdata', 'PG_VERSION'))) {
    throw new OpsError(`no PGlite database in ${options.dataDir} (set SPYGLASS_DATA_DIR to the data directory to move)`);
  }
  const target = new pg.Client({ connectionString: options.databaseUrl, application_name: 'spyglass move-to-postgres' });
  try {
    await target.connect();
  } catch (err) {
    throw new OpsError(`cannot connect to the target database: ${(err as Error).message}`);
  }
  // An idle client's error must not crash the process; the next query reports it.
  target.on('error', () => {});
  let source: Database | null = null;
  try {
    await refuseNonEmpty(target);
    source = await openDatabase({ databaseUrl: null, dataDir: options.dataDir });
    const pglite = source.pglite!;
    const sourceApplied = await migrate(source);
    if (sourceApplied.length) options.progress(`source: applied migrations ${sourceApplied.join(', ')}`);
    // Keys that do not open the source would be printed as the target's: refused before anything is copied.
    const expected = await checkKeys(source, options.keys, options.dataDir);
    const targetDb = await openDatabase({ databaseUrl: options.databaseUrl, dataDir: null, poolSize: 1 });
    try {
      const applied = await migrate(targetDb);
      options.progress(applied.length ? `target: applied ${applied.length} migrations` : 'target: migrations are up to date');
      // Every day the source has a partition of, the target has too: no row lands in a default partition.
      for (const table of await partitionedTables(pglite)) {
        const days = await partitionDays(source.orm, table);
        await new DayPartitions(targetDb, [table]).ensure(days);
        if (days.length) options.progress(`target: ${days.length} days of ${table}`);
      }
    } finally {
      await targetDb.close();
    }
    // Both sides render timestamps (row text, checksums) the same way.
    await pglite.exec(`SET TimeZone = 'UTC'; SET DateStyle = 'ISO, MDY'; SET extra_float_digits = 1`);
    await target.query(`SET TimeZone = 'UTC'; SET DateStyle = 'ISO, MDY'; SET extra_float_digits = 1`);
    const tables = await copyOrder(pglite);
    await refuseUnknownTables(target, tables.map((t) => t.name));

    await target.query('BEGIN');
    try {
      const report: MoveReport = { tables: [], totalRows: 0 };
      for (const table of tables) {
        await target.query(`DELETE FROM ${ident(table.name)}`); // rows a migration seeded
        const rows = await copyTable(pglite, target, table);
        const [a, b] = [await checksum(pglite, table), await checksum(target, table)];
        if (a.rows !== rows || a.rows !== b.rows || a.sum !== b.sum) {
          throw new OpsError(`table ${table.name}: the copy does not match (source ${a.rows} rows, checksum ${a.sum}; target ${b.rows} rows, checksum ${b.sum}); nothing was kept`);
        }
        report.tables.push({ name: table.name, rows });
        report.totalRows += rows;
        options.progress(`copied ${table.name}: ${rows} rows, checksum matches`);
      }
      // A source made by an earlier version has no record of its keys yet: the target gets it,
      // so that a server started on it with other keys is refused.
      for (const r of missingRecords(options.keys, expected, true)) {
        await target.query('INSERT INTO installation_keys (kind, key_id, verifier) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [r.kind, r.keyId, r.verifier]);
      }
      await copySequences(pglite, target);
      await renumberTransactionIds(pglite, target);
      await target.query('COMMIT');
      return report;
    } catch (err) {
      await target.query('ROLLBACK').catch(() => {});
      throw err;
    }
  } finally {
    await target.end().catch(() => {});
    await source?.close();
  }
}

interface TableInfo {
  name: string;
  /** Every column, in table order (what the checksum covers). */
  columns: string[];
  /** The columns an INSERT may set (generated columns are computed again by the target). */
  insertable: string[];
}

function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The source's tables partitioned by day (db/day-partitions.ts). */
async function partitionedTables(pglite: PGliteClient): Promise<string[]> {
  const found = await pglite.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'p' ORDER BY 1`,
  );
  return (found.rows as { name: string }[]).map((r) => r.name);
}

/**
 * The public tables of the source, parents before the tables whose foreign keys point at them.
 * A partitioned table is copied whole, through its parent (its partitions are not listed).
 */
async function copyOrder(pglite: PGliteClient): Promise<TableInfo[]> {
  const cols = await pglite.query<{ table: string; column: string; generated: string }>(
    `SELECT c.relname AS table, a.attname AS column, a.attgenerated AS generated
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relname <> 'schema_migrations'
      ORDER BY c.relname, a.attnum`,
  );
  const byName = new Map<string, TableInfo>();
  for (const r of cols.rows) {
    const t = byName.get(r.table) ?? { name: r.table, columns: [], insertable: [] };
    t.columns.push(r.column);
    if (!r.generated) t.insertable.push(r.column);
    byName.set(r.table, t);
  }
  const fks = await pglite.query<{ child: string; parent: string }>(
    `SELECT ch.relname AS child, pa.relname AS parent
       FROM pg_constraint k JOIN pg_class ch ON ch.oid = k.conrelid JOIN pg_class pa ON pa.oid = k.confrelid
       JOIN pg_namespace n ON n.oid = ch.relnamespace
      WHERE k.contype = 'f' AND n.nspname = 'public' AND ch.relname <> pa.relname`,
  );
  const parents = new Map<string, Set<string>>([...byName.keys()].map((n) => [n, new Set<string>()]));
  for (const fk of fks.rows) parents.get(fk.child)?.add(fk.parent);
  const ordered: TableInfo[] = [];
  const placed = new Set<string>();
  while (placed.size < byName.size) {
    const ready = [...byName.keys()].filter((n) => !placed.has(n) && [...parents.get(n)!].every((p) => placed.has(p)));
    if (ready.length === 0) throw new OpsError('the foreign keys between tables form a cycle; cannot order the copy');
    for (const n of ready.sort()) {
      placed.add(n);
      ordered.push(byName.get(n)!);
    }
  }
  return ordered;
}

/** Counts every table the target already has; any row (other than what migrations seed) refuses the move. */
async function refuseNonEmpty(target: pg.Client): Promise<void> {
  const { rows: tables } = await target.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY 1`,
  );
  const holding: string[] = [];
  for (const { name } of tables) {
    if (SEEDED_BY_MIGRATIONS.has(name)) continue;
    const { rows } = await target.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${ident(name)}) AS any`);
    if (rows[0].any) holding.push(name);
  }
  if (holding.length) {
    const shown = holding.slice(0, 5).join(', ') + (holding.length > 5 ? `, and ${holding.length - 5} more` : '');
    throw new OpsError(
      `the target database is not empty (rows in ${shown}); move-to-postgres only copies into an empty database: create a new one (createdb) or drop this one's tables first`,
    );
  }
}

/** After migrating, a target table the source does not have is someone else's: refuse rather than mix. */
async function refuseUnknownTables(target: pg.Client, known: string[]): Promise<void> {
  const { rows } = await target.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND NOT (c.relname = ANY($1::text[])) AND c.relname <> 'schema_migrations'`,
    [known],
  );
  if (rows.length) {
    throw new OpsError(`the target database has tables Spyglass does not know (${rows.map((r) => r.name).join(', ')}); use an empty database`);
  }
}

/** Reads the source table through a cursor and writes it in batches; returns the rows copied. */
async function copyTable(pglite: PGliteClient, target: pg.Client, table: TableInfo): Promise<number> {
  const list = table.insertable.map(ident).join(', ');
  const insert = `INSERT INTO ${ident(table.name)} (${list}) OVERRIDING SYSTEM VALUE
    SELECT ${list} FROM json_populate_recordset(NULL::${ident(table.name)}, $1::json)`;
  let copied = 0;
  await pglite.transaction(async (tx: PgliteQueries) => {
    await tx.query(`DECLARE move_rows NO SCROLL CURSOR FOR SELECT row_to_json(t)::text AS row FROM ${ident(table.name)} t`);
    let batch: string[] = [];
    let chars = 0;
    const flush = async () => {
      if (!batch.length) return;
      await target.query(insert, [`[${batch.join(',')}]`]);
      copied += batch.length;
      batch = [];
      chars = 0;
    };
    for (;;) {
      const { rows } = await tx.query<{ row: string }>(`FETCH ${BATCH_ROWS} FROM move_rows`);
      for (const r of rows) {
        batch.push(r.row);
        chars += r.row.length;
        if (batch.length >= BATCH_ROWS || chars >= BATCH_CHARS) await flush();
      }
      if (rows.length < BATCH_ROWS) break;
    }
    await flush();
    await tx.query('CLOSE move_rows');
  });
  return copied;
}

/**
 * Row count and an order-independent checksum of every column's text (the sum of the
 * first 60 bits of each row's MD5), computed by the same SQL on both sides.
 */
async function checksum(db: PGliteClient | pg.Client, table: TableInfo): Promise<{ rows: number; sum: string }> {
  const row = `ROW(${table.columns.map((c) => `t.${ident(c)}`).join(', ')})::text`;
  const query = `SELECT count(*)::text AS rows, coalesce(sum(('x' || left(md5(${row}), 15))::bit(60)::bigint), 0)::text AS sum
    FROM ${ident(table.name)} t`;
  const result = await (db as pg.Client).query<{ rows: string; sum: string }>(query);
  return { rows: Number(result.rows[0].rows), sum: result.rows[0].sum };
}

/** Sequences (bigserial columns) continue where the source's stopped: new rows never reuse an id. */
async function copySequences(pglite: PGliteClient, target: pg.Client): Promise<void> {
  const { rows } = await pglite.query<{ name: string; last: string | null }>(
    `SELECT sequencename AS name, last_value::text AS last FROM pg_sequences WHERE schemaname = 'public'`,
  );
  for (const s of rows) {
    if (s.last !== null) await target.query(`SELECT setval($1::regclass, $2::bigint, true)`, [ident(s.name), s.last]);
  }
}

/** The xid8 columns below; a new one must be placed in renumberTransactionIds before a move can keep its meaning. */
const XID8_COLUMNS = ['events.txid', 'webhook_endpoints.created_txid', 'webhook_outbox_cursor.last_txid'];

/**
 * Transaction ids (xid8) are the source cluster's counter; the target's counter is
 * elsewhere, and the webhook outbox compares them with it (an endpoint gets the events of
 * transactions after its own; the dispatcher's cursor only moves forward). The ids are
 * renumbered below the target's current transaction, keeping their order where it still
 * matters: everything the dispatcher has passed collapses to one id just below the
 * cursor's, and the cursor, the events it has not passed and the endpoints created since
 * keep their relative order. Events written after the move then sort after all of them.
 */
async function renumberTransactionIds(pglite: PGliteClient, target: pg.Client): Promise<void> {
  const { rows: found } = await pglite.query<{ col: string }>(
    `SELECT c.relname || '.' || a.attname AS col FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND a.atttypid = 'xid8'::regtype AND NOT a.attisdropped ORDER BY 1`,
  );
  const unknown = (found as { col: string }[]).map((r) => r.col).filter((c) => !XID8_COLUMNS.includes(c));
  if (unknown.length) throw new OpsError(`cannot move transaction ids of ${unknown.join(', ')}: this version does not know what they mean`);

  const { rows: cursorRows } = await target.query<{ txid: string }>(`SELECT last_txid::text AS txid FROM webhook_outbox_cursor WHERE id = 1`);
  const cursor = cursorRows[0]?.txid ?? '0';
  const { rows: live } = await target.query<{ txid: string }>(
    `SELECT txid::text FROM (
        SELECT $1::xid8 AS txid
        UNION SELECT txid FROM events WHERE txid >= $1::xid8
        UNION SELECT created_txid FROM webhook_endpoints WHERE created_txid >= $1::xid8) v
      ORDER BY txid`,
    [cursor],
  );
  const { rows: now } = await target.query<{ txid: string }>(`SELECT pg_current_xact_id()::text AS txid`);
  const current = BigInt(now[0].txid);
  // 3 is the first normal transaction id; the collapsed past takes one below the first live one.
  const first = current - BigInt(live.length);
  if (first - 1n < 3n) {
    throw new OpsError(
      `the target cluster's transaction counter (${current}) is too young to hold the ${live.length} webhook events still waiting in the outbox; start the server on PGlite once to let the dispatcher send them, then move again`,
    );
  }
  await target.query(`CREATE TEMP TABLE move_txids (old xid8 PRIMARY KEY, new xid8 NOT NULL) ON COMMIT DROP`);
  await target.query(
    `INSERT INTO move_txids SELECT v.txid::xid8, ($2::numeric + v.n - 1)::text::xid8 FROM unnest($1::text[]) WITH ORDINALITY v(txid, n)`,
    [live.map((r) => r.txid), first.toString()],
  );
  const past = (first - 1n).toString();
  await target.query(
    `UPDATE events e SET txid = coalesce((SELECT new FROM move_txids WHERE old = e.txid), $1::xid8)`,
    [past],
  );
  await target.query(
    `UPDATE webhook_endpoints e SET created_txid = coalesce((SELECT new FROM move_txids WHERE old = e.created_txid), $1::xid8)`,
    [past],
  );
  await target.query(`UPDATE webhook_outbox_cursor c SET last_txid = (SELECT new FROM move_txids WHERE old = c.last_txid)`);
}
