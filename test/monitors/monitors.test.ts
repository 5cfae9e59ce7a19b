import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { JobQueue, PermanentJobError } from '../../src/platform/jobs/index.ts';
import { z } from 'zod';
import { ENABLED_MONITORS_TTL_MS, MONITOR_QUEUE, monitorJobPayload, runMonitorJob } from '../../src/modules/monitors/index.ts';
import { appDatabaseKinds, ManualClock, startApp, type TestApp, JOBS_RUN_BY_HAND } from '../support/harness.ts';

const T0 = Date.parse('2026-11-21T09:00:00Z');

describe.each(appDatabaseKinds)('monitors: evaluators running by themselves on incoming traces (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  const clock = new ManualClock(T0);
  beforeAll(async () => {
    t = await startApp(kind, { clock, fresh: true, env: JOBS_RUN_BY_HAND });
    key = t.creds.projectApiKey;
  });
  afterAll(() => t.close());

  const trace = (id: string, text: string, labels: string[] = [], via: TestApp = t) =>
    via.request('POST', '/api/collector', {
      authToken: key,
      body: {
        trace_id: id,
        spans: [{ span_id: `${id}-1`, type: 'llm', model: 'gpt-4o-mini', input: { type: 'text', value: 'Which vendor?' }, output: { type: 'text', value: text }, timestamps: { started_at: T0, finished_at: T0 + 100 } }],
        metadata: { labels },
      },
    });
  const pendingJobs = async () => Number((await rows<{ n: number }>(t.db.orm, sql`SELECT count(*)::int AS n FROM jobs WHERE failed_at IS NULL`))[0].n);

  it('validates monitors naming the field', async () => {
    const post = (body: object) => t.request('POST', '/api/monitors', { token: key, body });
    const unknown = await post({ name: 'x', evaluator: 'nope/none' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.meta.field).toBe('evaluator');
    const badSettings = await post({ name: 'x', evaluator: 'rag/context_recall', settings: { distance_measure: 'manhattan' } });
    expect(badSettings.status).toBe(400);
    expect(badSettings.body.error.meta.field).toBe('settings.distance_measure');
    const badSample = await post({ name: 'x', evaluator: 'llm/competitor_blocklist', sample: 2 });
    expect(badSample.body.error.meta.field).toBe('body.sample');
    expect((await post({ evaluator: 'llm/competitor_blocklist' })).body.error.meta.field).toBe('body.name');
  });

  it('evaluates matching traces in the background and puts the result on the trace', async () => {
    const created = await t.request('POST', '/api/monitors', {
      token: key,
      body: { name: 'Competitor watch', evaluator: 'llm/competitor_blocklist', settings: { competitors: ['Acme'] }, filters: { labels: 'prod' } },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: 'Competitor watch', evaluator: 'llm/competitor_blocklist', sample: 1, enabled: true, filters: { labels: 'prod' } });
    const id = created.body.id;
    expect((await t.request('GET', `/api/monitors/${id}`, { token: key })).body.name).toBe('Competitor watch');
    expect((await t.request('GET', '/api/monitors', { token: key })).body.data).toHaveLength(1);

    expect((await trace('mon-1', 'Try Acme, they are cheaper.', ['prod'])).status).toBe(200);
    expect((await trace('mon-2', 'Try Acme as well.', ['dev'])).status).toBe(200); // filtered out
    // Acknowledged before any evaluation ran: the job waits in the queue, committed with the spans.
    expect(await pendingJobs()).toBe(1);
    expect((await t.request('GET', '/api/trace/mon-1', { token: key })).body.evaluations).toEqual([]);

    // Nothing runs before the trace has been quiet for the settle time.
    expect(await t.app.services.jobs.runDue()).toBe(0);
    clock.advance(31_000);
    expect(await t.app.services.jobs.runDue()).toBe(1);
    const detail = (await t.request('GET', '/api/trace/mon-1', { token: key })).body;
    expect(detail.evaluations).toHaveLength(1);
    expect(detail.evaluations[0]).toMatchObject({ name: 'Competitor watch', type: 'llm/competitor_blocklist', status: 'processed', trace_id: 'mon-1', passed: false });
    expect((await t.request('GET', '/api/trace/mon-2', { token: key })).body.evaluations).toEqual([]);
    const failing = await t.request('POST', '/api/trace/search', { token: key, body: { filters: { evaluation: { evaluator: 'Competitor watch', passed: false } } } });
    expect(failing.body.traces.map((x: { trace_id: string }) => x.trace_id)).toEqual(['mon-1']);

    // More spans of the same trace push its pending job back instead of adding one.
    await trace('mon-3', 'Acme!', ['prod']);
    clock.advance(20_000);
    await trace('mon-3', 'Acme again!', ['prod']);
    expect(await pendingJobs()).toBe(1);
    clock.advance(20_000);
    expect(await t.app.services.jobs.runDue()).toBe(0);
    clock.advance(11_000);
    expect(await t.app.services.jobs.runDue()).toBe(1);

    // Paused and deleted monitors stop.
    const paused = await t.request('PATCH', `/api/monitors/${id}`, { token: key, body: { enabled: false } });
    expect(paused.body.enabled).toBe(false);
    await trace('mon-4', 'Acme', ['prod']);
    expect(await pendingJobs()).toBe(0);
    expect((await t.request('DELETE', `/api/monitors/${id}`, { token: key })).status).toBe(200);
    expect((await t.request('GET', `/api/monitors/${id}`, { token: key })).status).toBe(404);
  });

  it('samples deterministically: sample 0 evaluates nothing', async () => {
    await t.request('POST', '/api/monitors', { token: key, body: { name: 'none', evaluator: 'llm/competitor_blocklist', sample: 0 } });
    await trace('mon-5', 'Acme');
    expect(await pendingJobs()).toBe(0);
  });

  it('queued jobs survive a restart: another process on the same database runs them', async () => {
    const m = await t.request('POST', '/api/monitors', { token: key, body: { name: 'restart', evaluator: 'llm/competitor_blocklist', settings: { competitors: ['Acme'] } } });
    await trace('mon-6', 'Acme');
    expect(await pendingJobs()).toBe(1);
    // A fresh queue (as after a restart) with the same handler.
    const queue = new JobQueue(t.db, clock);
    queue.handle('monitor.evaluate', monitorJobPayload, (job) => runMonitorJob(t.app.services.monitors, job));
    clock.advance(31_000);
    expect(await queue.runDue()).toBe(1);
    expect((await t.request('GET', '/api/trace/mon-6', { token: key })).body.evaluations[0].name).toBe('restart');
    await t.request('DELETE', `/api/monitors/${m.body.id}`, { token: key });
  });

  it('a process whose job poll is 0 leaves queued jobs to a process that polls (SPYGLASS_JOB_POLL_MS)', async () => {
    const m = await t.request('POST', '/api/monitors', { token: key, body: { name: 'polled', evaluator: 'llm/competitor_blocklist', settings: { competitors: ['Acme'] } } });
    await trace('mon-polled', 'Acme');
    clock.advance(31_000);
    // Longer than the default poll (2 s): a process polling at it would have run the job by now.
    await new Promise((r) => setTimeout(r, 2_200));
    expect(await pendingJobs()).toBe(1);
    const worker = await startApp(kind, { clock, reopen: t, env: { SPYGLASS_JOB_POLL_MS: '50' } });
    try {
      await expect.poll(pendingJobs, { timeout: 10_000 }).toBe(0);
      expect((await t.request('GET', '/api/trace/mon-polled', { token: key })).body.evaluations[0]).toMatchObject({ name: 'polled', status: 'processed' });
    } finally {
      await worker.close();
      await t.request('DELETE', `/api/monitors/${m.body.id}`, { token: key });
    }
  });

  it('another server process on the database picks up a new monitor within ENABLED_MONITORS_TTL_MS', async () => {
    const other = await startApp(kind, { clock, reopen: t });
    try {
      await trace('mon-7', 'no monitor yet', [], other); // the other process has now read the project's monitors
      const m = await t.request('POST', '/api/monitors', { token: key, body: { name: 'late', evaluator: 'llm/competitor_blocklist', settings: { competitors: ['Acme'] } } });
      await new Promise((r) => setTimeout(r, ENABLED_MONITORS_TTL_MS + 100));
      await trace('mon-8', 'Acme', [], other);
      const [job] = await rows<{ payload: { monitorId: string } }>(t.db.orm, sql`SELECT payload FROM jobs WHERE payload->>'traceId' = 'mon-8'`);
      expect(job?.payload.monitorId).toBe(m.body.id);
      await t.request('DELETE', `/api/monitors/${m.body.id}`, { token: key });
    } finally {
      await other.close();
    }
  });

  it('retries failed jobs with backoff and keeps the error after the last attempt', async () => {
    const queue = new JobQueue(t.db, clock);
    let calls = 0;
    queue.handle('test.flaky', z.object({}), async () => {
      calls++;
      if (calls === 1) throw new Error('provider hiccup');
    });
    queue.handle('test.broken', z.object({}), async () => {
      throw new PermanentJobError('trace lacks contexts');
    });
    await t.db.orm.transaction(async (tx) => {
      const { enqueueJobs } = await import('../../src/platform/jobs/index.ts');
      await enqueueJobs(tx, [{ queue: 'test.flaky', payload: {}, runAt: clock.now().getTime() }, { queue: 'test.broken', payload: {}, runAt: clock.now().getTime() }], clock.now().getTime());
    });
    expect(await queue.runDue()).toBe(2);
    expect(calls).toBe(1);
    const [flaky] = await rows<{ run_at: number; last_error: string; attempts: number }>(t.db.orm, sql`SELECT run_at::float8 AS run_at, last_error, attempts FROM jobs WHERE queue = 'test.flaky'`);
    expect(flaky.last_error).toBe('provider hiccup');
    expect(Number(flaky.run_at) - clock.now().getTime()).toBeGreaterThanOrEqual(8_000);
    expect(await queue.runDue()).toBe(0); // not due yet
    clock.advance(15_000);
    expect(await queue.runDue()).toBe(1);
    expect(calls).toBe(2);
    expect(await queue.stats('test.flaky')).toEqual({ pending: 0, failed: 0 });
    expect(await queue.stats('test.broken')).toEqual({ pending: 0, failed: 1 });
  });

  it('a job whose payload fails its queue\'s schema fails at once, naming the field, without reaching the handler', async () => {
    const queue = new JobQueue(t.db, clock);
    let ran = 0;
    queue.handle(MONITOR_QUEUE, monitorJobPayload, async () => {
      ran++;
    });
    const { enqueueJobs } = await import('../../src/platform/jobs/index.ts');
    await t.db.orm.transaction((tx) =>
      enqueueJobs(tx, [{ queue: MONITOR_QUEUE, dedupeKey: 'bad-payload', payload: { monitorId: 'mon_x', organizationId: 'org', projectId: 42 }, runAt: clock.now().getTime() }], clock.now().getTime()),
    );
    expect(await queue.runDue()).toBe(1);
    expect(ran).toBe(0);
    const [job] = await rows<{ last_error: string; failed: boolean; attempts: number }>(
      t.db.orm,
      sql`SELECT last_error, failed_at IS NOT NULL AS failed, attempts FROM jobs WHERE dedupe_key = 'bad-payload'`,
    );
    expect(job).toMatchObject({ failed: true, attempts: 1 });
    expect(job.last_error).toMatch(/^invalid monitor\.evaluate job payload: projectId: /);
    await t.db.orm.execute(sql`DELETE FROM jobs WHERE dedupe_key = 'bad-payload'`);
  });
});
