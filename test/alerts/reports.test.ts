import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, ManualClock, startApp, type TestApp, JOBS_RUN_BY_HAND } from '../support/harness.ts';
import { startSmtp } from '../support/smtp.ts';
import { Receiver } from '../webhooks/receiver.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
/** Local midnights in New York (UTC-5 in November): Thursday 19 and Friday 20 November 2026. */
const NOV19 = Date.parse('2026-11-19T05:00:00Z');
const NOV20 = Date.parse('2026-11-20T05:00:00Z');
const NOV21 = Date.parse('2026-11-21T05:00:00Z');

describe.each(databaseKinds)('alert reports (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let slack: Receiver;
  const clock = new ManualClock(NOV20 + 10 * HOUR);
  beforeAll(async () => {
    smtp = await startSmtp();
    slack = await Receiver.start('/services/T000/B000/REPORT');
    // The test moves the clock and calls the rules' and reports' polls itself: the app's own polls,
    // on real time beside it, would evaluate windows in between when the machine is slow.
    t = await startApp(kind, { clock, env: { SMTP_URL: smtp.url, SPYGLASS_WEBHOOK_ALLOW_PRIVATE: '1', SPYGLASS_WEBHOOK_POLL_MS: '0', SPYGLASS_ALERT_POLL_SECONDS: '0', ...JOBS_RUN_BY_HAND } });
    key = t.creds.projectApiKey;
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
    await slack.close();
  });
  const slackTexts = () => slack.received.map((r) => JSON.parse(r.body).text as string);

  let n = 0;
  /** `count` traces over the hour from `at`, the first `errors` failed, each taking `ms`. */
  async function traffic(at: number, count: number, errors: number, ms: number) {
    for (let i = 0; i < count; i++) {
      const id = `rp-${n++}`;
      const started = at + Math.floor((i * HOUR) / count);
      const res = await t.request('POST', '/api/collector', {
        authToken: key,
        body: {
          trace_id: id,
          spans: [
            {
              span_id: `${id}-1`,
              type: 'llm',
              model: 'gpt-4o-mini',
              input: { type: 'text', value: 'q' },
              output: { type: 'text', value: 'a' },
              ...(i < errors ? { error: { message: 'boom' } } : {}),
              timestamps: { started_at: started, finished_at: started + ms },
            },
          ],
        },
      });
      expect(res.status).toBe(200);
      const words = await t.request('POST', '/api/evaluations/example/word_count/evaluate', { authToken: key, body: { trace_id: id, name: 'Words', data: { output: 'two words' } } });
      expect(words.body[0].score).toBe(2);
    }
  }

  it('answers 400 naming the field for a bad report', async () => {
    const field = async (body: object) => {
      const res = await t.request('POST', '/api/alerts/reports', { token: key, body: { name: 'r', cadence: 'daily', webhooks: true, ...body } });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      return res.body.error.meta.field as string;
    };
    expect(await field({ timeZone: 'Mars/Olympus_Mons' })).toBe('timeZone');
    expect(await field({ cadence: 'hourly' })).toBe('body.cadence');
    expect(await field({ sendHour: 24 })).toBe('body.sendHour');
    expect(await field({ channelIds: ['alc_missing'] })).toBe('channelIds.0');
    expect(await field({ webhooks: false })).toBe('channelIds');
  });

  it('sends a daily digest in the reader\'s time zone once across two processes, with the changes and the alerts that fired', async () => {
    // Thursday: 40 traces, 2 errors, 100 ms. Friday: 40 traces, 20 errors, 400 ms.
    await traffic(NOV19 + 9 * HOUR, 40, 2, 100);
    await traffic(NOV20 + 9 * HOUR, 40, 20, 400);
    // A rule that fires on Friday's errors (made in the hour they happen).
    clock.set(NOV20 + 9 * HOUR + 30_000);
    const rule = await t.request('POST', '/api/alerts/rules', {
      token: key,
      body: { name: 'Errors', metric: { kind: 'error_rate' }, windowMinutes: 60, condition: { kind: 'threshold', operator: 'above', value: 0.2, minCount: 10 } },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(200);
    expect(rule.body.evaluatedThrough).toBe(NOV20 + 9 * HOUR);
    clock.set(NOV20 + 10 * HOUR + 1_000);
    await t.app.services.alerts.alerts.evaluateDue();
    expect((await t.request('GET', `/api/alerts/rules/${rule.body.id}`, { token: key })).body.state).toBe('firing');

    const mail = await t.request('POST', '/api/alerts/channels', { token: key, body: { name: 'Team', kind: 'email', target: 'team@example.test' } });
    const chat = await t.request('POST', '/api/alerts/channels', { token: key, body: { name: '#reports', kind: 'slack', target: slack.url } });
    const created = await t.request('POST', '/api/alerts/reports', {
      token: key,
      body: { name: 'Support bot', cadence: 'daily', timeZone: 'America/New_York', sendHour: 8, channelIds: [mail.body.id, chat.body.id] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({ cadence: 'daily', timeZone: 'America/New_York', sendHour: 8, webhooks: false, enabled: true });
    const id = created.body.id;

    // Saturday 07:00 in New York: Friday's digest is not due until 08:00; Thursday's ended before the report was made.
    clock.set(NOV21 + 7 * HOUR);
    expect((await t.app.services.alerts.alerts.sendDueReports()).sent).toBe(0);
    // 08:00: two processes look at once; Friday is sent once.
    clock.set(NOV21 + 8 * HOUR + 30_000);
    const second = await startApp(kind, { clock, reopen: t, env: { SPYGLASS_ALERT_POLL_SECONDS: '0', ...JOBS_RUN_BY_HAND } });
    try {
      const outcomes = await Promise.all([t.app.services.alerts.alerts.sendDueReports(), second.app.services.alerts.alerts.sendDueReports(), t.app.services.alerts.alerts.sendDueReports()]);
      expect(outcomes.reduce((s, o) => s + o.sent, 0)).toBe(1);
    } finally {
      await second.close();
    }
    expect(await t.app.services.alerts.alerts.reportPeriodsSent(id)).toBe(1);
    clock.advance(HOUR);
    expect((await t.app.services.alerts.alerts.sendDueReports()).sent).toBe(0);

    await t.app.services.jobs.runDue();
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0].to).toEqual(['team@example.test']);
    const text = smtp.received[0].text;
    expect(text).toContain('Spyglass daily report: Support bot, 2026-11-20 (America/New_York)');
    expect(text).toContain('Traces: 40 (previous 40)');
    expect(text).toContain('Errors: 20, 50.0 % (previous 5.0 %)');
    expect(text).toContain('Latency p50 / p95: 400 ms / 400 ms (previous 100 ms / 100 ms)');
    expect(text).toContain('- Words: pass rate n/a of 0, mean score 2 of 40');
    expect(text).toMatch(/- Error rate: 5\.0 % -> 50\.0 % \(p = /);
    expect(text).toMatch(/- Latency p50 \(ms\): 100 -> 400 \(p = /);
    // Same traffic, same scores: not listed as changes.
    expect(text).not.toContain('- Traces:');
    expect(text).not.toContain('Words: mean score');
    expect(text).toContain(`- Errors: firing from ${new Date(NOV20 + 10 * HOUR).toISOString()}, 1 window`);
    expect(slackTexts()).toHaveLength(1);
    expect(slackTexts()[0]).toContain('Errors: 20, 50.0 % (previous 5.0 %)');

    // Send now: the same digest at once, to both channels, and the scheduled send still counts once.
    const now = await t.request('POST', `/api/alerts/reports/${id}/send-now`, { token: key });
    expect(now.status, JSON.stringify(now.body)).toBe(200);
    expect(now.body).toMatchObject({
      reportId: id,
      period: { start: NOV20, end: NOV21, label: '2026-11-20' },
      current: { traces: 40, errors: 20, errorRate: 0.5, latencyP50: 400, latencyP95: 400 },
      previous: { traces: 40, errors: 2, errorRate: 0.05, latencyP50: 100 },
      evaluators: [{ name: 'Words', verdicts: 0, passRate: null, scores: 40, meanScore: 2 }],
      alerts: [{ rule: 'Errors', segment: '', since: NOV20 + 10 * HOUR, windows: 1 }],
      deliveries: 2,
    });
    expect(now.body.changes.map((c: { what: string }) => c.what).sort()).toEqual(['Error rate', 'Latency p50 (ms)']);
    expect(now.body.changes.every((c: { pValue: number }) => c.pValue <= 0.01)).toBe(true);
    await t.app.services.jobs.runDue();
    expect(smtp.received).toHaveLength(2);
    expect(slackTexts()).toHaveLength(2);
    expect(await t.app.services.alerts.alerts.reportPeriodsSent(id)).toBe(1);
    const log = (await t.request('GET', `/api/alerts/channels/${chat.body.id}/deliveries`, { token: key })).body.data;
    expect(log.map((d: { eventType: string; status: string }) => [d.eventType, d.status])).toEqual([
      ['alert.report', 'sent'],
      ['alert.report', 'sent'],
    ]);
  });

  it('makes weeks from Monday in the reader\'s time zone, and lists, replaces and deletes reports', async () => {
    const weekly = await t.request('POST', '/api/alerts/reports', { token: key, body: { name: 'Weekly', cadence: 'weekly', timeZone: 'Asia/Tokyo', webhooks: true } });
    expect(weekly.status, JSON.stringify(weekly.body)).toBe(200);
    const id = weekly.body.id;
    const sent = await t.request('POST', `/api/alerts/reports/${id}/send-now`, { token: key });
    // Saturday 21 November in Tokyo: the last whole week is Monday 9 .. Monday 16, from Tokyo's midnight.
    expect(sent.body.period).toEqual({ start: Date.parse('2026-11-08T15:00:00Z'), end: Date.parse('2026-11-15T15:00:00Z'), label: 'week of 2026-11-09' });
    expect(sent.body.deliveries).toBe(0);
    const replaced = await t.request('PUT', `/api/alerts/reports/${id}`, { token: key, body: { name: 'Weekly, UTC', cadence: 'weekly', timeZone: 'UTC', webhooks: true, enabled: false } });
    expect(replaced.body).toMatchObject({ name: 'Weekly, UTC', timeZone: 'UTC', enabled: false });
    expect((await t.request('GET', '/api/alerts/reports', { token: key })).body.data.map((r: { name: string }) => r.name)).toContain('Weekly, UTC');
    expect((await t.request('DELETE', `/api/alerts/reports/${id}`, { token: key })).body).toEqual({ id, deleted: true });
    expect((await t.request('GET', `/api/alerts/reports/${id}`, { token: key })).status).toBe(404);
  });
});
