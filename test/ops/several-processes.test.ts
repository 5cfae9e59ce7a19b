import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, openTestDatabase, request, type ApiResponse } from '../support/harness.ts';
import { signalTree, startServer, useTmpDirs, type Running } from '../support/server-process.ts';
import { sessionCookieOf } from '../support/sessions.ts';
import { Receiver } from '../webhooks/receiver.ts';

/**
 * Two server processes on one PostgreSQL, as docs/operating.md ("Scaling out") sets them up
 * (shared keys, one database): whatever a client sends through either is stored once,
 * background work runs once, and a browser session works on both.
 * `BENCH_ONLY=soak npm run bench` sends ten times as many traces
 * (SPYGLASS_SOAK, which only that bench sets).
 */
const LONG = process.env.SPYGLASS_SOAK === '1';
const TRACES = LONG ? 2_000 : 200;
const SWEEP_SECONDS = 1;

describe.skipIf(!databaseKinds.includes('postgres'))('two server processes on one PostgreSQL', () => {
  const tmp = useTmpDirs();
  let receiver: Receiver;
  let servers: Running[] = [];
  let drop: () => Promise<void>;
  let projectId: string;
  const projectKey = `sgp-${alnum(16)}_${alnum(48)}`;
  const adminKey = `sg-${alnum(16)}_${alnum(48)}`;
  const user = { email: 'ops@example.com', password: 'correct horse battery' };

  const call = (server: Running, method: string, url: string, opts: Parameters<typeof request>[3] = {}) => request(server.baseUrl, method, url, opts);
  const asProject = { authToken: projectKey };
  const asAdmin = () => ({ token: adminKey, projectId });

  beforeAll(async () => {
    receiver = await Receiver.start();
    const database = await openTestDatabase('postgres');
    drop = database.drop;
    const shared = {
      DATABASE_URL: database.url!,
      SPYGLASS_TOKEN_HASH_KEY: randomBytes(32).toString('base64'),
      SPYGLASS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      SPYGLASS_INIT_PROJECT_API_KEY: projectKey,
      SPYGLASS_INIT_ADMIN_API_KEY: adminKey,
      SPYGLASS_INIT_USER_EMAIL: user.email,
      SPYGLASS_INIT_USER_PASSWORD: user.password,
      SPYGLASS_WEBHOOK_ALLOW_PRIVATE: '1',
      SPYGLASS_WEBHOOK_POLL_MS: '100',
      SPYGLASS_METRICS_PUBLIC: '1',
      SPYGLASS_MONITOR_SETTLE_SECONDS: '1',
      SPYGLASS_RETENTION_SWEEP_SECONDS: String(SWEEP_SECONDS),
      SPYGLASS_CACHE_SWEEP_SECONDS: String(SWEEP_SECONDS),
      LOG_LEVEL: 'warn',
    };
    // The first start sets the database up; the second process finds it set up.
    const first = tmp();
    servers.push(await startServer({ ...shared, SPYGLASS_DATA_DIR: first }));
    servers.push(await startServer({ ...shared, SPYGLASS_DATA_DIR: tmp() }));
    projectId = JSON.parse(fs.readFileSync(path.join(first, 'initial-credentials.json'), 'utf8')).project.id;
  }, 120_000);

  afterAll(async () => {
    for (const s of servers) signalTree(s.child.pid!, 'SIGTERM');
    await Promise.all(servers.map((s) => s.exited));
    servers = [];
    await receiver?.close();
    await drop?.();
  });

  it('a browser session made on one process works on the other', async () => {
    const [a, b] = servers;
    const signedIn = await call(a, 'POST', '/api/auth/signin', { body: user });
    expect(signedIn.status, signedIn.text).toBe(200);
    const cookie = sessionCookieOf(signedIn)!;
    const onB = await call(b, 'GET', '/api/auth/session', { headers: { cookie } });
    expect(onB.status, onB.text).toBe(200);
    expect(onB.body.user.email).toBe(user.email);
    // A change made with it on B (CSRF token included) is seen on A.
    const annotated = await call(b, 'POST', '/api/annotations/trace/any-trace', {
      headers: { cookie, 'x-csrf-token': signedIn.body.csrfToken, 'x-project-id': projectId },
      body: { comment: 'seen from both', isThumbsUp: true },
    });
    expect(annotated.status, annotated.text).toBe(200);
    const onA = await call(a, 'GET', '/api/annotations/trace/any-trace', { authToken: projectKey });
    expect(onA.body.data.map((x: { comment: string }) => x.comment)).toEqual(['seen from both']);
    // Signing out on A ends it on B at once.
    expect((await call(a, 'POST', '/api/auth/signout', { headers: { cookie, 'x-csrf-token': signedIn.body.csrfToken } })).status).toBe(200);
    expect((await call(b, 'GET', '/api/auth/session', { headers: { cookie } })).status).toBe(401);
  });

  it('ingest through both: nothing lost, nothing twice; each webhook batch delivered once; each monitor job run once', async () => {
    const [a, b] = servers;
    const endpoint = await call(a, 'POST', '/api/webhooks/v1/endpoints', { ...asAdmin(), body: { url: receiver.url, enabled_events: ['trace.created'] } });
    expect(endpoint.status, endpoint.text).toBe(201);
    const monitor = await call(b, 'POST', '/api/monitors', {
      ...asProject,
      body: { name: 'Competitor watch', evaluator: 'llm/competitor_blocklist', settings: { competitors: ['Acme'] }, filters: { labels: 'watched' } },
    });
    expect(monitor.status, monitor.text).toBe(200);
    // Each process keeps a project's monitors for 2 s: the one that did not create it learns of it by then.
    await sleep(2_500);

    const now = Date.now();
    const watched = (i: number) => i % 10 === 0;
    const span = (trace: string, id: string, parent: string | null, i: number) => ({
      span_id: id,
      parent_id: parent,
      type: id.endsWith('root') ? 'llm' : 'span',
      input: { type: 'text', value: `question ${i}: try Acme` },
      timestamps: { started_at: now - 5_000 + i, finished_at: now - 1_000 + i },
    });
    // Every trace gets spans from both processes, and its root twice (a retrying exporter).
    const sends: (() => Promise<ApiResponse>)[] = [];
    for (let i = 0; i < TRACES; i++) {
      const trace = `mp-${i}`;
      const body = (spans: object[]) => ({ trace_id: trace, metadata: { labels: watched(i) ? ['watched'] : [] }, spans });
      const root = span(trace, `${trace}-root`, null, i);
      sends.push(() => call(a, 'POST', '/api/collector', { ...asProject, body: body([root, span(trace, `${trace}-a`, `${trace}-root`, i)]) }));
      sends.push(() => call(b, 'POST', '/api/collector', { ...asProject, body: body([root, span(trace, `${trace}-b`, `${trace}-root`, i)]) }));
    }
    const answers = await inParallel(sends, 16);
    expect(answers.filter((r) => r.status !== 200).map((r) => r.text)).toEqual([]);

    // Nothing lost, nothing twice: every trace, with its three spans, seen the same from both.
    for (const server of [a, b]) {
      const found = await call(server, 'POST', '/api/trace/search', { ...asProject, body: { pageSize: 1000, filters: {} } });
      expect(found.body.pagination.totalHits).toBe(TRACES);
      const all = [...found.body.traces];
      let scrollId = found.body.pagination.scrollId;
      while (scrollId) {
        const next = await call(server, 'POST', '/api/trace/search', { ...asProject, body: { pageSize: 1000, filters: {}, scrollId } });
        all.push(...next.body.traces);
        scrollId = next.body.pagination.scrollId;
      }
      expect(new Set(all.map((t) => t.trace_id)).size).toBe(TRACES);
      expect(all.every((t) => t.span_count === 3)).toBe(true);
    }
    const detail = await call(b, 'GET', '/api/trace/mp-7', asProject);
    expect(detail.body.spans.map((s: { span_id: string }) => s.span_id).sort()).toEqual(['mp-7-a', 'mp-7-b', 'mp-7-root']);

    // Webhooks: one trace.created per trace, each event in one delivery, each batch sent once.
    await until(() => receivedEvents().length >= TRACES, 60_000);
    await sleep(1_500); // a second sender would show up by now
    const events = receivedEvents();
    expect(events.length).toBe(TRACES);
    expect(new Set(events.map((e) => e.id)).size).toBe(TRACES);
    expect(new Set(events.map((e) => e.data.trace_id)).size).toBe(TRACES);
    const batchIds = receiver.received.map((r) => r.headers['webhook-id']);
    expect(new Set(batchIds).size).toBe(batchIds.length);

    // Monitors: each watched trace evaluated exactly once, whichever process ran its job.
    const watchedIds = Array.from({ length: TRACES }, (_, i) => i).filter(watched).map((i) => `mp-${i}`);
    const evaluationsOf = async (id: string) => (await call(a, 'GET', `/api/trace/${id}`, asProject)).body.evaluations as unknown[];
    await until(async () => (await Promise.all(watchedIds.map(evaluationsOf))).every((e) => e.length >= 1), 90_000);
    await sleep(3_000); // a job run twice would add a second evaluation by now
    for (const id of watchedIds) expect((await evaluationsOf(id)).length, id).toBe(1);
    const finished = await sumMetric(servers, 'spyglass_jobs_finished_total', { queue: 'monitor.evaluate', outcome: 'done' });
    expect(finished).toBe(watchedIds.length);
  }, 300_000);

  it('retention and cache sweeps run once per period across both processes', async () => {
    const [a, b] = servers;
    // An old trace, and a project keeping 1 day: the next retention round deletes it.
    const old = Date.now() - 3 * 86_400_000;
    const sent = await call(b, 'POST', '/api/collector', {
      ...asProject,
      body: { trace_id: 'mp-old', spans: [{ span_id: 'o', type: 'span', timestamps: { started_at: old, finished_at: old + 10 } }] },
    });
    expect(sent.status).toBe(200);
    expect((await call(a, 'PATCH', `/api/projects/${projectId}`, { token: adminKey, body: { retentionDays: 1 } })).status).toBe(200);

    const runs = (task: string) => sumMetric(servers, 'spyglass_periodic_runs_total', { task });
    const before = { retention: await runs('trace retention'), cache: await runs('agent cache expiry') };
    const started = Date.now();
    await sleep(6_000);
    const after = { retention: await runs('trace retention'), cache: await runs('agent cache expiry') };
    const elapsed = (Date.now() - started) / 1000;
    // One round per period at most (claims are spaced by 95 % of it), however many processes;
    // each process on its own would make about twice as many.
    const most = Math.floor(elapsed / (SWEEP_SECONDS * 0.95)) + 1;
    for (const task of ['retention', 'cache'] as const) {
      const made = after[task] - before[task];
      expect(made, task).toBeGreaterThanOrEqual(1);
      expect(made, task).toBeLessThanOrEqual(most);
    }
    expect((await call(a, 'GET', '/api/trace/mp-old', asProject)).status).toBe(404);
    expect((await call(b, 'GET', '/api/trace/mp-7', asProject)).status).toBe(200);
  }, 60_000);

  function receivedEvents() {
    return receiver.received.flatMap((r) => r.json.batch.filter((e) => e.type === 'trace.created'));
  }
});

async function sumMetric(servers: Running[], name: string, labels: Record<string, string>): Promise<number> {
  let sum = 0;
  for (const s of servers) {
    const text = await (await fetch(`${s.baseUrl}/metrics`)).text();
    for (const line of text.split('\n')) {
      if (!line.startsWith(`${name}{`)) continue;
      if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) sum += Number(line.split(' ').pop());
    }
  }
  return sum;
}

async function inParallel<T>(tasks: (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const i = next++;
        results[i] = await tasks[i]();
      }
    }),
  );
  return results;
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(100);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alnum(n: number): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(n), (x) => chars[x % chars.length]).join('');
}
