import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql, type SQL } from 'drizzle-orm';
import { rows } from '../src/db/index.ts';
import { median, percentile, type BenchServer } from './lib.ts';
import { otlpRequest } from './otlp-payloads.ts';

const post = async (s: BenchServer, body: Buffer) => {
  const res = await fetch(`${s.baseUrl}/api/otel/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${s.creds.projectApiKey}` },
    body,
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`ingest answered ${res.status}`);
};

/**
 * Ingest throughput: 100-span protobuf requests from `clients` client processes, each with
 * `inFlight` requests in flight; every answer comes after the commit. Wall time from the first
 * request sent to the last answer received.
 */
export async function benchIngest(
  s: BenchServer,
  opts: {
    requests: number;
    clients: number;
    inFlight: number;
    firstTrace: number;
    salt: number;
    transport?: 'http' | 'grpc';
    /** The requests' bodies (default: otlpRequest's GenAI spans); the privacy bench sends spans carrying 2 KB of text. */
    body?: (firstTrace: number, spansPerRequest: number, spansPerTrace: number, startMs: number, salt: number) => Buffer;
  },
  /** Called as the measured stretch starts and ends (bench/ingest-median.ts measures CPU time over it). */
  window?: { start(): void | Promise<void>; end(): void | Promise<void> },
) {
  const spansPerRequest = 100;
  const spansPerTrace = 5;
  const tracesPerRequest = spansPerRequest / spansPerTrace;
  // One trace a second, ids up to 10,100,000 (the fill and warm-up start at 10,000,000):
  // all of it lies in the past, since ingest refuses spans from the future.
  const start = Date.now() - 150 * 86_400_000;
  const body = opts.body ?? otlpRequest;
  const bodies = Array.from({ length: opts.requests }, (_, i) => body(opts.firstTrace + i * tracesPerRequest, spansPerRequest, spansPerTrace, start, opts.salt));
  // Warm-up (JIT, connection pools) outside the measurement.
  for (let i = 0; i < 5; i++) await post(s, body(10_000_000 + opts.firstTrace + i * 20, spansPerRequest, spansPerTrace, start, opts.salt + 1));
  const shares = Array.from({ length: opts.clients }, (_, c) => bodies.filter((_, i) => i % opts.clients === c));
  const url = opts.transport === 'grpc' ? s.grpcUrl : `${s.baseUrl}/api/otel/v1/traces`;
  const clients = shares.map((share) => startClient(url, s.creds.projectApiKey, share, opts.inFlight));
  await Promise.all(clients.map((c) => c.ready));
  await window?.start();
  const t0 = performance.now();
  clients.forEach((c) => c.go());
  const reports = await Promise.all(clients.map((c) => c.done));
  const seconds = (performance.now() - t0) / 1000;
  await window?.end();
  const failures = reports.reduce((n, r) => n + r.failures, 0);
  if (failures) throw new Error(`${failures} ingest requests failed`);
  const latencies = reports.flatMap((r) => r.latencies);
  const spans = opts.requests * spansPerRequest;
  return { spans, seconds, spansPerSecond: spans / seconds, requestP50: median(latencies), requestP95: percentile(latencies, 95) };
}

function startClient(url: string, token: string, bodies: Buffer[], concurrency: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(path.dirname(fileURLToPath(import.meta.url)), 'ingest-client.ts')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout.on('data', (d) => {
    out += d;
    if (out.startsWith('ready\n')) onReady();
  });
  const done = new Promise<{ latencies: number[]; failures: number }>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.slice('ready\n'.length))) : reject(new Error(`client exited ${code}`))));
  });
  child.stdin.write(JSON.stringify({ url, token, concurrency, bodies: bodies.map((b) => b.toString('base64')) }) + '\n');
  return { ready, done, go: () => child.stdin.end('go\n') };
}

/** Columns of the spans table, in the order the raw insert names them. */
const SPAN_COLUMNS = [
  'project_id', 'trace_id', 'span_id', 'parent_id', 'name', 'type', 'model', 'model_name', 'vendor', 'started_at', 'finished_at',
  'first_token_at', 'inserted_at', 'updated_at', 'prompt_tokens', 'completion_tokens', 'cached_input_tokens', 'reasoning_tokens',
  'tokens_estimated', 'cost', 'has_error', 'error', 'input_text', 'output_text', 'trace_meta', 'data', 'day',
];
/** JSON columns with their type: each value is cast to its column's own (a jsonb cast into the json `data` cost the raw insert ~5 %). */
const JSON_COLUMNS = new Map([
  ['error', 'jsonb'],
  ['trace_meta', 'jsonb'],
  ['data', 'json'],
]);

/**
 * The raw rate at which the same database accepts the same rows: the spans table's rows
 * (those ingest just wrote, up to `sampleRows`) inserted again with plain multi-row
 * `INSERT ... VALUES` statements of `rowsPerStatement` rows, one parameter per value, into a
 * scratch table of the same shape and indexes, each statement its own transaction (a durable
 * commit each, as ingest's), one after another on one connection: no decoding, mapping,
 * summaries, events or upserts. The rows are read and their parameters built before the clock starts.
 */
export async function benchRawInsert(s: BenchServer, sampleRows: number, rowsPerStatement = 100) {
  const db = s.db.orm;
  await db.execute(sql`DROP TABLE IF EXISTS bench_raw_spans`);
  await db.execute(sql`CREATE TABLE bench_raw_spans (LIKE spans INCLUDING ALL)`);
  const source = await rows<Record<string, unknown>>(
    db,
    sql.raw(`SELECT ${SPAN_COLUMNS.map((c) => (JSON_COLUMNS.has(c) ? `${c}::text AS ${c}` : c)).join(', ')} FROM spans ORDER BY trace_id, span_id LIMIT ${sampleRows}`),
  );
  const statements: SQL[] = [];
  for (let i = 0; i < source.length; i += rowsPerStatement) {
    const tuples = source.slice(i, i + rowsPerStatement).map(
      (r, j) => sql`(${sql.join(SPAN_COLUMNS.map((c) => (c === 'span_id' ? sql`${`raw${i + j}`}` : JSON_COLUMNS.has(c) ? sql`${r[c]}::${sql.raw(JSON_COLUMNS.get(c)!)}` : sql`${r[c]}`)), sql`, `)})`,
    );
    statements.push(sql`INSERT INTO bench_raw_spans (${sql.raw(SPAN_COLUMNS.join(', '))}) VALUES ${sql.join(tuples, sql`, `)}`);
  }
  const t0 = performance.now();
  for (const statement of statements) await db.execute(statement);
  const seconds = (performance.now() - t0) / 1000;
  await db.execute(sql`DROP TABLE bench_raw_spans`);
  return { rows: source.length, seconds, rowsPerSecond: source.length / seconds };
}

export async function benchSearch(s: BenchServer, iterations: number) {
  const bodies = [
    {},
    { query: 'refund policy' },
    { query: 'order 4242' },
    { filters: { user_id: 'user-42' } },
    { filters: { model: 'gpt-4o-mini', span_type: 'tool' }, pageSize: 50 },
    { sortBy: 'metrics.total_cost', sortDirection: 'desc' },
    { sortBy: 'latency', filters: { has_error: false } },
    { query: 'shipping', filters: { user_id: ['user-1', 'user-2', 'user-3'] } },
  ];
  const latencies: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const body = bodies[i % bodies.length];
    const t0 = performance.now();
    const res = await fetch(`${s.baseUrl}/api/trace/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${s.creds.projectApiKey}` },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as { pagination: { scrollId: string | null } };
    if (res.status !== 200) throw new Error(`search answered ${res.status}`);
    // A second page exercises the keyset cursor.
    if (json.pagination.scrollId && i % 4 === 0) {
      await fetch(`${s.baseUrl}/api/trace/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${s.creds.projectApiKey}` },
        body: JSON.stringify({ ...body, scrollId: json.pagination.scrollId }),
      }).then((r) => r.arrayBuffer());
    }
    latencies.push(performance.now() - t0);
  }
  return { p50: median(latencies), p95: percentile(latencies, 95) };
}

/** The id of benchDetail's big trace. */
export const DETAIL_TRACE_ID = (0xbeef).toString(16).padStart(8, '0') + (1).toString(16).padStart(24, '0');

/** A 10,000-span trace ingested in 100-span requests, then read back whole. */
export async function benchDetail(s: BenchServer, spans: number, reads: number) {
  const start = Date.now() - 86_400_000;
  const salt = 0xbeef;
  for (let first = 0; first < spans; first += 100) await post(s, otlpRequest(0, 100, spans, start, salt, first));
  const traceId = DETAIL_TRACE_ID;
  const latencies: number[] = [];
  let bytes = 0;
  for (let i = 0; i < reads; i++) {
    const t0 = performance.now();
    const res = await fetch(`${s.baseUrl}/api/trace/${traceId}`, { headers: { authorization: `Bearer ${s.creds.projectApiKey}` } });
    const body = await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`detail answered ${res.status}`);
    latencies.push(performance.now() - t0);
    bytes = body.byteLength;
  }
  const [{ n }] = await rows<{ n: number }>(s.db.orm, sql`SELECT span_count AS n FROM traces WHERE trace_id = ${traceId}`);
  if (Number(n) !== spans) throw new Error(`expected ${spans} spans, trace has ${n}`);
  return { spans, p50: median(latencies), p95: percentile(latencies, 95), bytes };
}
