import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, ManualClock, startApp, type TestApp } from '../support/harness.ts';
import { Receiver } from '../webhooks/receiver.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
/** Now, in these tests: a window boundary of hour windows. */
const NOW = Date.parse('2026-11-21T12:00:00Z');

/** Sending the traffic through the collector takes most of a test's time on PGlite when the two cores are shared. */
const REPLAY_TIMEOUT_MS = 120_000;

describe.each(databaseKinds)('alert rules: channels per rule, preview, edit (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let first: Receiver;
  let second: Receiver;
  const clock = new ManualClock(NOW);
  beforeAll(async () => {
    first = await Receiver.start('/services/T000/B000/FIRST');
    second = await Receiver.start('/services/T000/B000/SECOND');
    t = await startApp(kind, { clock, env: { SPYGLASS_WEBHOOK_ALLOW_PRIVATE: '1', SPYGLASS_WEBHOOK_POLL_MS: '0' } });
    key = t.creds.projectApiKey;
  });
  afterAll(async () => {
    await t.close();
    await first.close();
    await second.close();
  });

  let n = 0;
  /** `count` traces labelled `label` of `model` in the 10 minutes from `at`, the first `errors` of them failed. */
  async function traffic(label: string, at: number, count: number, errors: number, model = 'gpt-4o') {
    await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const id = `pv-${n++}`;
        const started = at + Math.floor((i * 10 * MIN) / count);
        const res = await t.request('POST', '/api/collector', {
          authToken: key,
          body: {
            trace_id: id,
            metadata: { labels: [label] },
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
      }),
    );
  }
  const preview = (body: object) => t.request('POST', '/api/alerts/rules/preview', { token: key, body });
  const field = async (res: { status: number; body: any }) => {
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    return res.body.error.meta.field;
  };

  it('replays a threshold rule over the last 30 days: each window, and the 3 times it would have fired', async () => {
    // Fires: 10 days ago (one window), 5 days ago (two windows in a row: one fire), yesterday.
    // 2 days ago: every trace failed, but 3 traces are fewer than the rule's minimum of 5.
    const at = (days: number, hour = 0) => NOW - days * DAY + hour * HOUR;
    await traffic('thr', at(10), 10, 5);
    await traffic('thr', at(5), 10, 6);
    await traffic('thr', at(5, 1), 10, 5);
    await traffic('thr', at(2), 3, 3);
    await traffic('thr', at(1), 20, 8);
    // Calm traffic; and failures 40 days ago, before the replay.
    await traffic('thr', at(7), 10, 1);
    await traffic('thr', at(40), 10, 10);
    const rule = {
      name: 'Errors',
      metric: { kind: 'error_rate' },
      filters: { labels: ['thr'] },
      windowMinutes: 60,
      condition: { kind: 'threshold', operator: 'above', value: 0.3, minCount: 5 },
      resolveAfter: 1,
    };
    const res = await preview(rule);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const p = res.body;
    expect(p).toMatchObject({ from: NOW - 30 * DAY, to: NOW, windowMinutes: 60, fired: 3 });
    expect(p.windows).toHaveLength(30 * 24);
    expect(p.fires.map((f: { windowStart: number }) => f.windowStart)).toEqual([at(10), at(5), at(1)]);
    const window = (start: number) => p.windows.find((w: { windowStart: number }) => w.windowStart === start);
    expect(window(at(10))).toMatchObject({ windowEnd: at(10, 1), value: 0.5, count: 10, decision: 'breach', state: 'firing', segments: 1, breaches: 1 });
    expect(window(at(5, 1))).toMatchObject({ value: 0.5, decision: 'breach', state: 'firing' });
    expect(window(at(5, 2))).toMatchObject({ count: 0, decision: 'too_few', state: 'resolved' });
    // Resolved stays resolved (not ok again) until the next fire.
    expect(window(at(2))).toMatchObject({ value: 1, count: 3, decision: 'too_few', state: 'resolved' });
    expect(window(at(7))).toMatchObject({ value: 0.1, count: 10, decision: 'calm' });
    expect(window(at(1)).low).toBeLessThan(0.4);
    expect(window(at(1)).high).toBeGreaterThan(0.4);

    // The same rule with two windows in a row needed: only 5 days ago.
    const twice = await preview({ ...rule, condition: { ...rule.condition, consecutive: 2 } });
    expect(twice.body.fired).toBe(1);
    expect(twice.body.fires[0].windowStart).toBe(at(5, 1));
  }, REPLAY_TIMEOUT_MS);

  it('replays a split change rule with the scheduler\'s test: the model whose errors jumped fires, the other does not', async () => {
    const h = NOW - 3 * DAY;
    await traffic('chg', h - HOUR, 40, 2, 'gpt-4o');
    await traffic('chg', h - HOUR, 40, 2, 'claude-3-5-sonnet');
    await traffic('chg', h, 40, 20, 'gpt-4o');
    await traffic('chg', h, 40, 2, 'claude-3-5-sonnet');
    const res = await preview({
      name: 'Errors by model',
      metric: { kind: 'error_rate' },
      filters: { labels: ['chg'] },
      splitBy: 'model',
      windowMinutes: 60,
      condition: { kind: 'change', baseline: { kind: 'previous' }, alpha: 0.01, minCount: 10 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.fired).toBe(1);
    const [fire] = res.body.fires;
    expect(fire.segment).toContain('gpt-4o');
    expect(fire).toMatchObject({ windowStart: h, value: 0.5, count: 40, baseline: 0.05, baselineCount: 40, decision: 'breach' });
    expect(fire.pValue).toBeLessThan(0.001);
    const w = res.body.windows.find((x: { windowStart: number }) => x.windowStart === h);
    expect(w).toMatchObject({ segment: fire.segment, segments: 2, breaches: 1 });
  }, REPLAY_TIMEOUT_MS);

  it('answers a bad definition with the 400s of create', async () => {
    const base = { name: 'x', metric: { kind: 'error_rate' }, windowMinutes: 60, condition: { kind: 'threshold', operator: 'above', value: 0.1 } };
    expect(await field(await preview({ ...base, metric: { kind: 'latency_p42' } }))).toBe('body.metric.kind');
    expect(await field(await preview({ ...base, windowMinutes: 1 }))).toBe('windowMinutes');
    expect(await field(await preview({ ...base, condition: { kind: 'change', alpha: 0.7 } }))).toBe('body.condition.alpha');
    expect(await field(await preview({ ...base, condition: { kind: 'threshold', operator: 'above', value: 2 } }))).toBe('condition.value');
    expect(await field(await preview({ ...base, channels: ['alc_nope'] }))).toBe('channels');
  });

  it('notifies only the channels a rule chose; a deleted channel leaves the rule; the editor replaces the definition', async () => {
    const channel = async (name: string, r: Receiver) => (await t.request('POST', '/api/alerts/channels', { token: key, body: { name, kind: 'slack', target: r.url } })).body.id as string;
    const a = await channel('first', first);
    const b = await channel('second', second);
    const post = (body: object) => t.request('POST', '/api/alerts/rules', { token: key, body });
    const volume = { name: 'Volume', metric: { kind: 'trace_count' }, filters: { labels: ['chan'] }, windowMinutes: 60, condition: { kind: 'threshold', operator: 'above', value: 5 }, resolveAfter: 1 };
    expect(await field(await post({ ...volume, channels: [a, 'alc_unknown'] }))).toBe('channels');
    const onlyFirst = await post({ ...volume, channels: [a] });
    expect(onlyFirst.status, JSON.stringify(onlyFirst.body)).toBe(200);
    expect(onlyFirst.body.channels).toEqual([a]);
    const none = await post({ ...volume, name: 'Volume, quiet', channels: [] });
    const every = await post({ ...volume, name: 'Volume, everywhere' });
    expect(every.body.channels).toBeNull();

    await traffic('chan', NOW, 10, 0);
    clock.set(NOW + HOUR + 1_000);
    await t.app.services.alerts.alerts.evaluateDue();
    for (const r of [onlyFirst, none, every]) expect((await t.request('GET', `/api/alerts/rules/${r.body.id}`, { token: key })).body.state).toBe('firing');
    // What each channel was sent: its delivery log (the sending itself is rules.test.ts's).
    const subjects = async (id: string) => ((await t.request('GET', `/api/alerts/channels/${id}/deliveries`, { token: key })).body.data as { subject: string }[]).map((d) => d.subject).sort();
    expect(await subjects(a)).toEqual(['Firing: Volume', 'Firing: Volume, everywhere']);
    expect(await subjects(b)).toEqual(['Firing: Volume, everywhere']);
    // Each rule's page lists its own notifications, with the channel each went to.
    const notified = async (id: string) => ((await t.request('GET', `/api/alerts/rules/${id}/notifications`, { token: key })).body.data as { channelName: string; eventType: string }[]).map((d) => [d.channelName, d.eventType]).sort();
    expect(await notified(onlyFirst.body.id)).toEqual([['first', 'alert.firing']]);
    expect(await notified(none.body.id)).toEqual([]);
    expect(await notified(every.body.id)).toEqual([['first', 'alert.firing'], ['second', 'alert.firing']]);
    expect((await t.request('GET', '/api/alerts/rules/alr_nope/notifications', { token: key })).status).toBe(404);

    expect((await t.request('DELETE', `/api/alerts/channels/${a}`, { token: key })).status).toBe(200);
    expect((await t.request('GET', `/api/alerts/rules/${onlyFirst.body.id}`, { token: key })).body.channels).toEqual([]);

    // The editor: a new name and channels keep the state; a new condition starts it ok again.
    const put = (body: object) => t.request('PUT', `/api/alerts/rules/${onlyFirst.body.id}`, { token: key, body });
    const renamed = await put({ ...volume, name: 'Volume, renamed', channels: [b] });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Volume, renamed', channels: [b], state: 'firing' });
    expect(await field(await put({ ...volume, windowMinutes: 2 }))).toBe('windowMinutes');
    const changed = await put({ ...volume, condition: { kind: 'threshold', operator: 'above', value: 50 } });
    expect(changed.body).toMatchObject({ state: 'ok', segments: [], channels: null, condition: { value: 50 } });
    expect((await t.request('PUT', '/api/alerts/rules/alr_nope', { token: key, body: volume })).status).toBe(404);
  });
});
