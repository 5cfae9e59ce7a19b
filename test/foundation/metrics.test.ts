import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/logging.ts';
import { appDatabaseKinds, ManualClock, startApp, type DatabaseKind, type TestApp, JOBS_RUN_BY_HAND } from '../support/harness.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { admin, dispatcherOf, WEBHOOK_TEST_ENV } from '../webhooks/support.ts';

/** One sample of a Prometheus text exposition. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k] = v;
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

/** The summed value of the samples named `name` whose labels include `labels` (0 when none). */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

function captureLogs() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { logger: createLogger('info', stream), lines };
}

/**
 * The file's database per kind, opened by the first block's app: the last block's app (public
 * metrics) reopens it once the first has stopped, instead of opening one (about 2 s of CPU on
 * PGlite). Closed after the file.
 */
const firstApps = new Map<DatabaseKind, TestApp>();
afterAll(async () => {
  for (const app of firstApps.values()) await app.close();
});

describe.each(appDatabaseKinds)('GET /metrics and request ids (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let receiver: Receiver;
  const clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
  const logs = captureLogs();
  beforeAll(async () => {
    receiver = await Receiver.start();
    t = await startApp(kind, { clock, env: { ...WEBHOOK_TEST_ENV, ...JOBS_RUN_BY_HAND }, logger: logs.logger });
    firstApps.set(kind, t);
    key = t.creds.projectApiKey;
  });
  afterAll(async () => {
    // Stopped (its requests and timers end); its database stays for the last block.
    await t?.stop();
    await receiver.close();
  });

  const scrape = async () => {
    const res = await t.request('GET', '/metrics', { token: t.creds.adminApiKey });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseExposition(res.text);
  };
  const now = () => clock.now().getTime();
  const collect = (traceId: string, text: string, labels: string[] = []) =>
    t.request('POST', '/api/collector', {
      authToken: key,
      body: {
        trace_id: traceId,
        metadata: { labels },
        spans: [
          { span_id: `${traceId}-a`, type: 'llm', input: { type: 'text', value: text }, timestamps: { started_at: now() - 2000, finished_at: now() - 1000 } },
          { span_id: `${traceId}-b`, type: 'span', parent_id: `${traceId}-a`, timestamps: { started_at: now() - 1900, finished_at: now() - 1100 } },
        ],
      },
    });

  it('needs metrics:view: 401 without credentials, 403 for project keys and keys without it, 200 for an admin or a key granted it', async () => {
    expect((await t.request('GET', '/metrics')).status).toBe(401);
    expect((await t.request('GET', '/metrics', { token: key })).status).toBe(403);
    const mint = async (permissions: string[]) =>
      (await t.request('POST', '/api/api-keys', { token: t.creds.adminApiKey, body: { name: 'scraper', keyType: 'service', permissionMode: 'restricted', permissions } }))
        .body.token as string;
    const promptsOnly = await mint(['prompts:view']);
    const scraper = await mint(['metrics:view']);
    const refused = await t.request('GET', '/metrics', { token: promptsOnly });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('metrics:view');
    const ok = await t.request('GET', '/metrics', { token: scraper });
    expect(ok.status).toBe(200);
    // A key that may read metrics reads no project's data.
    expect((await t.request('GET', '/api/trace/x', { token: scraper, projectId: t.creds.project.id })).status).toBe(403);
    // Process figures are there (memory).
    expect(valueOf(parseExposition(ok.text), 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(valueOf(parseExposition(ok.text), 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it('counts requests and their latency by route template and status', async () => {
    await t.request('GET', '/api/trace/no-such-trace', { token: key });
    await t.request('GET', '/api/trace/another-missing', { token: key });
    await t.request('GET', '/no/such/route/at/all');
    const s = await scrape();
    const route = { method: 'GET', route: '/api/trace/:id', status: '404' };
    expect(valueOf(s, 'spyglass_http_requests_total', route)).toBe(2);
    expect(valueOf(s, 'spyglass_http_request_duration_seconds_count', route)).toBe(2);
    expect(valueOf(s, 'spyglass_http_request_duration_seconds_bucket', { ...route, le: '+Inf' })).toBe(2);
    expect(valueOf(s, 'spyglass_http_requests_total', { route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    // Paths never become labels.
    expect(s.some((x) => Object.values(x.labels).some((v) => v.includes('no-such-trace')))).toBe(false);
  });

  it('counts spans ingested and rejected, and shows the ingest queue', async () => {
    const before = await scrape();
    expect((await collect('m-1', 'hello')).status).toBe(200);
    const future = await t.request('POST', '/api/collector', {
      authToken: key,
      body: { trace_id: 'm-future', spans: [{ span_id: 'f', type: 'span', timestamps: { started_at: now() + 3 * 86_400_000, finished_at: now() + 3 * 86_400_000 + 5 } }] },
    });
    expect(future.status).toBe(400);
    const after = await scrape();
    expect(valueOf(after, 'spyglass_spans_ingested_total') - valueOf(before, 'spyglass_spans_ingested_total')).toBe(2);
    expect(valueOf(after, 'spyglass_spans_rejected_total', { reason: 'invalid' }) - valueOf(before, 'spyglass_spans_rejected_total', { reason: 'invalid' })).toBe(1);
    // Nothing is waiting between requests.
    expect(after.find((x) => x.name === 'spyglass_ingest_queue_requests')?.value).toBe(0);
    expect(after.find((x) => x.name === 'spyglass_ingest_queue_spans')?.value).toBe(0);
  });

  it('shows jobs queued, running and finished, and evaluator runs by evaluator', async () => {
    const created = await t.request('POST', '/api/monitors', {
      token: key,
      body: { name: 'Competitor watch', evaluator: 'llm/competitor_blocklist', settings: { competitors: ['Acme'] }, filters: { labels: 'metrics' } },
    });
    expect(created.status, created.text).toBe(200);
    expect((await collect('m-job', 'Try Acme', ['metrics'])).status).toBe(200);
    let s = await scrape();
    expect(valueOf(s, 'spyglass_jobs', { queue: 'monitor.evaluate', state: 'queued' })).toBe(1);
    expect(valueOf(s, 'spyglass_jobs', { queue: 'monitor.evaluate', state: 'running' })).toBe(0);
    clock.advance(31_000);
    expect(await t.app.services.jobs.runDue()).toBe(1);
    s = await scrape();
    expect(valueOf(s, 'spyglass_jobs', { queue: 'monitor.evaluate', state: 'queued' })).toBe(0);
    expect(valueOf(s, 'spyglass_jobs_finished_total', { queue: 'monitor.evaluate', outcome: 'done' })).toBe(1);
    expect(valueOf(s, 'spyglass_evaluator_runs_total', { evaluator: 'llm/competitor_blocklist', status: 'processed' })).toBe(1);

    // Called directly too; a judge without a provider key ends in an error, counted by evaluator.
    const pii = await t.request('POST', '/api/evaluations/pii/pii_detection/evaluate', { authToken: key, body: { data: { input: 'call me at +1 415 555 2671' } } });
    expect(pii.status).toBe(200);
    const judge = await t.request('POST', '/api/evaluations/llm/off_topic/evaluate', {
      authToken: key,
      body: { data: { input: 'hello' }, settings: { model: 'openai/gpt-4o-mini', allowed_topics: [{ topic: 'weather', description: 'the weather' }] } },
    });
    expect(judge.status, judge.text).toBe(200);
    s = await scrape();
    expect(valueOf(s, 'spyglass_evaluator_runs_total', { evaluator: 'pii/pii_detection', status: 'processed' })).toBe(1);
    expect(valueOf(s, 'spyglass_evaluator_duration_seconds_count', { evaluator: 'pii/pii_detection' })).toBe(1);
    const judgeStatus = judge.body[0].status as string;
    expect(valueOf(s, 'spyglass_evaluator_runs_total', { evaluator: 'llm/off_topic', status: judgeStatus })).toBe(1);
    if (judgeStatus === 'error') expect(valueOf(s, 'spyglass_evaluator_errors_total', { evaluator: 'llm/off_topic' })).toBe(1);
  });

  it('shows the webhook outbox depth and delivery outcomes', async () => {
    const endpoint = await admin(t).createEndpoint({ url: receiver.url, enabled_events: ['trace.created'] });
    expect(endpoint.status, endpoint.text).toBe(201);
    expect((await collect('m-hook', 'hi')).status).toBe(200);
    let s = await scrape();
    expect(valueOf(s, 'spyglass_webhook_outbox_depth')).toBeGreaterThanOrEqual(1);
    await dispatcherOf(t).drain();
    expect(receiver.received.length).toBeGreaterThanOrEqual(1);
    s = await scrape();
    expect(valueOf(s, 'spyglass_webhook_outbox_depth')).toBe(0);
    expect(valueOf(s, 'spyglass_webhook_batches_pending')).toBe(0);
    expect(valueOf(s, 'spyglass_webhook_deliveries_total', { outcome: 'delivered' })).toBe(receiver.received.length);
  });

  it('shows the database connections', async () => {
    const s = await scrape();
    expect(valueOf(s, 'spyglass_db_pool_connections', { state: 'max' })).toBe(kind === 'postgres' ? 5 : 1);
    expect(valueOf(s, 'spyglass_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
  });

  describe('request ids', () => {
    const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

    it("answer the caller's x-request-id, else the traceparent's trace id, else a new one; on errors too", async () => {
      const given = await t.request('GET', '/healthz', { headers: { 'x-request-id': 'lb-7f3a.42' } });
      expect(given.headers.get('x-request-id')).toBe('lb-7f3a.42');
      const traced = await t.request('GET', '/healthz', { headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } });
      expect(traced.headers.get('x-request-id')).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
      const a = (await t.request('GET', '/healthz')).headers.get('x-request-id')!;
      const b = (await t.request('GET', '/healthz')).headers.get('x-request-id')!;
      expect(a).toMatch(ID);
      expect(b).toMatch(ID);
      expect(a).not.toBe(b);
      // Refused requests carry it as well.
      const refused = await t.request('GET', '/api/trace/x', { headers: { 'x-request-id': 'refused-1' } });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('x-request-id')).toBe('refused-1');
      // Something that could forge a log line or a header is not taken.
      const odd = await t.request('GET', '/healthz', { headers: { 'x-request-id': 'a b"c{}' + 'x'.repeat(200) } });
      expect(odd.headers.get('x-request-id')).toMatch(ID);
    });

    it('every log line of a request carries its request id', async () => {
      logs.lines.length = 0;
      const res = await t.request('GET', '/api/trace/x', { token: key, headers: { 'x-request-id': 'logged-req-1' } });
      expect(res.status).toBe(404);
      const mine = logs.lines.filter((l) => l.requestId === 'logged-req-1');
      expect(mine.map((l) => l.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
      // Lines about a request all name it.
      for (const line of logs.lines) if ('req' in line || 'res' in line) expect(line.requestId).toBeTypeOf('string');
      // Redaction still applies to them.
      logs.lines.length = 0;
      await t.request('GET', '/api/trace/x', { token: key, headers: { 'x-request-id': 'logged-req-2' } });
      expect(JSON.stringify(logs.lines)).not.toContain(key);
    });
  });
});

describe('GET /metrics with SPYGLASS_METRICS_PUBLIC=1', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp('pglite', { reopen: firstApps.get('pglite'), env: { SPYGLASS_METRICS_PUBLIC: '1' } });
  });
  afterAll(() => t.close());

  it('answers without credentials', async () => {
    const res = await t.request('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toContain('# TYPE spyglass_http_requests_total counter');
  });
});
