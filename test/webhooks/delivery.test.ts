import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { JITTER, MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/modules/webhooks/retry.ts';
import { databaseKinds, ManualClock, startApp, type TestApp } from '../support/harness.ts';
import { Receiver, type Reply } from './receiver.ts';
import { admin, dispatcherOf, signedWith, waitFor, WEBHOOK_TEST_ENV } from './support.ts';

const HOUR = 3600_000;

describe.each(databaseKinds)('webhook delivery (%s)', (kind) => {
  let t: TestApp;
  let receiver: Receiver;
  let api: ReturnType<typeof admin>;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    t = await startApp(kind, { clock, env: WEBHOOK_TEST_ENV });
    api = admin(t);
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    receiver = await Receiver.start();
  });
  afterEach(async () => {
    // Endpoints of earlier tests would keep receiving (and failing) organization events.
    for (const e of (await api.get('/api/webhooks/v1/endpoints')).body.data) {
      await api.call('DELETE', `/api/webhooks/v1/endpoints/${e.id}`);
    }
    await receiver.close();
  });

  const subscribe = async (body: Record<string, unknown> = {}) => {
    const res = await api.createEndpoint({ url: receiver.url, enabled_events: ['api_key.*'], ...body });
    expect(res.status, res.text).toBe(201);
    return res.body.data as { id: string; secret: string };
  };
  const drain = () => dispatcherOf(t).drain();
  const attempts = async (id: string) => (await api.deliveries(id, '?limit=200')).body.data as any[];

  it('delivers a batch signed the Standard Webhooks way; standardwebhooks verifies it', async () => {
    const endpoint = await subscribe({ max_batch_size: 10 });
    const keys = [await api.mintKey('one'), await api.mintKey('two'), await api.mintKey('three')];
    await drain();

    expect(receiver.received).toHaveLength(1);
    const [r] = receiver.received;
    // Real-clock check too: the ManualClock started at the real time.
    const verified = new Webhook(endpoint.secret).verify(r.body, r.headers) as { batch: unknown[] };
    expect(verified.batch).toHaveLength(3);
    expect(() => new Webhook(`whsec_${Buffer.from('another secret!!').toString('base64')}`).verify(r.body, r.headers)).toThrow();
    expect(r.headers['webhook-id']).toMatch(/^msg_/);
    expect(r.headers['webhook-timestamp']).toBe(String(Math.floor(clock.now().getTime() / 1000)));
    expect(r.headers['content-type']).toBe('application/json');

    expect(r.json.batch.map((e) => e.data.id)).toEqual(keys.map((k) => k.apiKey.id));
    for (const event of r.json.batch) {
      expect(Object.keys(event)).toEqual(['id', 'type', 'schema_version', 'timestamp', 'data']);
      expect(event).toMatchObject({ type: 'api_key.created', schema_version: '1' });
      expect(event.id).toMatch(/^evt_/);
      expect(new Date(event.timestamp).toISOString()).toBe(event.timestamp);
      expect(JSON.stringify(event.data)).not.toContain(keys[0].token.split('_')[1]);
    }

    const log = await attempts(endpoint.id);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      dispatch_id: r.headers['webhook-id'],
      attempt: 1,
      event_count: 3,
      response_status: 200,
      error: null,
      outcome: 'delivered',
      next_attempt_at: null,
      fired_at: clock.now().toISOString(),
    });
    expect(log[0].latency_ms).toBeGreaterThanOrEqual(0);
  });

  it('a 500 then a 200: the receiver gets the batch twice with the same webhook-id; two attempts are logged', async () => {
    const endpoint = await subscribe();
    receiver.reply = (_, i) => (i === 0 ? { status: 500, body: 'database down' } : { status: 200 });
    await api.mintKey('retry me');
    await drain();
    expect(receiver.received).toHaveLength(1);
    const [first] = await attempts(endpoint.id);
    expect(first).toMatchObject({ attempt: 1, response_status: 500, outcome: 'retrying', error: 'HTTP 500 Internal Server Error: database down' });
    const wait = new Date(first.next_attempt_at).getTime() - clock.now().getTime();
    expect(wait).toBeGreaterThanOrEqual(4500);
    expect(wait).toBeLessThanOrEqual(5500);

    // Not due yet: nothing is sent.
    await drain();
    expect(receiver.received).toHaveLength(1);

    clock.advance(wait);
    await drain();
    expect(receiver.received).toHaveLength(2);
    const [a, b] = receiver.received;
    expect(b.headers['webhook-id']).toBe(a.headers['webhook-id']);
    expect(b.body).toBe(a.body);
    expect(signedWith(endpoint.secret, b)).toBe(true);

    const log = await attempts(endpoint.id);
    expect(log.map((x) => [x.attempt, x.response_status, x.outcome])).toEqual([
      [2, 200, 'delivered'],
      [1, 500, 'retrying'],
    ]);
    expect(new Set(log.map((x) => x.dispatch_id))).toEqual(new Set([a.headers['webhook-id']]));
  });

  it('a receiver that hangs times out after 10 s; the attempt is logged and retried', async () => {
    const endpoint = await subscribe();
    receiver.reply = () => 'hang';
    await api.mintKey('hang');
    const started = Date.now();
    await drain();
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_900);
    const [attempt] = await attempts(endpoint.id);
    expect(attempt).toMatchObject({ attempt: 1, response_status: null, outcome: 'retrying' });
    expect(attempt.error).toMatch(/^timeout: no complete response within 10 s/);
    expect(attempt.latency_ms).toBeGreaterThanOrEqual(9_900);
    expect(attempt.latency_ms).toBeLessThan(12_000);
  }, 30_000);

  it('retries 408, 429 (honouring Retry-After) and network errors', async () => {
    const endpoint = await subscribe();
    const statuses = [408, 429];
    receiver.reply = (_, i): Reply =>
      i < statuses.length ? { status: statuses[i], headers: i === 1 ? { 'retry-after': '120' } : {} } : { status: 204 };
    await api.mintKey('retryable');
    await drain();
    clock.advance(6_000);
    await drain();
    let log = await attempts(endpoint.id);
    expect(log.map((x) => [x.response_status, x.outcome])).toEqual([
      [429, 'retrying'],
      [408, 'retrying'],
    ]);
    // Retry-After 120 s beats the schedule's ~1 minute.
    expect(new Date(log[0].next_attempt_at).getTime() - clock.now().getTime()).toBe(120_000);
    clock.advance(120_000);
    await drain();
    log = await attempts(endpoint.id);
    expect(log[0]).toMatchObject({ attempt: 3, response_status: 204, outcome: 'delivered' });

    // Nobody listening: a network error, retried.
    const url = receiver.url;
    await receiver.close();
    const gone = await api.createEndpoint({ url, enabled_events: ['api_key.created'] });
    await api.call('DELETE', `/api/webhooks/v1/endpoints/${endpoint.id}`);
    await api.mintKey('refused');
    await drain();
    const [refused] = await attempts(gone.body.data.id);
    expect(refused).toMatchObject({ response_status: null, outcome: 'retrying' });
    expect(refused.error).toMatch(/^network error: ECONNREFUSED/);
    receiver = await Receiver.start();
  });

  it('does not follow redirects: a 3xx is a final failure, as is a 4xx other than 408/429', async () => {
    const elsewhere = await Receiver.start('/elsewhere');
    try {
      const endpoint = await subscribe();
      receiver.reply = (_, i) => (i === 0 ? { status: 302, headers: { location: elsewhere.url } } : { status: 404, body: 'no such hook' });
      await api.mintKey('redirected');
      await drain();
      await api.mintKey('not found');
      await drain();
      clock.advance(48 * HOUR);
      await drain();
      expect(receiver.received).toHaveLength(2);
      expect(elsewhere.received).toHaveLength(0);
      const log = await attempts(endpoint.id);
      expect(log.map((x) => [x.attempt, x.response_status, x.outcome])).toEqual([
        [1, 404, 'failed'],
        [1, 302, 'failed'],
      ]);
      expect(log[1].error).toBe(`HTTP 302 Found: redirect to ${elsewhere.url} not followed`);
      expect(log[0].error).toBe('HTTP 404 Not Found: no such hook');
    } finally {
      await elsewhere.close();
    }
  });

  it(`gives up after ${MAX_ATTEMPTS} attempts spread over about three days`, async () => {
    const endpoint = await subscribe();
    receiver.reply = () => ({ status: 503 });
    await api.mintKey('never');
    await drain();
    for (let i = 0; i < MAX_ATTEMPTS + 2; i++) {
      const [latest] = await attempts(endpoint.id);
      if (!latest.next_attempt_at) break;
      clock.set(new Date(latest.next_attempt_at));
      await drain();
    }
    expect(receiver.received).toHaveLength(MAX_ATTEMPTS);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    const log = await attempts(endpoint.id);
    expect(log.map((x) => x.attempt)).toEqual(Array.from({ length: MAX_ATTEMPTS }, (_, i) => MAX_ATTEMPTS - i));
    expect(log[0]).toMatchObject({ outcome: 'failed', next_attempt_at: null });
    expect(log[0].error).toBe('HTTP 503 Service Unavailable; no attempts left');
    const span = new Date(log[0].fired_at).getTime() - new Date(log[log.length - 1].fired_at).getTime();
    expect(span).toBeGreaterThan(55 * HOUR);
    expect(span).toBeLessThan(72 * HOUR);
    // The gaps follow the backoff schedule, each within its jitter (neighbours may overlap:
    // 20 h + 10 % is longer than 24 h - 10 %).
    const fired = log.map((x) => new Date(x.fired_at).getTime()).reverse();
    const gaps = fired.slice(1).map((f, i) => f - fired[i]);
    gaps.forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[i] * (1 - JITTER) - 1000);
      expect(gap).toBeLessThanOrEqual(RETRY_DELAYS_MS[i] * (1 + JITTER) + 1000);
    });
    // The endpoint took every attempt inside 72 hours: still enabled.
    expect((await api.get(`/api/webhooks/v1/endpoints/${endpoint.id}`)).body.data.enabled).toBe(true);
  });

  it('disables an endpoint failing without a break for 72 hours, with a reason; a success resets the count', async () => {
    const endpoint = await subscribe();
    let healthy = false;
    receiver.reply = () => (healthy ? { status: 200 } : { status: 500 });
    const get = async () => (await api.get(`/api/webhooks/v1/endpoints/${endpoint.id}`)).body.data;

    await api.mintKey('f1');
    await drain();
    const failingSince = (await get()).failing_since;
    expect(failingSince).toBe(clock.now().toISOString());

    // 40 h later one delivery succeeds: the failing streak ends.
    clock.advance(40 * HOUR);
    healthy = true;
    await api.mintKey('ok');
    await drain();
    expect((await get()).failing_since).toBeNull();

    healthy = false;
    clock.advance(HOUR);
    await api.mintKey('f2');
    await drain();
    clock.advance(40 * HOUR);
    await api.mintKey('f3');
    await drain();
    expect((await get()).enabled).toBe(true);

    clock.advance(33 * HOUR);
    await api.mintKey('f4');
    await drain();
    const disabled = await get();
    expect(disabled.enabled).toBe(false);
    expect(disabled.disabled_reason).toMatch(/^disabled after 72 hours in which every delivery attempt failed \(since .+\); last error: HTTP 500/);
    expect(disabled.disabled_at).toBe(clock.now().toISOString());

    // Disabled: nothing more is sent, not even retries that fall due.
    const sent = receiver.received.length;
    await api.mintKey('f5');
    clock.advance(30 * HOUR);
    await drain();
    expect(receiver.received).toHaveLength(sent);

    // Re-enabled: queued batches resume.
    healthy = true;
    const enabled = await api.call('PATCH', `/api/webhooks/v1/endpoints/${endpoint.id}`, { enabled: true });
    expect(enabled.body.data).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null, failing_since: null });
    clock.advance(30 * HOUR);
    await drain();
    expect(receiver.received.length).toBeGreaterThan(sent);
  });

  it('batches per endpoint: max_batch_size events per delivery, and a batch waits max_batch_delay_ms for more', async () => {
    const endpoint = await subscribe({ max_batch_size: 2, max_batch_delay_ms: 60_000 });
    for (const n of [1, 2, 3, 4, 5]) await api.mintKey(`k${n}`);
    await drain();
    // Two full batches go at once; the fifth event waits for company.
    expect(receiver.received.map((r) => r.json.batch.length)).toEqual([2, 2]);
    clock.advance(30_000);
    await api.mintKey('k6');
    await drain();
    expect(receiver.received.map((r) => r.json.batch.length)).toEqual([2, 2, 2]);
    await api.mintKey('k7');
    await drain();
    expect(receiver.received).toHaveLength(3);
    clock.advance(60_000);
    await drain();
    expect(receiver.received.map((r) => r.json.batch.length)).toEqual([2, 2, 2, 1]);
    // Batches due together go out in parallel: compare them in any order, events in order inside.
    const batches = receiver.received.map((r) => r.json.batch.map((e) => e.data.name).join(','));
    expect(batches.sort()).toEqual(['k1,k2', 'k3,k4', 'k5,k6', 'k7']);
    expect((await attempts(endpoint.id)).map((a) => a.event_count)).toEqual([1, 2, 2, 2]);
  });

  it('reads at most 64 KiB of a response body', async () => {
    const endpoint = await subscribe();
    receiver.reply = () => ({ stream: 1024 * 1024 * 1024 });
    await api.mintKey('chatty');
    const started = Date.now();
    await drain();
    expect(Date.now() - started).toBeLessThan(5_000);
    const [attempt] = await attempts(endpoint.id);
    expect(attempt).toMatchObject({ response_status: 200, outcome: 'delivered' });
    // The sender hung up: the receiver stopped far short of its gigabyte (socket buffers took the rest).
    await waitFor(() => receiver.streamed.length === 1);
    expect(receiver.streamed[0]).toBeLessThan(16 * 1024 * 1024);
  });

  it('prunes attempt log rows older than 30 days', async () => {
    const endpoint = await subscribe();
    await api.mintKey('old news');
    await drain();
    expect(await attempts(endpoint.id)).toHaveLength(1);
    clock.advance(29 * 24 * HOUR);
    await dispatcherOf(t).runOnce();
    expect(await attempts(endpoint.id)).toHaveLength(1);
    clock.advance(2 * 24 * HOUR);
    await dispatcherOf(t).runOnce();
    expect(await attempts(endpoint.id)).toHaveLength(0);
    const [left] = await rows<{ n: number }>(t.db.orm, sql`SELECT count(*)::int AS n FROM webhook_dispatches WHERE endpoint_id = ${endpoint.id}`);
    expect(Number(left.n)).toBe(0);
  });

  it('drops the outbox day of events once it ended a day ago and they were fanned out; the batches keep their copies', async () => {
    // Earlier tests moved the clock weeks on: the days around it get their partitions, as on start.
    await dispatcherOf(t).makeOutboxDays();
    const endpoint = await subscribe();
    await api.mintKey('outbox old');
    await drain();
    const outbox = async () => Number((await rows<{ n: number }>(t.db.orm, sql`SELECT count(*)::int AS n FROM events`))[0].n);
    const day = Math.floor(clock.now().getTime() / (24 * HOUR));
    const partition = `events_d${new Date(day * 24 * HOUR).toISOString().slice(0, 10).replace(/-/g, '')}`;
    const partitionExists = async () => (await rows<{ found: boolean }>(t.db.orm, sql`SELECT to_regclass(${partition}) IS NOT NULL AS found`))[0].found;
    expect(await outbox()).toBeGreaterThan(0);
    expect(await partitionExists()).toBe(true);
    // A day after the events were written, their day has not ended a day ago yet: it stays whole.
    clock.advance(25 * HOUR - (clock.now().getTime() - day * 24 * HOUR));
    await dispatcherOf(t).runOnce();
    expect(await partitionExists()).toBe(true);
    clock.advance(24 * HOUR);
    await api.mintKey('outbox fresh');
    await dispatcherOf(t).runOnce();
    expect(await outbox()).toBe(1); // only the fresh one
    const delivered = (await attempts(endpoint.id)).filter((a) => a.outcome === 'delivered');
    expect(delivered.length).toBeGreaterThanOrEqual(1);
    const [batch] = await rows<{ events: { data: { name?: string } }[] }>(t.db.orm, sql`SELECT events FROM webhook_dispatches WHERE endpoint_id = ${endpoint.id} ORDER BY created_at LIMIT 1`);
    expect(JSON.stringify(batch.events)).toContain('outbox old');
  });

  /**
   * Other processes on the file's database (`reopen`: the database stays open, each app is a
   * process of its own), with the receiver and the clean-up of the tests above: a database of
   * their own for each test cost an open of PGlite each (about 2 s of CPU).
   */
  describe('across restarts and processes', () => {
    it('an event committed by a process that stops before sending is delivered after restart', async () => {
      const first = await startApp(kind, { clock, env: WEBHOOK_TEST_ENV, reopen: t });
      let second: TestApp | null = null;
      try {
        const created = await admin(first).createEndpoint({ url: receiver.url, enabled_events: ['api_key.created'] });
        const secret = created.body.data.secret;
        const key = await admin(first).mintKey('committed, never sent');
        // The process goes away between the commit and any dispatch.
        await first.stop();
        expect(receiver.received).toHaveLength(0);

        // The restarted process's own background loop delivers it.
        second = await startApp(kind, { clock, env: { ...WEBHOOK_TEST_ENV, SPYGLASS_WEBHOOK_POLL_MS: '20' }, reopen: first });
        await waitFor(() => receiver.received.length > 0);
        expect(receiver.events().map((e) => e.data.id)).toEqual([key.apiKey.id]);
        expect(signedWith(secret, receiver.received[0])).toBe(true);
      } finally {
        await first.close();
        await second?.close();
      }
    });

    it('a batch claimed by a process that died mid-send is sent again once its lease ends', async () => {
      const first = await startApp(kind, { clock, env: WEBHOOK_TEST_ENV, reopen: t });
      let second: TestApp | null = null;
      try {
        // A long batch delay: the drain below batches the event without sending it.
        const created = await admin(first).createEndpoint({ url: receiver.url, enabled_events: ['api_key.created'], max_batch_delay_ms: 300_000 });
        await admin(first).mintKey('claimed then lost');
        await dispatcherOf(first).drain();
        // What a process killed after its claim leaves behind: a batch "sending" under its lease.
        await first.db.orm.execute(
          sql`UPDATE webhook_dispatches SET status = 'sending', attempts = 1, claimed_until = ${new Date(clock.now().getTime() + 60_000).toISOString()}::timestamptz WHERE endpoint_id = ${created.body.data.id}`,
        );
        await first.stop();
        second = await startApp(kind, { clock, env: WEBHOOK_TEST_ENV, reopen: first });
        await dispatcherOf(second).drain();
        expect(receiver.received).toHaveLength(0);
        clock.advance(61_000);
        await dispatcherOf(second).drain();
        expect(receiver.received).toHaveLength(1);
        const log = (await admin(second).deliveries(created.body.data.id)).body.data;
        expect(log[0]).toMatchObject({ attempt: 2, outcome: 'delivered' });
      } finally {
        await first.close();
        await second?.close();
      }
    });

    it('two processes on one database send each batch once', async () => {
      const one = await startApp(kind, { clock, env: WEBHOOK_TEST_ENV, reopen: t });
      const two = await startApp(kind, { clock, env: WEBHOOK_TEST_ENV, reopen: one });
      try {
        // A slow receiver keeps each process's claims in flight while the other claims.
        receiver.reply = () => ({ status: 200, delayMs: 300 });
        await admin(one).createEndpoint({ url: receiver.url, enabled_events: ['api_key.created'], max_batch_size: 1 });
        const minted = [];
        for (let i = 0; i < 24; i++) minted.push((await admin(i % 2 ? one : two).mintKey(`k${i}`)).apiKey.id);
        // Both processes work the queue at once until everything arrived.
        const attempted = [0, 0];
        const deadline = Date.now() + 15_000;
        await Promise.all(
          [one, two].map(async (app, i) => {
            while (receiver.received.length < 24 && Date.now() < deadline) {
              attempted[i] += (await dispatcherOf(app).runOnce()).attempted;
              await new Promise((r) => setTimeout(r, 5));
            }
          }),
        );
        await Promise.all([dispatcherOf(one).drain(), dispatcherOf(two).drain()]);
        // Each process claimed some (at most 16 in flight each), and together every batch exactly once.
        expect(attempted.every((n) => n > 0)).toBe(true);
        expect(attempted[0] + attempted[1]).toBe(24);
        const ids = receiver.received.map((r) => r.headers['webhook-id']);
        expect(ids).toHaveLength(24);
        expect(new Set(ids).size).toBe(24);
        expect(receiver.events().map((e) => e.data.id).sort()).toEqual([...minted].sort());
      } finally {
        await one.close();
        await two.close();
      }
    });

    it('checks the destination again at send time: a loopback address is refused when private destinations are not allowed', async () => {
      const permissive = await startApp(kind, { clock, env: WEBHOOK_TEST_ENV, reopen: t });
      let strict: TestApp | null = null;
      try {
        const created = await admin(permissive).createEndpoint({ url: receiver.url, enabled_events: ['api_key.created'] });
        await admin(permissive).mintKey('to loopback');
        await permissive.stop();
        strict = await startApp(kind, { clock, env: { SPYGLASS_WEBHOOK_POLL_MS: '0' }, reopen: permissive });
        await dispatcherOf(strict).drain();
        expect(receiver.received).toHaveLength(0);
        const [attempt] = (await admin(strict).deliveries(created.body.data.id)).body.data;
        expect(attempt).toMatchObject({ response_status: null, outcome: 'failed' });
        expect(attempt.error).toBe('refused: 127.0.0.1 is a loopback address');
      } finally {
        await permissive.close();
        await strict?.close();
      }
    });
  });
});
