import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { createTenant, databaseKinds, ManualClock, startApp, type TestApp, JOBS_RUN_BY_HAND } from '../support/harness.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startSmtp } from '../support/smtp.ts';
import { Receiver } from '../webhooks/receiver.ts';

const MIN = 60_000;
/** A window boundary: rules made now evaluate the 5-minute window that starts here. */
const T0 = Date.parse('2026-11-21T10:00:00Z');
const REFERENCE = { kind: 'reference', start: T0 - 60 * MIN, end: T0 };

describe.each(databaseKinds)('alert rules (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let slack: Receiver;
  const clock = new ManualClock(T0 - 61 * MIN);
  beforeAll(async () => {
    smtp = await startSmtp();
    slack = await Receiver.start('/services/T000/B000/XXXX');
    // Loopback receivers: this server may post to private addresses (the policy is tested below).
    t = await startApp(kind, { clock, env: { SMTP_URL: smtp.url, SPYGLASS_WEBHOOK_ALLOW_PRIVATE: '1', SPYGLASS_WEBHOOK_POLL_MS: '0', ...JOBS_RUN_BY_HAND } });
    key = t.creds.projectApiKey;
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
    await slack.close();
  });
  const runJobs = () => t.app.services.jobs.runDue();
  const slackTexts = () => slack.received.map((r) => JSON.parse(r.body).text as string);
  /** Runs the due jobs until `count` reaches `n`: the app's own poller may have claimed a job a moment before, and delivers it itself. */
  const delivered = (count: () => number, n: number) =>
    expect
      .poll(async () => {
        await runJobs();
        return count();
      }, { timeout: 15_000 })
      .toBe(n);

  let n = 0;
  /** `count` traces of `model` spread over the 5 minutes from `at`, the first `errors` of them failed. */
  async function traffic(model: string, at: number, count: number, errors: number) {
    const sends = Array.from({ length: count }, async (_, i) => {
      const id = `tr-${n++}`;
      const started = at + Math.floor((i * 5 * MIN) / count);
      const res = await t.request('POST', '/api/collector', {
        authToken: key,
        body: {
          trace_id: id,
          spans: [
            {
              span_id: `${id}-1`,
              type: 'llm',
              model,
              input: { type: 'text', value: 'q' },
              output: { type: 'text', value: 'a' },
              ...(i < errors ? { error: { message: 'upstream 500' } } : {}),
              timestamps: { started_at: started, finished_at: started + 100 },
            },
          ],
        },
      });
      expect(res.status).toBe(200);
    });
    await Promise.all(sends);
  }
  const post = (body: object) => t.request('POST', '/api/alerts/rules', { token: key, body });
  const splitRule = (extra: object = {}) => ({
    name: 'Errors by model',
    metric: { kind: 'error_rate' },
    splitBy: 'model',
    windowMinutes: 5,
    condition: { kind: 'change', baseline: REFERENCE, alpha: 0.01, minCount: 10 },
    resolveAfter: 2,
    ...extra,
  });
  const events = async (type: string) =>
    rows<{ data: Record<string, any> }>(t.db.orm, sql`SELECT data FROM events WHERE type = ${type} ORDER BY created_at, id`);

  it('answers 400 naming the field for each bad rule', async () => {
    clock.set(T0);
    const base = { name: 'x', metric: { kind: 'error_rate' }, windowMinutes: 5, condition: { kind: 'threshold', operator: 'above', value: 0.1 } };
    const field = async (body: object) => {
      const res = await post(body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      return res.body.error.meta.field;
    };
    expect(await field({ ...base, metric: { kind: 'latency_p42' } })).toBe('body.metric.kind');
    expect(await field({ ...base, metric: { kind: 'evaluator_pass_rate', evaluator: 'nope/none' } })).toBe('metric.evaluator');
    expect(await field({ ...base, metric: { kind: 'score_mean', configId: 'sc_missing' } })).toBe('metric.configId');
    expect(await field({ ...base, windowMinutes: 1 })).toBe('windowMinutes');
    expect(await field({ ...base, windowMinutes: 7 * 24 * 60 + 1 })).toBe('windowMinutes');
    expect(await field({ ...base, condition: { kind: 'change', alpha: 0 } })).toBe('body.condition.alpha');
    expect(await field({ ...base, condition: { kind: 'change', alpha: 0.6 } })).toBe('body.condition.alpha');
    expect(await field({ ...base, condition: { kind: 'threshold', operator: 'above', value: 1.5 } })).toBe('condition.value');
    expect(await field({ ...base, metric: { kind: 'latency_p95' }, condition: { kind: 'threshold', operator: 'above', value: -1 } })).toBe('condition.value');
    expect(await field({ ...base, condition: { kind: 'change', baseline: { kind: 'reference', start: T0 - MIN, end: T0 } } })).toBe('condition.baseline.end');
    expect(await field({ ...base, name: '' })).toBe('body.name');
    expect((await t.request('GET', '/api/alerts/rules', { token: key })).body.data).toEqual([]);
  });

  it('fires a split rule for the one model whose errors jumped, once, and resolves it once after recovery', async () => {
    // The reference hour: 5 % errors on both models.
    for (let w = 0; w < 12; w++) {
      await traffic('gpt-4o', T0 - 60 * MIN + w * 5 * MIN, 20, w % 4 === 0 ? 2 : 1);
      await traffic('claude-3-5-sonnet', T0 - 60 * MIN + w * 5 * MIN, 20, w % 4 === 0 ? 2 : 1);
    }
    clock.set(T0 + 30_000);
    const mail = await t.request('POST', '/api/alerts/channels', { token: key, body: { name: 'On call', kind: 'email', target: 'oncall@example.test' } });
    expect(mail.status, JSON.stringify(mail.body)).toBe(200);
    const chat = await t.request('POST', '/api/alerts/channels', { token: key, body: { name: '#alerts', kind: 'slack', target: slack.url } });
    expect(chat.body.target).toBe(new URL(slack.url).origin + '/…');
    const created = await post(splitRule());
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.id;
    // The same rule, off until the end: it catches up on every window at once.
    const late = await post(splitRule({ name: 'Errors by model, late', enabled: false }));
    expect(late.body).toMatchObject({ state: 'ok', enabled: false, windowMinutes: 5, condition: { alpha: 0.01, consecutive: 1 } });

    // Window 1: gpt-4o fails half its calls, claude stays at 5 %.
    await traffic('gpt-4o', T0, 20, 10);
    await traffic('claude-3-5-sonnet', T0, 20, 1);
    clock.set(T0 + 5 * MIN + 1_000);
    expect((await t.app.services.alerts.alerts.evaluateDue()).windows).toBe(1);
    const rule = (await t.request('GET', `/api/alerts/rules/${id}`, { token: key })).body;
    expect(rule.state).toBe('firing');
    const byModel = Object.fromEntries(rule.segments.map((s: { segment: string; state: string }) => [s.segment, s.state]));
    const gpt = Object.keys(byModel).find((m) => m.includes('gpt-4o'))!;
    const claude = Object.keys(byModel).find((m) => m.includes('claude'))!;
    expect(byModel[gpt]).toBe('firing');
    expect(byModel[claude]).toBe('ok');

    const history = (await t.request('GET', `/api/alerts/rules/${id}/history`, { token: key })).body.data;
    const seen = history.find((e: { segment: string }) => e.segment === gpt);
    expect(seen).toMatchObject({ windowStart: T0, windowEnd: T0 + 5 * MIN, value: 0.5, count: 20, baselineCount: 240, decision: 'breach', state: 'firing' });
    expect(seen.baseline).toBeCloseTo(15 / 240, 10);
    expect(seen.pValue).toBeLessThan(0.001);
    expect(seen.low).toBeLessThan(0.5);
    expect(seen.high).toBeGreaterThan(0.5);
    expect(history.find((e: { segment: string }) => e.segment === claude)).toMatchObject({ decision: 'calm', state: 'ok' });

    let firing = await events('alert.firing');
    expect(firing).toHaveLength(1);
    expect(firing[0].data).toMatchObject({ segment: gpt, state: 'firing', value: 0.5, count: 20, window: { start: T0, end: T0 + 5 * MIN } });
    expect(firing[0].data.message).toContain('50.0 % (10 of 20)');
    expect(firing[0].data.message).toContain('6.3 % in the reference period');
    await delivered(() => smtp.received.length, 1);
    await delivered(() => slack.received.length, 1);
    expect(smtp.received[0].to).toEqual(['oncall@example.test']);
    expect(smtp.received[0].text).toContain(`Firing: Errors by model (${gpt})`);
    expect(smtp.received[0].text).toContain('50.0 % (10 of 20)');
    expect(smtp.received[0].text).toContain(firing[0].data.link);
    expect(slackTexts()).toHaveLength(1);
    expect(slackTexts()[0]).toContain('50.0 % (10 of 20)');
    expect(slackTexts()[0]).toContain(`<${firing[0].data.link}|Open the traces>`);
    const link = new URL(firing[0].data.link, 'http://app');
    expect(link.pathname).toBe(`/p/${t.creds.project.id}/traces`);
    expect(Object.fromEntries(link.searchParams)).toMatchObject({ range: 'custom', from: new Date(T0).toISOString(), to: new Date(T0 + 5 * MIN).toISOString(), model: gpt, error: 'yes' });

    // Window 2: still failing: no second notification. Then two calm windows resolve it, once;
    // the chat receiver fails the first try of that message: retried, and the log shows it.
    slack.reply = (_r, i) => (i === 1 ? { status: 500, body: 'oops' } : { status: 200, body: 'ok' });
    await traffic('gpt-4o', T0 + 5 * MIN, 20, 9);
    clock.set(T0 + 10 * MIN + 1_000);
    await t.app.services.alerts.alerts.evaluateDue();
    expect(await events('alert.firing')).toHaveLength(1);
    for (const w of [2, 3]) {
      await traffic('gpt-4o', T0 + w * 5 * MIN, 20, 1);
      clock.set(T0 + (w + 1) * 5 * MIN + 1_000);
      await t.app.services.alerts.alerts.evaluateDue();
      const state = (await t.request('GET', `/api/alerts/rules/${id}`, { token: key })).body.state;
      expect(state).toBe(w === 2 ? 'firing' : 'resolved');
    }
    const resolved = await events('alert.resolved');
    expect(resolved).toHaveLength(1);
    await delivered(() => smtp.received.length, 2);
    expect(smtp.received[1].text).toContain(`Resolved: Errors by model (${gpt})`);
    await delivered(() => slackTexts().length, 2);
    let log = (await t.request('GET', `/api/alerts/channels/${chat.body.id}/deliveries`, { token: key })).body.data;
    expect(log[0]).toMatchObject({ eventType: 'alert.resolved', status: 'pending', attempts: 1, lastError: 'HTTP 500 Internal Server Error: oops' });
    clock.advance(60_000);
    await delivered(() => slackTexts().length, 3);
    expect(slackTexts()[2]).toContain('Resolved');
    log = (await t.request('GET', `/api/alerts/channels/${chat.body.id}/deliveries`, { token: key })).body.data;
    expect(log.map((d: { eventType: string; status: string; attempts: number }) => [d.eventType, d.status, d.attempts])).toEqual([
      ['alert.resolved', 'sent', 2],
      ['alert.firing', 'sent', 1],
    ]);
    expect(resolved[0].data).toMatchObject({ segment: gpt, state: 'resolved', since: T0 + 20 * MIN });
    firing = await events('alert.firing');
    expect(firing).toHaveLength(1);

    // After "downtime": the late rule evaluates its 4 missed windows (firing, then resolved),
    // and notifies only where it stands now: nothing, as it was ok when last notified.
    expect((await t.request('PATCH', `/api/alerts/rules/${late.body.id}`, { token: key, body: { enabled: true } })).status).toBe(200);
    expect((await t.app.services.alerts.alerts.evaluateDue()).windows).toBe(4);
    const lateHistory = (await t.request('GET', `/api/alerts/rules/${late.body.id}/history`, { token: key })).body.data;
    expect(lateHistory.filter((e: { segment: string }) => e.segment === gpt).map((e: { state: string }) => e.state)).toEqual(['resolved', 'firing', 'firing', 'firing']);
    expect(await events('alert.firing')).toHaveLength(1);
    expect(await events('alert.resolved')).toHaveLength(1);
    await runJobs();
    expect(smtp.received).toHaveLength(2);
    expect(slackTexts()).toHaveLength(3);

    // The MCP server lists the rules and reads a rule's history.
    const mcp = new Client({ name: 'alerts-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL('/mcp', t.baseUrl), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    try {
      const text = (answer: unknown) => ((answer as { content: { text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('\n');
      const listed = text(await mcp.callTool({ name: 'list_alert_rules', arguments: {} }));
      expect(listed).toContain(`${id} · Errors by model · error_rate by model · 5 min windows · change vs reference (alpha 0.01) · resolved`);
      const told = text(await mcp.callTool({ name: 'get_alert_history', arguments: { id, limit: 50 } }));
      expect(told).toContain(`${new Date(T0).toISOString()} .. ${new Date(T0 + 5 * MIN).toISOString()} · ${gpt} · value 0.5 [`);
      expect(told).toContain('of 20 · baseline 0.0625 of 240 · p ');
      expect(told).toContain('breach → firing');
    } finally {
      await mcp.close();
    }
  }, 240_000);

  it('checks channels: the address, the private-address policy, and "send a test"', async () => {
    const add = (body: object, via: TestApp = t) => via.request('POST', '/api/alerts/channels', { token: key, body });
    expect((await add({ name: 'x', kind: 'email', target: 'not an address' })).body.error.meta.field).toBe('target');
    expect((await add({ name: 'x', kind: 'slack', target: 'ftp://example.test/x' })).body.error.meta.field).toBe('target');
    expect((await add({ name: 'x', kind: 'pager', target: 'x@example.test' })).body.error.meta.field).toBe('body.kind');
    // A server under the default policy refuses loopback receivers, and has no SMTP.
    const strict = await startApp(kind, { clock, reopen: t, env: JOBS_RUN_BY_HAND });
    try {
      const refused = await add({ name: 'x', kind: 'slack', target: slack.url }, strict);
      expect(refused.status).toBe(400);
      expect(refused.body.error.meta.field).toBe('target');
      expect(refused.body.error.message).toContain('loopback');
      expect((await add({ name: 'x', kind: 'email', target: 'x@example.test' }, strict)).body.error.meta.field).toBe('kind');
    } finally {
      await strict.close();
    }
    const before = slack.received.length;
    const chat = (await add({ name: 'test me', kind: 'slack', target: slack.url })).body;
    slack.reply = () => ({ status: 500, body: 'down' });
    expect((await t.request('POST', `/api/alerts/channels/${chat.id}/test`, { token: key })).body).toEqual({ sent: false, error: 'HTTP 500 Internal Server Error: down' });
    slack.reply = () => ({ status: 200, body: 'ok' });
    expect((await t.request('POST', `/api/alerts/channels/${chat.id}/test`, { token: key })).body).toEqual({ sent: true, error: null });
    expect(slack.received.length).toBe(before + 2);
    expect(JSON.parse(slack.received.at(-1)!.body).text).toContain('A test from Spyglass');
    expect((await t.request('DELETE', `/api/alerts/channels/${chat.id}`, { token: key })).body).toEqual({ id: chat.id, deleted: true });
  });

  it('acknowledges, mutes and snoozes a rule', async () => {
    const created = await post({ name: 'Traffic', metric: { kind: 'trace_count' }, windowMinutes: 5, condition: { kind: 'threshold', operator: 'above', value: 1000 } });
    const id = created.body.id;
    const ack = await t.request('POST', `/api/alerts/rules/${id}/acknowledge`, { token: key });
    expect(ack.body.acknowledgedAt).toBe(clock.now().getTime());
    const until = clock.now().getTime() + 3_600_000;
    const snoozed = await t.request('PATCH', `/api/alerts/rules/${id}`, { token: key, body: { muted: true, snoozedUntil: until } });
    expect(snoozed.body).toMatchObject({ muted: true, snoozedUntil: until });
    expect((await t.request('GET', `/api/alerts/rules/nope`, { token: key })).status).toBe(404);
    // Another organization's key sees none of it.
    const other = await createTenant(t);
    expect((await t.request('GET', `/api/alerts/rules/${id}`, { token: other.projectToken })).status).toBe(404);
    expect((await t.request('GET', `/api/alerts/rules/${id}/history`, { token: other.projectToken })).status).toBe(404);
    expect((await t.request('PATCH', `/api/alerts/rules/${id}`, { token: other.projectToken, body: { muted: false } })).status).toBe(404);
    expect((await t.request('GET', '/api/alerts/rules', { token: other.projectToken })).body.data).toEqual([]);
    expect((await t.request('GET', '/api/alerts/channels', { token: other.projectToken })).body.data).toEqual([]);
    expect((await t.request('DELETE', `/api/alerts/rules/${id}`, { token: key })).body).toEqual({ id, deleted: true });
  });

  it('evaluates each window once with two server processes on one database (counted)', async () => {
    const second = await startApp(kind, { clock, reopen: t, env: JOBS_RUN_BY_HAND });
    try {
      const created = await post({ name: 'Volume', metric: { kind: 'trace_count' }, windowMinutes: 5, condition: { kind: 'change', baseline: { kind: 'previous' } } });
      const id = created.body.id;
      const from = clock.now().getTime();
      for (let round = 1; round <= 6; round++) {
        clock.set(Math.floor(from / (5 * MIN)) * 5 * MIN + round * 5 * MIN + 1_000);
        await Promise.all([t.app.services.alerts.alerts.evaluateDue(), second.app.services.alerts.alerts.evaluateDue(), t.app.services.alerts.alerts.evaluateDue()]);
      }
      expect(await t.app.services.alerts.alerts.windowsEvaluated(id)).toBe(6);
      const history = (await t.request('GET', `/api/alerts/rules/${id}/history`, { token: key })).body.data;
      expect(history).toHaveLength(6);
      expect(new Set(history.map((e: { windowEnd: number }) => e.windowEnd)).size).toBe(6);
    } finally {
      await second.close();
    }
  });
});
