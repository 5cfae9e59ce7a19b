import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, ManualClock, startApp, type TestApp } from '../support/harness.ts';
import { judgedTraces } from '../support/judged-traces.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
/** Now, in these tests: a window boundary of hour windows. */
const NOW = Date.parse('2026-11-21T12:00:00Z');

/**
 * The rule editor's preview of a rule that requires a trusted judge (docs/alerts.md): while the
 * judge is not trusted the replay holds back the windows past the condition, with the reason the
 * scheduler records ('held', never fired); once the team's trust rule calls the judge trusted,
 * the same preview fires there.
 */
describe.each(databaseKinds)('alert preview of a rule that requires a trusted judge (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  const clock = new ManualClock(NOW);
  beforeAll(async () => {
    t = await startApp(kind, { clock });
    key = t.creds.projectApiKey;
  });
  afterAll(() => t.close());

  const call = (method: string, url: string, body?: unknown) => t.request(method, url, { authToken: key, body });
  /** A trace at `at` the judge (exact match) passes or fails, labelled by people when `human` is given. */
  const judged = judgedTraces(call, 'ph');

  it('marks the windows held back while the judge is not trusted, with the reason the history gives, and fires there once it is', async () => {
    const correct = (await call('POST', '/api/score-configs', { name: 'Correct', kind: 'boolean' })).body.data.id as string;
    // Three hours ago: people pass the even traces of 60; the judge passes 24 of their 30 passes and 10 of their 30 fails (kappa 0.47).
    const labelled = NOW - 3 * HOUR;
    const humanPass = (i: number) => i % 2 === 0;
    const judgePass = (i: number) => (humanPass(i) ? i % 10 !== 0 : i % 6 === 1);
    for (let i = 0; i < 60; i++) await judged(labelled + i * 30_000, judgePass(i), { configId: correct, pass: humanPass(i) });
    // Two hours ago, a calm hour: 10 of 10 passed.
    for (let i = 0; i < 10; i++) await judged(NOW - 2 * HOUR + i * MIN, true);

    const passRate = { kind: 'evaluator_pass_rate', evaluator: 'langevals/exact_match' };
    const rule = (requireTrusted: boolean) => ({ name: 'Judge passes less', windowMinutes: 60, metric: { ...passRate, requireTrusted }, condition: { kind: 'threshold', operator: 'below', value: 0.8 } });
    const preview = async (body: object) => {
      const res = await call('POST', '/api/alerts/rules/preview', body);
      expect(res.status, res.text).toBe(200);
      return res.body as { fired: number; fires: Record<string, any>[]; held: string | null; heldWindows: number; windows: Record<string, any>[] };
    };
    const at = (p: { windows: Record<string, any>[] }, start: number) => p.windows.find((w) => w.windowStart === start)!;

    // Without the option the rule fires at the labelled hour (34 of 60 passed).
    const plain = await preview(rule(false));
    expect(plain).toMatchObject({ fired: 1, held: null, heldWindows: 0 });
    expect(plain.fires[0]).toMatchObject({ windowStart: labelled, decision: 'breach', state: 'firing', held: null });
    expect(at(plain, labelled)).toMatchObject({ decision: 'breach', breaches: 1, holds: 0 });

    // Requiring a trusted judge: that window is held, with the history's reason, and nothing fires.
    const held = await preview(rule(true));
    expect(held.held).toMatch(/^judge not trusted against Correct: kappa's 95 % lower bound is 0\.\d\d on 60 labels; the bar is 0\.6$/);
    expect(held).toMatchObject({ fired: 0, fires: [], heldWindows: 1 });
    expect(at(held, labelled)).toMatchObject({ decision: 'held', state: 'ok', breaches: 0, holds: 1, held: held.held, count: 60 });
    expect(at(held, labelled).value).toBeCloseTo(34 / 60, 10);
    expect(at(held, NOW - 2 * HOUR)).toMatchObject({ decision: 'calm', state: 'ok', holds: 0, value: 1, held: held.held });
    expect(held.windows.filter((w) => w.decision === 'held')).toHaveLength(1);

    // The rule saved: the next hour (20 verdicts, 5 passed) is held by the scheduler, and the preview says so in the same words and numbers.
    const saved = await call('POST', '/api/alerts/rules', rule(true));
    expect(saved.status, saved.text).toBe(200);
    clock.set(NOW + HOUR + 1_000);
    for (let i = 0; i < 20; i++) await judged(NOW + i * MIN, i < 5);
    await t.app.services.alerts.alerts.evaluateDue();
    const history = (await call('GET', `/api/alerts/rules/${saved.body.id}/history?limit=10`)).body.data as Record<string, any>[];
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ windowStart: NOW, decision: 'held', state: 'ok', count: 20, value: 0.25 });
    const again = await preview(rule(true));
    expect(again).toMatchObject({ fired: 0, heldWindows: 2, held: history[0].held });
    const { segments: _s, breaches: _b, holds: _h, ...replayed } = at(again, NOW);
    expect(replayed).toEqual(history[0]);
    // Without the option: fired at the labelled hour, resolved in the calm one, fired again.
    const plainNow = await preview(rule(false));
    expect(plainNow.fires.map((f) => f.windowStart)).toEqual([labelled, NOW]);

    // The team's bar the judge meets (accuracy's lower bound >= 0.5 on 40 labels): trusted, so the preview fires as the plain rule's.
    const set = await call('PUT', '/api/judge-alignment/trust-rule', { statistic: 'accuracy', atLeast: 0.5, minimumLabels: 40 });
    expect(set.status, set.text).toBe(200);
    const trusted = await preview(rule(true));
    expect(trusted).toMatchObject({ fired: 2, held: null, heldWindows: 0 });
    expect(trusted.windows).toEqual(plainNow.windows);
  }, 300_000);
});
