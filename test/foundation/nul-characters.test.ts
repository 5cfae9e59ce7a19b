import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startApp, type TestApp } from '../support/harness.ts';

const NUL = 'before\u0000after';

/** The field an error names, whichever of the three error shapes the route answers with. */
function fieldOf(body: any): string | undefined {
  if (typeof body?.error === 'string') return body.field ?? body.error.split(':')[0];
  return body?.error?.meta?.field;
}

describe.each(databaseKinds)('NUL characters and lone surrogates, which PostgreSQL text and jsonb cannot hold (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(kind);
  });
  afterAll(() => t.close());

  it('are a 400 naming the field on every route that stores what it is sent', async () => {
    const project = t.creds.projectApiKey;
    const admin = t.creds.adminApiKey;
    const cases: [string, string, unknown, string, string][] = [
      ['POST', '/api/prompts', { handle: 'nul', prompt: NUL }, project, 'body.prompt'],
      ['POST', '/api/prompts', { handle: 'nul', messages: [{ role: 'user', content: NUL }] }, project, 'body.messages.0.content'],
      ['POST', '/api/annotations/trace/t-nul', { comment: NUL, isThumbsUp: true, email: 'a@example.com' }, project, 'body.comment'],
      ['POST', '/api/monitors', { name: NUL, evaluator: 'llm/competitor_blocklist' }, project, 'body.name'],
      ['POST', '/api/projects', { name: NUL }, admin, 'body.name'],
      ['POST', '/api/api-keys', { name: NUL, keyType: 'service', projectIds: [t.creds.project.id] }, admin, 'body.name'],
      ['POST', '/api/evaluations/rag/context_recall/evaluate', { trace_id: 't-nul', data: { contexts: [NUL], expected_contexts: ['x'] } }, project, 'body.data.contexts.0'],
      ['POST', '/api/evaluations/llm/competitor_blocklist/evaluate', { data: { output: 'x' }, settings: { competitors: ['a'] }, name: 'n', metadata: { [`k${NUL}`]: 1 } }, project, 'body.metadata.kbefore\\u0000after'],
      ['GET', `/api/trace/${encodeURIComponent(NUL)}`, undefined, project, 'params.id'],
      // Path parameters that reach a lookup without a format check (the router's params object has no Object prototype).
      ['GET', '/api/annotations/%00', undefined, project, 'params.id'],
      ['PATCH', '/api/annotations/%00', { comment: 'c', isThumbsUp: true }, project, 'params.id'],
      ['DELETE', '/api/prompts/%00', undefined, project, 'params.id'],
      ['GET', '/api/monitors/%00', undefined, project, 'params.id'],
      ['GET', '/api/projects/%00', undefined, admin, 'params.id'],
      ['GET', '/api/api-keys/%00', undefined, admin, 'params.id'],
      ['POST', '/api/webhooks/v1/endpoints/%00/roll-secret', undefined, project, 'params.id'],
      ['GET', '/api/webhooks/v1/endpoints/x/deliveries?cursor=%00', undefined, project, 'query.cursor'],
      // jsonb refuses a lone surrogate (JSON.stringify writes it as the escape \ud800).
      ['POST', '/api/prompts', { handle: 'lone', outputs: [{ identifier: '\ud800', type: 'str' }] }, project, 'body.outputs.0.identifier'],
      ['POST', '/api/annotations/trace/t-nul', { comment: 'x\udc00', isThumbsUp: true }, project, 'body.comment'],
    ];
    for (const [method, url, body, token, field] of cases) {
      const res = await t.request(method, url, { token, body });
      expect(res.status, `${method} ${url}`).toBe(400);
      expect(fieldOf(res.body), `${method} ${url}: ${JSON.stringify(res.body)}`).toBe(field);
    }
  });

  it('are kept by routes that store them safely: the agent cache (encrypted) and trace ingestion (as U+FFFD)', async () => {
    const key = t.creds.projectApiKey;
    expect((await t.request('PUT', '/api/agent-cache/NUL_OK', { token: key, body: { value: NUL, ttl_seconds: 60 } })).status).toBe(200);
    expect((await t.request('GET', '/api/agent-cache/NUL_OK', { token: key })).body.value).toBe(NUL);
    const now = Date.now();
    const sent = await t.request('POST', '/api/collector', {
      authToken: key,
      body: { trace_id: 'nul-kept', spans: [{ span_id: 's1', type: 'span', output: { type: 'text', value: NUL }, timestamps: { started_at: now, finished_at: now + 1 } }] },
    });
    expect(sent.status).toBe(200);
    expect((await t.request('GET', '/api/trace/nul-kept', { token: key })).body.output.value).toBe('before\uFFFDafter');
    const lone = await t.request('POST', '/api/collector', {
      authToken: key,
      body: { trace_id: 'lone-kept', spans: [{ span_id: 's1', type: 'span', output: { type: 'text', value: 'a\ud800b' }, params: { 'k\udc00': 'v' }, timestamps: { started_at: now, finished_at: now + 1 } }] },
    });
    expect(lone.status, lone.text).toBe(200);
    expect((await t.request('GET', '/api/trace/lone-kept', { token: key })).body.output.value).toBe('a\uFFFDb');
  });
});
