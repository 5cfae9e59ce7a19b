import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';

describe.each(appDatabaseKinds)('evaluators without a model: the checks family (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(kind);
  });
  afterAll(() => t.close());

  const evaluate = async (path: string, body: unknown) => t.request('POST', `/api/evaluations/${path}/evaluate`, { authToken: t.creds.projectApiKey, body });
  const passed = async (path: string, data: unknown, settings?: unknown) => {
    const res = await evaluate(path, { data, settings });
    expect(res.status, res.text).toBe(200);
    expect(res.body[0].status, res.text).toBe('processed');
    return res.body[0].passed as boolean;
  };

  it('each check gives its verdict', async () => {
    expect(await passed('checks/exact_match', { output: ' Paris ', expected_output: 'Paris' })).toBe(true);
    expect(await passed('checks/exact_match', { output: 'paris', expected_output: 'Paris' })).toBe(false);
    expect(await passed('checks/exact_match', { output: 'paris', expected_output: 'Paris' }, { case_sensitive: false })).toBe(true);
    expect(await passed('checks/contains', { output: 'We ship to France' }, { values: ['france', 'spain'] })).toBe(true);
    expect(await passed('checks/contains', { output: 'We ship to France' }, { values: ['france', 'spain'], mode: 'all' })).toBe(false);
    expect(await passed('checks/not_contains', { output: 'Try Acme' }, { values: ['acme'] })).toBe(false);
    expect(await passed('checks/regex', { output: 'order #12345' }, { pattern: '#\\d{5}' })).toBe(true);
    expect(await passed('checks/regex', { output: 'order #12345' }, { pattern: '#\\d{5}', should_match: false })).toBe(false);
    expect(await passed('checks/valid_json', { output: '{"a": 1}' })).toBe(true);
    expect(await passed('checks/valid_json', { output: '{a: 1}' })).toBe(false);
    const schema = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } }, required: ['name'] };
    expect(await passed('checks/json_schema', { output: '{"name": "Ada", "age": 36}' }, { schema })).toBe(true);
    expect(await passed('checks/json_schema', { output: '{"age": -1}' }, { schema })).toBe(false);
    expect(await passed('checks/length', { output: 'one two three' }, { max: 2, unit: 'words' })).toBe(false);
    expect(await passed('checks/length', { output: 'short' }, { min: 1, max: 10 })).toBe(true);
    expect(await passed('checks/latency', { latency_ms: 1200 }, { max_ms: 1000 })).toBe(false);
    expect(await passed('checks/cost', { cost: 0.001 }, { max_usd: 0.01 })).toBe(true);
  });

  it('bad settings and missing data: 400 naming the field', async () => {
    const cases: [string, unknown, string][] = [
      ['checks/regex', { data: { output: 'x' }, settings: { pattern: '(' } }, 'settings.pattern'],
      ['checks/json_schema', { data: { output: '{}' }, settings: {} }, 'settings.schema'],
      ['checks/length', { data: { output: 'x' }, settings: { min: 5, max: 1 } }, 'settings.min'],
      ['checks/contains', { data: { output: 'x' }, settings: { values: [] } }, 'settings.values'],
      ['checks/exact_match', { data: { output: 'x' } }, 'data.expected_output'],
      ['checks/latency', { data: {} , settings: {} }, 'data.latency_ms'],
    ];
    for (const [path, body, field] of cases) {
      const res = await evaluate(path, body);
      expect(res.status, `${path}: ${res.text}`).toBe(400);
      expect(res.body.error.meta.field, res.text).toBe(field);
    }
  });

  it('are in the catalogue, free and without requirements', async () => {
    const res = await t.request('GET', '/api/evaluations', { authToken: t.creds.projectApiKey });
    expect(res.status, res.text).toBe(200);
    const checks = res.body.evaluators.filter((e: { path: string }) => e.path.startsWith('checks/'));
    expect(checks.map((e: { path: string }) => e.path)).toEqual([
      'checks/exact_match', 'checks/contains', 'checks/not_contains', 'checks/regex', 'checks/valid_json', 'checks/json_schema', 'checks/length', 'checks/latency', 'checks/cost',
    ]);
    for (const c of checks) expect(c).toMatchObject({ isCostly: false, available: true, requirements: { llm: false } });
  });
});
