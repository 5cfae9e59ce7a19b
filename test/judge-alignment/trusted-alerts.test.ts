import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { databaseKinds, ManualClock, startApp, type TestApp } from '../support/harness.ts';
import { judgedTraces } from '../support/judged-traces.ts';

const MIN = 60_000;
const W = 5 * MIN;
const textOf = (answer: unknown) => ((answer as { content?: { text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('\n');

/**
 * An alert rule on a judge's pass rate that requires the judge to be trusted (docs/alerts.md):
 * while its agreement with people is below the project's trust rule the rule does not fire and
 * its history says why; once the team's rule calls the judge trusted, it fires as any rule.
 * The rule's answer, the alerts' MCP tools and a rule without the option show the judge's trust.
 */
describe.each(databaseKinds)('alert rules that require a trusted judge (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let base = Date.parse('2026-11-21T10:00:00Z');
  const clock = new ManualClock(base);
  beforeAll(async () => {
    t = await startApp(kind, { clock });
    key = t.creds.projectApiKey;
  });
  afterAll(() => t.close());

  const call = (method: string, url: string, body?: unknown) => t.request(method, url, { authToken: key, body });
  const freshWindow = () => {
    base += 60 * MIN;
    clock.set(base + 30_000);
    return base;
  };
  const evaluateWindow = async (start: number) => {
    clock.set(start + W + 1_000);
    await t.app.services.alerts.alerts.evaluateDue();
  };
  /** A trace at `at` the judge (exact match) passes or fails, labelled by people when `human` is given. */
  const judged = judgedTraces(call, 'ta');
  const history = async (id: string) => (await call('GET', `/api/alerts/rules/${id}/history?limit=100`)).body.data as Record<string, any>[];

  it('holds a rule back while its judge is not trusted, says why, fires once it is; requireTrusted without a judge is a 400 naming the field', async () => {
    const correct = (await call('POST', '/api/score-configs', { name: 'Correct', kind: 'boolean' })).body.data.id as string;
    const start = freshWindow();
    // People pass the even traces of 60; the judge passes 24 of their 30 passes and 10 of their 30 fails: kappa 0.47.
    const humanPass = (i: number) => i % 2 === 0;
    const judgePass = (i: number) => (humanPass(i) ? i % 10 !== 0 : i % 6 === 1);
    for (let i = 0; i < 60; i++) await judged(start + i * 4_000, judgePass(i), { configId: correct, pass: humanPass(i) });

    const make = async (body: object) => call('POST', '/api/alerts/rules', { windowMinutes: 5, ...body });
    const passRate = { kind: 'evaluator_pass_rate', evaluator: 'langevals/exact_match' };
    const below = { kind: 'threshold', operator: 'below', value: 0.8 };
    for (const [body, field] of [
      [{ name: 'latency', metric: { kind: 'latency_p95', requireTrusted: true }, condition: { kind: 'threshold', operator: 'above', value: 100 } }, 'metric.requireTrusted'],
      [{ name: 'errors', metric: { ...passRate, kind: 'evaluator_error_rate', requireTrusted: true }, condition: { kind: 'threshold', operator: 'above', value: 0 } }, 'metric.requireTrusted'],
      [{ name: 'every judge', metric: { kind: 'evaluator_pass_rate', requireTrusted: true }, splitBy: 'evaluator', condition: below }, 'metric.requireTrusted'],
      [{ name: 'not a flag', metric: { ...passRate, requireTrusted: 'yes' }, condition: below }, 'body.metric.requireTrusted'],
    ] as const) {
      const bad = await make(body);
      expect(bad.status, bad.text).toBe(400);
      expect(bad.body.error.meta?.field ?? bad.body.error.field, bad.text).toBe(field);
    }
    const held = await make({ name: 'Judge passes less', metric: { ...passRate, requireTrusted: true }, condition: below });
    expect(held.status, held.text).toBe(200);
    expect(held.body.judge).toMatchObject({ evaluator: 'langevals/exact_match', state: 'not trusted', scoreConfig: 'Correct', holding: true });
    const plain = await make({ name: 'Judge passes less, whatever the judge', metric: passRate, condition: below });
    expect(plain.body.judge).toMatchObject({ state: 'not trusted', holding: false });
    const latency = await make({ name: 'Slow', metric: { kind: 'latency_p95' }, condition: { kind: 'threshold', operator: 'above', value: 1e9 } });
    expect(latency.body.judge).toBeNull();

    await evaluateWindow(start);
    // 34 of 60 passed: below 0.8 either way. The rule requiring trust holds back and says why.
    const [h] = await history(held.body.id);
    expect(h).toMatchObject({ count: 60, decision: 'held', state: 'ok' });
    expect(h.value).toBeCloseTo(34 / 60, 10);
    expect(h.held).toMatch(/^judge not trusted against Correct: kappa's 95 % lower bound is 0\.\d\d on 60 labels; the bar is 0\.6$/);
    expect((await history(plain.body.id))[0]).toMatchObject({ decision: 'breach', state: 'firing', held: null });

    // The alerts' MCP tools say it too.
    const mcp = new Client({ name: 'trusted-alerts-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL('/mcp', t.baseUrl), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    try {
      const listed = textOf(await mcp.callTool({ name: 'list_alert_rules', arguments: {} }));
      expect(listed).toMatch(new RegExp(`${held.body.id} .* judge langevals/exact_match not trusted \\(kappa's 95 % lower bound is 0\\.\\d\\d on 60 labels; the bar is 0\\.6\\) · requires a trusted judge: held`));
      expect(textOf(await mcp.callTool({ name: 'get_alert_history', arguments: { id: held.body.id } }))).toContain('held → ok · held: judge not trusted against Correct');
    } finally {
      await mcp.close();
    }

    // The team's bar the judge meets (accuracy's lower bound >= 0.5 on 40 labels): trusted, so the rule fires.
    const set = await call('PUT', '/api/judge-alignment/trust-rule', { statistic: 'accuracy', atLeast: 0.5, minimumLabels: 40 });
    expect(set.status, set.text).toBe(200);
    expect((await call('GET', `/api/alerts/rules/${held.body.id}`)).body.judge).toMatchObject({ state: 'trusted', holding: false });
    const next = freshWindow();
    for (let i = 0; i < 20; i++) await judged(next + i * 10_000, i < 5);
    await evaluateWindow(next);
    const [fired] = await history(held.body.id);
    expect(fired).toMatchObject({ windowStart: next, count: 20, value: 0.25, decision: 'breach', state: 'firing', held: null });
  }, 300_000);
});
