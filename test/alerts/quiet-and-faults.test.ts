import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, ManualClock, startApp, type TestApp, JOBS_RUN_BY_HAND } from '../support/harness.ts';
import { startSmtp } from '../support/smtp.ts';
import { Receiver } from '../webhooks/receiver.ts';

const MIN = 60_000;
const T0 = Date.parse('2026-11-21T10:00:00Z');

interface Delivery {
  eventType: string;
  subject: string;
  status: string;
  attempts: number;
  lastError: string | null;
}

/** Alert messages when the mail server is down, and rules muted or snoozed. */
describe.each(databaseKinds)('alert deliveries and quiet rules (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let smtp: Awaited<ReturnType<typeof startSmtp>> | null;
  let smtpPort: number;
  let smtpUrl: string;
  let slack: Receiver;
  const clock = new ManualClock(T0 + 30_000);
  beforeAll(async () => {
    // The mail server is down from the start: its port is free, nothing answers there.
    const once = await startSmtp();
    smtpPort = once.port;
    smtpUrl = once.url;
    await once.close();
    smtp = null;
    slack = await Receiver.start('/services/T000/B000/QUIET');
    // The app's own polls are off: the test runs the rules and the delivery jobs itself.
    t = await startApp(kind, { clock, env: { SMTP_URL: smtpUrl, SPYGLASS_WEBHOOK_ALLOW_PRIVATE: '1', SPYGLASS_WEBHOOK_POLL_MS: '0', SPYGLASS_ALERT_POLL_SECONDS: '0', ...JOBS_RUN_BY_HAND } });
    key = t.creds.projectApiKey;
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await slack?.close();
  });

  const get = async (url: string) => {
    const res = await t.request('GET', url, { token: key });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const deliveries = async (channelId: string): Promise<Delivery[]> => (await get(`/api/alerts/channels/${channelId}/deliveries`)).data;
  const notifications = async (ruleId: string): Promise<Delivery[]> => (await get(`/api/alerts/rules/${ruleId}/notifications`)).data;
  /** Runs the due delivery jobs until the newest delivery of the channel has had `attempts` attempts. */
  const attempted = (channelId: string, attempts: number) =>
    expect
      .poll(async () => {
        await t.app.services.jobs.runDue();
        return (await deliveries(channelId))[0]?.attempts;
      }, { timeout: 15_000 })
      .toBe(attempts);

  let n = 0;
  /** One trace labelled `label`, at `at`. */
  async function trace(label: string, at: number) {
    const id = `quiet-${n++}`;
    const res = await t.request('POST', '/api/collector', {
      token: key,
      body: { trace_id: id, metadata: { labels: [label] }, spans: [{ span_id: `${id}-1`, type: 'llm', timestamps: { started_at: at, finished_at: at + 10 } }] },
    });
    expect(res.status, res.text).toBe(200);
  }
  /** A rule firing on any trace labelled `label` in a 5-minute window, resolved by one window without. */
  async function rule(name: string, label: string, channelId: string) {
    const res = await t.request('POST', '/api/alerts/rules', {
      token: key,
      body: { name, metric: { kind: 'trace_count' }, filters: { labels: label }, windowMinutes: 5, condition: { kind: 'threshold', operator: 'above', value: 0 }, resolveAfter: 1, channels: [channelId] },
    });
    expect(res.status, res.text).toBe(200);
    return res.body as { id: string; evaluatedThrough: number };
  }
  const state = async (id: string) => (await get(`/api/alerts/rules/${id}`)).state as string;

  it('retries an e-mail while the SMTP server is down, logs each attempt, sends it once the server is back, and marks one that never gets through failed', async () => {
    const mail = await t.request('POST', '/api/alerts/channels', { token: key, body: { name: 'On call', kind: 'email', target: 'oncall@example.test' } });
    expect(mail.status, mail.text).toBe(200);
    const channel = mail.body.id as string;
    const r = await rule('Mail down', 'mail-down', channel);
    const start = r.evaluatedThrough;

    await trace('mail-down', start + MIN);
    clock.set(start + 5 * MIN + 1_000);
    expect((await t.app.services.alerts.alerts.evaluateDue()).windows).toBe(1);
    expect(await state(r.id)).toBe('firing');

    // First attempt: the connection is refused. The log says so; the message waits for its retry.
    await attempted(channel, 1);
    let log = await deliveries(channel);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ eventType: 'alert.firing', subject: 'Firing: Mail down', status: 'pending', attempts: 1 });
    expect(log[0].lastError).toMatch(/^SMTP: .*ECONNREFUSED/);
    // Not retried before its backoff (10 s), then retried: refused again.
    await t.app.services.jobs.runDue();
    expect((await deliveries(channel))[0].attempts).toBe(1);
    clock.advance(15_000);
    await attempted(channel, 2);
    expect((await deliveries(channel))[0]).toMatchObject({ status: 'pending', attempts: 2 });

    // The server is back: the next retry (40 s later) delivers it, once.
    smtp = await startSmtp(undefined, smtpPort);
    clock.advance(60_000);
    await attempted(channel, 3);
    log = await deliveries(channel);
    expect(log[0]).toMatchObject({ eventType: 'alert.firing', status: 'sent', attempts: 3 });
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0].to).toEqual(['oncall@example.test']);
    expect(smtp.received[0].text).toContain('Firing: Mail down');
    expect(smtp.received[0].text).toContain('Mail down: Traces is 1 in');
    expect(await notifications(r.id)).toMatchObject([{ eventType: 'alert.firing', status: 'sent', attempts: 3, channelName: 'On call' }]);

    // Down again for good: the "resolved" message is tried 6 times (backoff 10 s, 40 s, 2.7 min,
    // 10.7 min, 43 min, each ±20 %), then marked failed with the last error: kept, not dropped.
    await smtp.close();
    smtp = null;
    clock.set(start + 10 * MIN + 1_000);
    expect((await t.app.services.alerts.alerts.evaluateDue()).windows).toBe(1);
    expect(await state(r.id)).toBe('resolved');
    for (let attempt = 1; attempt <= 6; attempt++) {
      if (attempt > 1) clock.advance(Math.ceil(1.25 * 10_000 * 4 ** (attempt - 2)));
      await attempted(channel, attempt);
      expect((await deliveries(channel))[0].status).toBe(attempt < 6 ? 'pending' : 'failed');
    }
    log = await deliveries(channel);
    expect(log.map((d) => [d.eventType, d.status, d.attempts])).toEqual([
      ['alert.resolved', 'failed', 6],
      ['alert.firing', 'sent', 3],
    ]);
    expect(log[0].lastError).toMatch(/^SMTP: .*ECONNREFUSED/);
    // No further attempt, however long one waits.
    clock.advance(24 * 60 * MIN);
    await t.app.services.jobs.runDue();
    expect((await deliveries(channel))[0]).toMatchObject({ status: 'failed', attempts: 6 });
    expect((await t.request('PATCH', `/api/alerts/rules/${r.id}`, { token: key, body: { enabled: false } })).status).toBe(200);
  }, 120_000);

  it('notifies no one while a rule is snoozed or muted; when that ends, the state it is in then is news only if it changed', async () => {
    const chat = await t.request('POST', '/api/alerts/channels', { token: key, body: { name: '#quiet', kind: 'slack', target: slack.url } });
    expect(chat.status, chat.text).toBe(200);
    const channel = chat.body.id as string;
    const from = Math.ceil(clock.now().getTime() / (5 * MIN)) * 5 * MIN;
    clock.set(from + 1_000);
    // Snoozed for the first two windows, each of which fires it.
    const snoozed = await rule('Snoozed', 'snoozed', channel);
    expect(snoozed.evaluatedThrough).toBe(from);
    // Snoozed too, firing in the first window and resolved in the second: over before the snooze ends.
    const brief = await rule('Brief', 'brief', channel);
    for (const id of [snoozed.id, brief.id]) {
      const res = await t.request('PATCH', `/api/alerts/rules/${id}`, { token: key, body: { snoozedUntil: from + 12 * MIN } });
      expect(res.body.snoozedUntil, res.text).toBe(from + 12 * MIN);
    }
    const windowEnds = async (w: number, labels: string[]) => {
      for (const label of labels) await trace(label, from + (w - 1) * 5 * MIN + MIN);
      clock.set(from + w * 5 * MIN + 1_000);
      expect((await t.app.services.alerts.alerts.evaluateDue()).windows).toBe(2);
    };

    await windowEnds(1, ['snoozed', 'brief']);
    expect([await state(snoozed.id), await state(brief.id)]).toEqual(['firing', 'firing']);
    await windowEnds(2, ['snoozed']);
    expect([await state(snoozed.id), await state(brief.id)]).toEqual(['firing', 'resolved']);
    expect(await notifications(snoozed.id)).toEqual([]);
    expect(await notifications(brief.id)).toEqual([]);
    // The history has every window, notified or not.
    expect((await get(`/api/alerts/rules/${snoozed.id}/history`)).data.map((e: { decision: string; state: string }) => [e.decision, e.state])).toEqual([
      ['breach', 'firing'],
      ['breach', 'firing'],
    ]);

    // The snooze is over: the rule still firing is announced, once; the brief one says nothing.
    await windowEnds(3, ['snoozed']);
    expect((await notifications(snoozed.id)).map((d) => d.subject)).toEqual(['Firing: Snoozed']);
    expect(await notifications(brief.id)).toEqual([]);
    await windowEnds(4, ['snoozed']);
    expect(await notifications(snoozed.id)).toHaveLength(1);
    await expect
      .poll(async () => {
        await t.app.services.jobs.runDue();
        return slack.received.map((m) => JSON.parse(m.body).text as string).filter((text) => text.includes('Snoozed'));
      }, { timeout: 15_000 })
      .toHaveLength(1);
    expect(JSON.parse(slack.received[0].body).text).toContain('*Firing: Snoozed*');

    // Muted, it resolves without a word; unmuted, its "resolved" (news: "firing" was the last told) goes out.
    expect((await t.request('PATCH', `/api/alerts/rules/${snoozed.id}`, { token: key, body: { muted: true } })).body.muted).toBe(true);
    await windowEnds(5, []);
    expect(await state(snoozed.id)).toBe('resolved');
    expect(await notifications(snoozed.id)).toHaveLength(1);
    expect((await t.request('PATCH', `/api/alerts/rules/${snoozed.id}`, { token: key, body: { muted: false } })).body.muted).toBe(false);
    await windowEnds(6, []);
    expect((await notifications(snoozed.id)).map((d) => d.subject)).toEqual(['Resolved: Snoozed', 'Firing: Snoozed']);
    await windowEnds(7, []);
    expect(await notifications(snoozed.id)).toHaveLength(2);
    expect(await notifications(brief.id)).toEqual([]);
  }, 120_000);
});
