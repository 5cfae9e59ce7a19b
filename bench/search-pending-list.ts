/**
 * `node --import tsx bench/search-pending-list.ts [default|off|limit<kB>]`: what the
 * full-text index's pending list costs on PGlite, in this process (so process CPU is
 * PGlite's). A table with the trace summaries' generated tsvector and its GIN index (with
 * PostgreSQL's default pending list of 4 MB, with fastupdate off, or with the list merged at
 * <kB>), 150 writes of 200 rows through json_to_recordset as ingest writes them, and after
 * each a text search as the traces list runs it; prints the CPU ms of the writes (sum, p50,
 * p95, max) and of the searches. Ingest sets 256 kB (src/modules/traces/store.ts).
 */
import { PGlite } from '@electric-sql/pglite';

const mode = process.argv[2] ?? 'default';
const db = new PGlite();
await db.exec(`CREATE TABLE t (id int PRIMARY KEY, search_text text, search_tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', search_text)) STORED)`);
const storage = mode === 'off' ? ' WITH (fastupdate = off)' : mode.startsWith('limit') ? ` WITH (gin_pending_list_limit = ${Number(mode.slice(5))})` : '';
await db.exec(`CREATE INDEX t_fulltext ON t USING gin (search_tsv)${storage}`);
const TOPICS = ['refund policy', 'shipping times', 'order status', 'password reset', 'invoice copy', 'cancel subscription', 'change address', 'warranty claim'];
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
let id = 0;
const writes: number[] = [];
const searches: number[] = [];
for (let b = 0; b < 150; b++) {
  const rows = Array.from({ length: 200 }, () => {
    const n = id++;
    const q = TOPICS[n % TOPICS.length];
    return { id: n, s: `Customer ${n} asks about ${q}\nHere is what I found about ${q} for order ${n}.` };
  });
  const w0 = cpuMs();
  await db.query(`INSERT INTO t (id, search_text) SELECT x.id, x.s FROM json_to_recordset($1::json) AS x(id int, s text)`, [JSON.stringify(rows)]);
  writes.push(cpuMs() - w0);
  const s0 = cpuMs();
  await db.query(`SELECT id FROM t WHERE search_tsv @@ plainto_tsquery('simple', 'order 4242') ORDER BY id DESC LIMIT 50`);
  searches.push(cpuMs() - s0);
}
const stats = (a: number[]) => {
  const x = [...a].sort((p, q) => p - q);
  const at = (f: number) => x[Math.min(x.length - 1, Math.floor(x.length * f))].toFixed(1);
  return `sum ${a.reduce((p, q) => p + q, 0).toFixed(0)}, p50 ${at(0.5)}, p95 ${at(0.95)}, max ${x[x.length - 1].toFixed(1)}`;
};
console.log(`${mode}: writes of 200 rows, CPU ms: ${stats(writes)}; text searches, CPU ms: ${stats(searches)}`);
await db.close();
