import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { sql } from 'drizzle-orm';
import { createTenant, appDatabaseKinds, startApp, type TestApp, type Tenant } from '../support/harness.ts';
import { startFakeServer, textReply, toolCallReply, errorReply, type FakeServer } from './fake-servers.ts';

const KEY = 'sk-provider-secret-7Hq2xZ9wAbCd';

/** An Anthropic Messages API answer calling `name` with `input`. */
const anthropicTool = (name: string, input: unknown) => ({
  kind: 'json' as const,
  body: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-3-5-haiku-20241022', stop_reason: 'tool_use', content: [{ type: 'tool_use', id: 'tu_1', name, input }], usage: { input_tokens: 100, output_tokens: 20 } },
});
const anthropicText = (text: string) => ({
  kind: 'json' as const,
  body: { id: 'msg_2', type: 'message', role: 'assistant', model: 'claude-3-5-haiku-20241022', stop_reason: 'end_turn', content: [{ type: 'text', text }], usage: { input_tokens: 10, output_tokens: 2 } },
});

describe.each(appDatabaseKinds)('model providers set in the app (%s)', (kind) => {
  let t: TestApp;
  let fake: FakeServer;
  let admin: string;
  let projectId: string;
  let other: Tenant;
  beforeAll(async () => {
    fake = await startFakeServer();
    // No OPENAI_API_KEY: only providers set in the app can serve a judge.
    t = await startApp(kind);
    admin = t.creds.adminApiKey;
    projectId = t.creds.project.id;
    other = await createTenant(t);
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
  });

  const asAdmin = (method: string, url: string, body?: unknown) => t.request(method, url, { token: admin, projectId, body });

  it('creates a provider whose key is sealed and never shown again, only its last four characters', async () => {
    const res = await asAdmin('POST', '/api/model-providers', { name: 'local', kind: 'openai_compatible', api_key: KEY, base_url: `${fake.url}/v1`, models: ['gpt-4o-mini', 'llama3'] });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ name: 'local', kind: 'openai_compatible', scope: 'project', api_key_hint: '****AbCd', models: ['gpt-4o-mini', 'llama3'] });
    expect(res.text).not.toContain(KEY);
    const list = await asAdmin('GET', '/api/model-providers');
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(KEY);
    expect(list.body.data.map((p: { name: string }) => p.name)).toEqual(['local']);
    // At rest: sealed, not the key.
    const stored = await rows<{ key_sealed: string }>(t.db.orm, sql`SELECT key_sealed FROM model_providers`);
    expect(JSON.stringify(stored)).not.toContain(KEY);
    expect(JSON.stringify(stored)).not.toContain('7Hq2xZ9w');
    const models = await asAdmin('GET', '/api/model-providers/models');
    expect(models.body.data).toEqual([
      { model: 'local/gpt-4o-mini', provider: 'local', kind: 'openai_compatible', source: 'project' },
      { model: 'local/llama3', provider: 'local', kind: 'openai_compatible', source: 'project' },
    ]);
  });

  it('refuses a duplicate name (409), a compatible server without base_url and bad fields (400 naming them)', async () => {
    const dup = await asAdmin('POST', '/api/model-providers', { name: 'local', kind: 'openai', api_key: 'k-1234', models: ['gpt-4o'] });
    expect(dup.status).toBe(409);
    expect(dup.body.error.meta.field).toBe('body.name');
    const noBase = await asAdmin('POST', '/api/model-providers', { name: 'x', kind: 'openai_compatible', api_key: 'k-1234', models: ['m'] });
    expect(noBase.status).toBe(400);
    expect(noBase.body.error.meta.field).toBe('body.base_url');
    const badName = await asAdmin('POST', '/api/model-providers', { name: 'a b', kind: 'openai', api_key: 'k-1234', models: ['m'] });
    expect(badName.status).toBe(400);
    expect(badName.body.error.meta.field).toBe('body.name');
    const noModels = await asAdmin('POST', '/api/model-providers', { name: 'y', kind: 'openai', api_key: KEY, models: [] });
    expect(noModels.status).toBe(400);
    expect(noModels.text).not.toContain(KEY);
  });

  it('only administrators manage providers: a project key and a member see them but cannot add one', async () => {
    const body = { name: 'nope', kind: 'openai', api_key: 'k-1234', models: ['m'] };
    const byProjectKey = await t.request('POST', '/api/model-providers', { authToken: t.creds.projectApiKey, body });
    expect(byProjectKey.status).toBe(403);
    const seen = await t.request('GET', '/api/model-providers', { authToken: t.creds.projectApiKey });
    expect(seen.status).toBe(200);
    expect(seen.text).not.toContain(KEY);
  });

  it('tests a provider with one tiny call, and reports a failure without the key', async () => {
    const id = (await asAdmin('GET', '/api/model-providers')).body.data[0].id;
    fake.queue(textReply('OK'));
    const ok = await asAdmin('POST', `/api/model-providers/${id}/test`, {});
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, model: 'local/gpt-4o-mini', output: 'OK', error: null });
    expect(fake.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
    expect(fake.requests[0].path).toBe('/v1/chat/completions');
    // A server that echoes the key in its error: the answer carries no key.
    fake.queue(errorReply(401, `Incorrect API key provided: ${KEY}`));
    const bad = await asAdmin('POST', `/api/model-providers/${id}/test`, { model: 'llama3' });
    expect(bad.status).toBe(200);
    expect(bad.body.ok).toBe(false);
    expect(bad.body.error.message).toContain('401');
    expect(bad.text).not.toContain(KEY);
    const unknown = await asAdmin('POST', `/api/model-providers/${id}/test`, { model: 'gpt-5' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.meta.field).toBe('model');
  });

  it('LLM judges and "Try it" use the provider their model names', async () => {
    fake.queue(toolCallReply('evaluation', { reasoning: 'fine', final_score: 0.8 }));
    const res = await t.request('POST', '/api/evaluations/llm/llm_score/evaluate', { authToken: t.creds.projectApiKey, body: { data: { output: 'hello' }, settings: { model: 'local/gpt-4o-mini' } } });
    expect(res.status, res.text).toBe(200);
    expect(res.body[0]).toMatchObject({ status: 'processed', score: 0.8 });
    expect(fake.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
    expect(fake.requests[0].body.model).toBe('gpt-4o-mini');

    const unknown = await t.request('POST', '/api/evaluations/llm/llm_score/evaluate', { authToken: t.creds.projectApiKey, body: { data: { output: 'hello' }, settings: { model: 'elsewhere/gpt-4o-mini' } } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.meta.field).toBe('settings.model');

    const prompt = await t.request('POST', '/api/prompts', {
      authToken: t.creds.projectApiKey,
      body: { handle: 'p1', prompt: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }], model: 'local/llama3' },
    });
    expect(prompt.status, prompt.text).toBe(200);
    fake.queue(textReply('Hello!'));
    const run = await t.request('POST', '/api/prompts/p1/run', { authToken: t.creds.projectApiKey, body: {} });
    expect(run.status, run.text).toBe(200);
    expect(run.body.output.content).toBe('Hello!');
    expect(fake.requests[1].body.model).toBe('llama3');
  });

  it('an OpenAI-compatible server without authentication needs no key; its own /models list is offered to pick from', async () => {
    const models = { kind: 'json' as const, body: { object: 'list', data: [{ id: 'qwen2.5:7b', object: 'model' }, { id: 'llama3.1:8b', object: 'model' }] } };
    // Before it is set: the form's "Load models", no key sent at all.
    fake.queue(models);
    const discovered = await asAdmin('POST', '/api/model-providers/discover-models', { kind: 'openai_compatible', base_url: `${fake.url}/v1` });
    expect(discovered.status, discovered.text).toBe(200);
    expect(discovered.body).toEqual({ models: ['llama3.1:8b', 'qwen2.5:7b'] });
    expect(fake.requests[0]).toMatchObject({ method: 'GET', path: '/v1/models' });
    expect(fake.requests[0].headers.authorization).toBeUndefined();
    const created = await asAdmin('POST', '/api/model-providers', { name: 'ollama', kind: 'openai_compatible', base_url: `${fake.url}/v1`, models: ['qwen2.5:7b'] });
    expect(created.status, created.text).toBe(201);
    expect(created.body.api_key_hint).toBeNull();
    // Set: its list again, and a call without an Authorization header.
    fake.queue(models);
    const listed = await asAdmin('GET', `/api/model-providers/${created.body.id}/models`);
    expect(listed.body).toEqual({ models: ['llama3.1:8b', 'qwen2.5:7b'] });
    fake.queue(textReply('OK'));
    const test = await asAdmin('POST', `/api/model-providers/${created.body.id}/test`, {});
    expect(test.body).toMatchObject({ ok: true, output: 'OK' });
    expect(fake.requests.at(-1)!.headers.authorization).toBeUndefined();
    // The other kinds still need a key, and a refusal of the list is a 502 without the key.
    const noKey = await asAdmin('POST', '/api/model-providers', { name: 'oa', kind: 'openai', models: ['gpt-4o'] });
    expect(noKey.status).toBe(400);
    expect(noKey.body.error.meta.field).toBe('body.api_key');
    fake.queue(errorReply(401, `bad key ${KEY}`));
    const refused = await asAdmin('POST', '/api/model-providers/discover-models', { kind: 'openai_compatible', base_url: `${fake.url}/v1`, api_key: KEY });
    expect(refused.status).toBe(502);
    expect(refused.body.error.message).toContain('401');
    expect(refused.text).not.toContain(KEY);
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect((await asAdmin('DELETE', `/api/model-providers/${created.body.id}`)).status).toBe(200);
  });

  it('Azure OpenAI: the v1 API of the resource, the key in api-key', async () => {
    const res = await asAdmin('POST', '/api/model-providers', { name: 'azure', kind: 'azure_openai', api_key: 'azure-key-0001', base_url: fake.url, models: ['my-deployment'] });
    expect(res.status, res.text).toBe(201);
    fake.queue(toolCallReply('evaluation', { reasoning: 'r', final_score: 1 }));
    const out = await t.request('POST', '/api/evaluations/llm/llm_score/evaluate', { authToken: t.creds.projectApiKey, body: { data: { output: 'x' }, settings: { model: 'azure/my-deployment' } } });
    expect(out.body[0], out.text).toMatchObject({ status: 'processed', score: 1 });
    expect(fake.requests[0].path).toBe('/openai/v1/chat/completions');
    expect(fake.requests[0].headers['api-key']).toBe('azure-key-0001');
    expect(fake.requests[0].headers.authorization).toBeUndefined();
  });

  it('Anthropic: a forced tool call on the Messages API; an organization-wide provider serves every project', async () => {
    const res = await asAdmin('POST', '/api/model-providers', { name: 'claude', kind: 'anthropic', api_key: 'anthropic-key-0002', base_url: fake.url, models: ['claude-3-5-haiku-latest'], scope: 'organization' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.scope).toBe('organization');
    fake.queue(anthropicTool('evaluation', { reasoning: 'r', label: 'smalltalk' }));
    const out = await t.request('POST', '/api/evaluations/llm/llm_category/evaluate', { authToken: t.creds.projectApiKey, body: { data: { output: 'hi there' }, settings: { model: 'claude/claude-3-5-haiku-latest' } } });
    expect(out.body[0], out.text).toMatchObject({ status: 'processed', label: 'smalltalk' });
    const req = fake.requests[0];
    expect(req.path).toBe('/v1/messages');
    expect(req.headers['x-api-key']).toBe('anthropic-key-0002');
    expect(req.body.tool_choice).toEqual({ type: 'tool', name: 'evaluation' });
    expect(req.body.tools[0].input_schema.properties.label.enum).toEqual(['smalltalk', 'company']);

    fake.queue(anthropicText('OK'));
    const tested = await asAdmin('POST', `/api/model-providers/${res.body.id}/test`, {});
    expect(tested.body).toMatchObject({ ok: true, output: 'OK' });
  });

  it('another organization sees none of these providers and cannot use or delete them', async () => {
    const mine = (await asAdmin('GET', '/api/model-providers')).body.data as { id: string }[];
    const theirs = await t.request('GET', '/api/model-providers', { token: other.adminToken, projectId: other.projectId });
    expect(theirs.status).toBe(200);
    expect(theirs.body.data).toEqual([]);
    for (const p of mine) {
      expect((await t.request('DELETE', `/api/model-providers/${p.id}`, { token: other.adminToken, projectId: other.projectId })).status).toBe(404);
      expect((await t.request('POST', `/api/model-providers/${p.id}/test`, { token: other.adminToken, projectId: other.projectId, body: {} })).status).toBe(404);
    }
    const use = await t.request('POST', '/api/evaluations/llm/llm_score/evaluate', { token: other.adminToken, projectId: other.projectId, body: { data: { output: 'x' }, settings: { model: 'claude/claude-3-5-haiku-latest' } } });
    expect(use.status).toBe(400);
  });

  it('deletes a provider', async () => {
    const mine = (await asAdmin('GET', '/api/model-providers')).body.data as { id: string; name: string }[];
    const azure = mine.find((p) => p.name === 'azure')!;
    const res = await asAdmin('DELETE', `/api/model-providers/${azure.id}`);
    expect(res.body).toEqual({ id: azure.id, deleted: true });
    expect((await asAdmin('DELETE', `/api/model-providers/${azure.id}`)).status).toBe(404);
  });
});
