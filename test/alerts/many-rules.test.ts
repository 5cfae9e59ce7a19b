import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, ManualClock, startApp, type TestApp } from '../support/harness.ts';

const MIN = 60_000;
/** A whole hour: every rule made in the minute after it starts its first window here. */
const T0 = Date.parse('2026-11-23T09:00:00Z');
/**
 * More than two of a poll's batches of 200 due rules (405 due: two full, then the rest), so the
 * poll goes on batch after batch; `BENCH_ONLY=soak npm run bench` makes 1,000 (SPYGLASS_SOAK,
 * which only that bench sets). Each rule costs the test two requests and a read.
 */
const RULES = process.env.SPYGLASS_SOAK === '1' ? 1_000 : 450;

/**
 * The kinds of rule the project holds, in turn: a threshold on a rate, a change in traffic
 * against the previous window, a latency percentile, a rate split by model against a reference
 * period. Every tenth rule watches hourly windows (not due when the 5-minute ones are).
 */
const shapes = [
  { metric: { kind: 'error_rate' }, condition: { kind: 'threshold', operator: 'above', value: 0.5 } },
  { metric: { kind: 'trace_count' }, condition: { kind: 'change', baseline: { kind: 'previous' } } },
  { metric: { kind: 'latency_p95' }, condition: { kind: 'threshold', operator: 'above', value: 5_000 } },
  { metric: { kind: 'error_rate' }, splitBy: 'model', condition: { kind: 'change', baseline: { kind: 'reference', start: T0 - 60 * MIN, end: T0 } } },
];
const hourly = (i: number) => i % 10 === 9;

/** A project with hundreds of rules: one scheduler tick, when their windows end, evaluates each due rule's window once and keeps what it saw. */
describe.each(databaseKinds)(`${RULES} alert rules in one project (%s)`, (kind) => {
  let t: TestApp;
  const clock = new ManualClock(T0 + MIN);
  const ids: string[] = [];
  beforeAll(async () => {
    t = await startApp(kind, { clock });
  });
  afterAll(() => t?.close());

  it('evaluates every due rule exactly once in one tick and records each window', async () => {
    const key = t.creds.projectApiKey;
    for (let i = 0; i < RULES; i++) {
      const res = await t.request('POST', '/api/alerts/rules', { token: key, body: { name: `rule ${i}`, windowMinutes: hourly(i) ? 60 : 5, ...shapes[i % shapes.length] } });
      expect(res.status, res.text).toBe(200);
      ids.push(res.body.id);
    }
    // Traffic in the first 5-minute window: two models, one of them failing half the time.
    for (let i = 0; i < 20; i++) {
      const started = T0 + 10_000 * i;
      const model = i % 2 ? 'model-b' : 'model-a';
      const res = await t.request('POST', '/api/collector', {
        token: key,
        body: {
          trace_id: `many-${i}`,
          spans: [{ span_id: `many-${i}-1`, type: 'llm', model, input: { type: 'text', value: 'q' }, output: { type: 'text', value: 'a' }, ...(i % 4 === 1 ? { error: { message: 'boom' } } : {}), timestamps: { started_at: started, finished_at: started + 300 } }],
        },
      });
      expect(res.status, res.text).toBe(200);
    }

    // Nothing has ended yet: a tick evaluates nothing.
    expect((await t.app.services.alerts.alerts.evaluateDue()).windows).toBe(0);

    // The first 5-minute window ends: 9 rules in 10 are due, the hourly ones are not.
    const end = T0 + 5 * MIN;
    clock.set(end + 1_000);
    const due = ids.filter((_, i) => !hourly(i));
    const tick = await t.app.services.alerts.alerts.evaluateDue();
    // The server's own scheduler (every 15 s) may have taken some windows meanwhile: a second tick
    // finds nothing left, and each window was evaluated once, whoever took it.
    const again = await t.app.services.alerts.alerts.evaluateDue();
    expect(again.windows).toBe(0);
    expect(tick.windows).toBeGreaterThan(0);
    expect(tick.windows).toBeLessThanOrEqual(due.length);

    const list = await t.request('GET', '/api/alerts/rules', { token: key });
    expect(list.status).toBe(200);
    const through = new Map<string, number>((list.body.data as { id: string; evaluatedThrough: number }[]).map((r) => [r.id, r.evaluatedThrough]));
    expect(through.size).toBe(RULES);
    ids.forEach((id, i) => expect(through.get(id), `rule ${i}`).toBe(hourly(i) ? T0 : end));

    let claimed = 0;
    for (const [i, id] of ids.entries()) {
      const windows = await t.app.services.alerts.alerts.windowsEvaluated(id);
      expect(windows, `rule ${i}: windows evaluated`).toBe(hourly(i) ? 0 : 1);
      claimed += windows;
      const history = await t.request('GET', `/api/alerts/rules/${id}/history`, { token: key });
      expect(history.status).toBe(200);
      const rows = history.body.data as { windowStart: number; windowEnd: number; segment: string; count: number }[];
      if (hourly(i)) {
        expect(rows, `rule ${i}`).toEqual([]);
        continue;
      }
      // What the window saw: all 20 traces, or each model's 10 for the split rule.
      const split = i % shapes.length === 3;
      expect(
        rows.map((r) => [r.windowStart, r.windowEnd, r.segment, r.count]),
        `rule ${i}`,
      ).toEqual(split ? [[T0, end, 'model-a', 10], [T0, end, 'model-b', 10]] : [[T0, end, '', 20]]);
    }
    expect(claimed).toBe(due.length);
  }, 600_000);
});
