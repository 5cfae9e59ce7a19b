import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { appDatabaseKinds, useProjectApp, type RequestOptions, type TestApp, type Tenant } from '../support/harness.ts';

const SPEC_FIELDS = [
  'id',
  'handle',
  'scope',
  'name',
  'updatedAt',
  'projectId',
  'organizationId',
  'version',
  'versionId',
  'versionCreatedAt',
  'model',
  'prompt',
  'messages',
  'response_format',
];

describe.each(appDatabaseKinds)('prompts (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let other: Tenant;
  const clock = useProjectApp(kind, (app) => ({ t, key, other } = app));

  const as = (token: string) => ({
    get: (url: string, opts: RequestOptions = {}) => t.request('GET', url, { token, ...opts }),
    post: (url: string, body?: unknown, opts: RequestOptions = {}) => t.request('POST', url, { token, body, ...opts }),
    put: (url: string, body?: unknown, opts: RequestOptions = {}) => t.request('PUT', url, { token, body, ...opts }),
    del: (url: string, opts: RequestOptions = {}) => t.request('DELETE', url, { token, ...opts }),
  });
  const api = () => as(key);
  const eventCount = async (type: string, promptId: string) => {
    const [{ n }] = await rows<{ n: number }>(
      t.db.orm,
      sql`SELECT count(*)::int AS n FROM events WHERE type = ${type} AND (data->'prompt'->>'id') = ${promptId}`,
    );
    return n;
  };

  it('GET / and POST / are the prompt list and create, same as /api/prompts; every spec field is present', async () => {
    const created = await api().post('/', {
      handle: 'greeter',
      prompt: 'You greet {{name}}.',
      messages: [{ role: 'user', content: 'Say hello to {{name}}' }],
      inputs: [{ identifier: 'name', type: 'str' }],
      outputs: [{ identifier: 'greeting', type: 'str' }],
    });
    expect(created.status).toBe(200);
    for (const field of SPEC_FIELDS) expect(created.body, field).toHaveProperty(field);
    expect(created.body).toMatchObject({
      handle: 'greeter',
      scope: 'PROJECT',
      name: 'greeter',
      projectId: t.creds.project.id,
      organizationId: t.creds.organization.id,
      version: 1,
      model: 'openai/gpt-4o-mini',
      prompt: 'You greet {{name}}.',
      messages: [{ role: 'user', content: 'Say hello to {{name}}' }],
      response_format: null,
      inputs: [{ identifier: 'name', type: 'str' }],
      outputs: [{ identifier: 'greeting', type: 'str' }],
      commitMessage: 'Initial version',
      authorId: null,
    });
    expect(created.body.id).toMatch(/^prompt_/);
    expect(created.body.versionId).toMatch(/^pv_/);
    expect(created.body.versionCreatedAt).toBe('2026-11-22T10:00:00.000Z');

    const viaApi = await api().post('/api/prompts', { handle: 'team/summarizer' });
    expect(viaApi.status).toBe(200);
    // The default initial version.
    expect(viaApi.body).toMatchObject({
      handle: 'team/summarizer',
      version: 1,
      prompt: 'You are a helpful assistant.',
      messages: [{ role: 'user', content: '{{input}}' }],
      inputs: [{ identifier: 'input', type: 'str' }],
      outputs: [{ identifier: 'output', type: 'str' }],
    });

    for (const url of ['/', '/api/prompts']) {
      const list = await api().get(url, { headers: { accept: 'text/html' } });
      expect(list.status).toBe(200);
      expect(list.headers.get('content-type')).toContain('application/json');
      expect(list.body.map((p: { handle: string }) => p.handle).sort()).toEqual(['greeter', 'team/summarizer']);
      for (const p of list.body) for (const field of SPEC_FIELDS) expect(p).toHaveProperty(field);
    }
    expect(await eventCount('prompt.created', created.body.id)).toBe(1);
  });

  it('enforces the handle pattern with a 400 {error: string} naming the field', async () => {
    for (const handle of ['a', 'a_b-9', 'support/triage-v2', 'x/y']) {
      const res = await api().post('/api/prompts', { handle: `${handle}`.replace(/^/, 'ok-') });
      expect(res.status, handle).toBe(200);
    }
    for (const handle of ['Upper', 'has space', 'a/b/c', '/lead', 'trail/', 'dot.ted', '', 'é', 'a//b', 'x:1']) {
      const res = await api().post('/api/prompts', { handle });
      expect(res.status, handle).toBe(400);
      expect(Object.keys(res.body)).toEqual(['error']);
      expect(typeof res.body.error).toBe('string');
      expect(res.body.error).toContain('body.handle');
    }
    const missing = await api().post('/api/prompts', { prompt: 'no handle' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain('body.handle');
  });

  it('refuses bad declarations, roles and unknown fields with 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ handle: 'bad-role', messages: [{ role: 'robot', content: 'x' }] }, 'body.messages.0.role'],
      [{ handle: 'bad-msg', messages: [{ role: 'user' }] }, 'body.messages.0.content'],
      [{ handle: 'bad-input', inputs: [{ identifier: '', type: 'str' }] }, 'body.inputs.0.identifier'],
      [{ handle: 'bad-input-type', inputs: [{ identifier: 'x', type: 'string' }] }, 'body.inputs.0.type'],
      [{ handle: 'bad-output-type', outputs: [{ identifier: 'x', type: 'list[str]' }] }, 'body.outputs.0.type'],
      [{ handle: 'bad-schema', outputs: [{ identifier: 'x', type: 'json_schema', json_schema: { type: '' } }] }, 'body.outputs.0.json_schema.type'],
      [{ handle: 'no-schema', outputs: [{ identifier: 'x', type: 'json_schema' }] }, 'outputs.0.json_schema'],
      [{ handle: 'dup-input', inputs: [{ identifier: 'a', type: 'str' }, { identifier: 'a', type: 'float' }] }, 'inputs.1.identifier'],
      [{ handle: 'bad-scope', scope: 'GLOBAL' }, 'body.scope'],
      [{ handle: 'typo', mesages: [] }, 'mesages'],
    ];
    for (const [body, field] of cases) {
      const res = await api().post('/api/prompts', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, JSON.stringify(body)).toContain(field);
    }
    const notJson = await t.request('POST', '/api/prompts', { token: key, rawBody: '{"handle":', headers: { 'content-type': 'application/json' } });
    expect(notJson.status).toBe(400);
    expect(typeof notJson.body.error).toBe('string');
  });

  it('answers response_format when an output declares a json_schema, else null', async () => {
    const schema = { type: 'object', properties: { score: { type: 'number' } }, required: ['score'] };
    const res = await api().post('/api/prompts', {
      handle: 'scorer',
      outputs: [
        { identifier: 'reason', type: 'str' },
        { identifier: 'result', type: 'json_schema', json_schema: schema },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'result', schema } });
    const plain = await api().get('/api/prompts/greeter');
    expect(plain.body.response_format).toBeNull();
  });

  it('a handle is unique per scope: a second create answers 409', async () => {
    const again = await api().post('/api/prompts', { handle: 'greeter' });
    expect(again.status).toBe(409);
    expect(again.body.error).toContain('greeter');

    // Another project of the same organization may reuse a PROJECT handle...
    const project = await t.request('POST', '/api/projects', { token: t.creds.adminApiKey, body: { name: 'Second' } });
    const second = as(project.body.token);
    expect((await second.post('/api/prompts', { handle: 'greeter' })).status).toBe(200);

    // ...but ORGANIZATION handles are unique across the organization.
    expect((await api().post('/api/prompts', { handle: 'shared/tone', scope: 'ORGANIZATION' })).status).toBe(200);
    const clash = await second.post('/api/prompts', { handle: 'shared/tone', scope: 'ORGANIZATION' });
    expect(clash.status).toBe(409);
    // A PROJECT prompt with the same handle is another scope: allowed, and shadows it in its project.
    const local = await second.post('/api/prompts', { handle: 'shared/tone', prompt: 'local' });
    expect(local.status).toBe(200);
    expect((await second.get('/api/prompts/shared%2Ftone')).body.prompt).toBe('local');
    expect((await api().get('/api/prompts/shared%2Ftone')).body.scope).toBe('ORGANIZATION');

    // Racing creates: exactly one wins, the other gets 409.
    const race = await Promise.all([1, 2, 3].map(() => api().post('/api/prompts', { handle: 'raced' })));
    expect(race.map((r) => r.status).sort()).toEqual([200, 409, 409]);
  });

  it('organization-scoped prompts are listed in every project of the organization and nowhere else', async () => {
    const created = await api().post('/api/prompts', { handle: 'org-wide', scope: 'ORGANIZATION', prompt: 'shared' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ scope: 'ORGANIZATION', organizationId: t.creds.organization.id });

    const project = await t.request('POST', '/api/projects', { token: t.creds.adminApiKey, body: { name: 'Third' } });
    const third = as(project.body.token);
    const listed = await third.get('/api/prompts');
    expect(listed.body.map((p: { handle: string }) => p.handle)).toContain('org-wide');
    expect(listed.body.map((p: { handle: string }) => p.handle)).not.toContain('greeter');
    expect((await third.get(`/api/prompts/${created.body.id}`)).status).toBe(200);
    // A new version made from another project is seen by all.
    const v2 = await third.put('/api/prompts/org-wide', { commitMessage: 'from third', prompt: 'shared v2' });
    expect(v2.status).toBe(200);
    expect((await api().get('/api/prompts/org-wide')).body).toMatchObject({ version: 2, prompt: 'shared v2' });

    // Another organization sees none of it.
    const foreign = as(other.projectToken);
    expect((await foreign.get('/api/prompts')).body).toEqual([]);
    const byId = await foreign.get(`/api/prompts/${created.body.id}`);
    expect(byId.status).toBe(404);
    expect(Object.keys(byId.body)).toEqual(['error']);
    expect((await foreign.put(`/api/prompts/${created.body.id}`, { commitMessage: 'x' })).status).toBe(404);
    expect((await foreign.del(`/api/prompts/${created.body.id}`)).status).toBe(404);
    // The same handle is free in the other organization.
    expect((await foreign.post('/api/prompts', { handle: 'org-wide', scope: 'ORGANIZATION' })).status).toBe(200);
  });

  it('versions: PUT makes a new version carrying over what is not sent; reads by :version and :tag; restore; tags move', async () => {
    const v1 = (await api().get('/api/prompts/greeter')).body;
    expect((await api().put('/api/prompts/greeter', { prompt: 'no message' })).status).toBe(400);
    const noMessage = await api().put('/api/prompts/greeter', { prompt: 'x' });
    expect(noMessage.body.error).toContain('body.commitMessage');

    clock.advance(60_000);
    const v2 = await api().put(`/api/prompts/${v1.id}`, { commitMessage: 'friendlier', prompt: 'You warmly greet {{name}}.' });
    expect(v2.status).toBe(200);
    expect(v2.body).toMatchObject({
      id: v1.id,
      version: 2,
      commitMessage: 'friendlier',
      prompt: 'You warmly greet {{name}}.',
      messages: v1.messages,
      inputs: v1.inputs,
      outputs: v1.outputs,
      model: v1.model,
    });
    expect(v2.body.versionId).not.toBe(v1.versionId);
    expect(v2.body.versionCreatedAt).toBe(new Date(clock.now()).toISOString());
    expect(await eventCount('prompt.version_created', v1.id)).toBe(1);

    const v3 = await api().put('/api/prompts/greeter', { commitMessage: 'model', model: 'anthropic/claude-sonnet-4', name: 'Greeter' });
    expect(v3.body).toMatchObject({ version: 3, model: 'anthropic/claude-sonnet-4', name: 'Greeter', prompt: 'You warmly greet {{name}}.' });

    expect((await api().get('/api/prompts/greeter')).body.version).toBe(3);
    expect((await api().get('/api/prompts/greeter:1')).body).toMatchObject({ version: 1, prompt: 'You greet {{name}}.', versionId: v1.versionId });
    expect((await api().get(`/api/prompts/${v1.id}:2`)).body.version).toBe(2);
    expect((await api().get('/api/prompts/greeter:latest')).body.version).toBe(3);
    expect((await api().get('/api/prompts/greeter:9')).status).toBe(404);
    expect((await api().get('/api/prompts/greeter:production')).status).toBe(404);
    expect((await api().get('/api/prompts/greeter:Bad!')).status).toBe(400);

    const versions = await api().get('/api/prompts/greeter/versions');
    expect(versions.status).toBe(200);
    expect(versions.body.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    expect(versions.body[2]).toMatchObject({ versionId: v1.versionId, commitMessage: 'Initial version' });

    // Restore: a new version copying version 1.
    const restored = await api().post(`/api/prompts/greeter/versions/${v1.versionId}/restore`);
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body).toMatchObject({ version: 4, prompt: 'You greet {{name}}.', model: v1.model, commitMessage: 'Restored from version 1' });
    const byNumber = await api().post('/api/prompts/greeter/versions/2/restore', { commitMessage: 'back to warm' });
    expect(byNumber.body).toMatchObject({ version: 5, prompt: 'You warmly greet {{name}}.', commitMessage: 'back to warm' });
    expect((await api().post('/api/prompts/greeter/versions/pv_nope/restore')).status).toBe(404);
    expect(await eventCount('prompt.version_created', v1.id)).toBe(4);

    // Tags: production and staging, and custom ones, moved by PUT.
    const prod = await api().put('/api/prompts/greeter/tags/production', { version: 1 });
    expect(prod.status).toBe(200);
    expect(prod.body).toMatchObject({ promptId: v1.id, tag: 'production', versionId: v1.versionId, version: 1 });
    expect((await api().get('/api/prompts/greeter:production')).body).toMatchObject({ version: 1, tags: ['production'] });
    await api().put('/api/prompts/greeter/tags/staging', { versionId: v2.body.versionId });
    expect((await api().get('/api/prompts/greeter:staging')).body.version).toBe(2);
    const moved = await api().put('/api/prompts/greeter/tags/production', { version: 5 });
    expect(moved.body.version).toBe(5);
    expect((await api().get('/api/prompts/greeter:production')).body.version).toBe(5);
    expect((await api().get('/api/prompts/greeter')).body.tags).toEqual(['production']);
    expect((await api().put('/api/prompts/greeter/tags/canary-2', { version: 3 })).status).toBe(200);
    expect((await api().get('/api/prompts/greeter:canary-2')).body.version).toBe(3);

    expect((await api().put('/api/prompts/greeter/tags/latest', { version: 1 })).status).toBe(400);
    expect((await api().put('/api/prompts/greeter/tags/Prod', { version: 1 })).status).toBe(400);
    expect((await api().put('/api/prompts/greeter/tags/qa', {})).status).toBe(400);
    expect((await api().put('/api/prompts/greeter/tags/qa', { version: 1, versionId: v1.versionId })).status).toBe(400);
    expect((await api().put('/api/prompts/greeter/tags/qa', { version: 42 })).status).toBe(404);
    expect((await api().del('/api/prompts/greeter/tags/canary-2')).body).toEqual({ promptId: v1.id, tag: 'canary-2', deleted: true });
    expect((await api().get('/api/prompts/greeter:canary-2')).status).toBe(404);
    expect((await api().del('/api/prompts/greeter/tags/canary-2')).status).toBe(404);
    // A write never addresses one version.
    expect((await api().put('/api/prompts/greeter:2', { commitMessage: 'x' })).status).toBe(400);
  });

  it('renames a handle with PUT (409 when taken) and keeps the history', async () => {
    await api().post('/api/prompts', { handle: 'old-name' });
    expect((await api().put('/api/prompts/old-name', { commitMessage: 'rename', handle: 'greeter' })).status).toBe(409);
    const renamed = await api().put('/api/prompts/old-name', { commitMessage: 'rename', handle: 'new-name' });
    expect(renamed.body).toMatchObject({ handle: 'new-name', version: 2 });
    expect((await api().get('/api/prompts/old-name')).status).toBe(404);
    expect((await api().get('/api/prompts/new-name:1')).body.handle).toBe('new-name');
  });

  it('compiles the messages with the variables; a missing or mistyped input is a 400 naming it', async () => {
    await api().post('/api/prompts', {
      handle: 'support/reply',
      prompt: 'You answer for {{ company }}.',
      messages: [
        { role: 'user', content: 'Question: {{question}} (tags: {{tags}})' },
        { role: 'assistant', content: 'Noted.' },
      ],
      inputs: [
        { identifier: 'company', type: 'str' },
        { identifier: 'question', type: 'str' },
        { identifier: 'tags', type: 'list[str]' },
        { identifier: 'temperature', type: 'float' },
      ],
    });
    const ok = await api().post('/api/prompts/support%2Freply/compile', {
      variables: { company: 'Acme', question: 'Where is my order?', tags: ['shipping', 'urgent'] },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.prompt).toBe('You answer for Acme.');
    expect(ok.body.messages).toEqual([
      { role: 'user', content: 'Question: Where is my order? (tags: ["shipping","urgent"])' },
      { role: 'assistant', content: 'Noted.' },
    ]);
    expect(ok.body).toMatchObject({ handle: 'support/reply', version: 1 });

    const missing = await api().post('/api/prompts/support%2Freply/compile', { variables: { company: 'Acme', tags: [] } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain('question');
    const mistyped = await api().post('/api/prompts/support%2Freply/compile', {
      variables: { company: 'Acme', question: 'q', tags: 'shipping' },
    });
    expect(mistyped.status).toBe(400);
    expect(mistyped.body.error).toContain('variables.tags');
    const unusedMistyped = await api().post('/api/prompts/support%2Freply/compile', {
      variables: { company: 'Acme', question: 'q', tags: [], temperature: 'hot' },
    });
    expect(unusedMistyped.status).toBe(400);
    expect(unusedMistyped.body.error).toContain('variables.temperature');
    // A version or tag can be compiled too.
    expect((await api().post('/api/prompts/greeter:1/compile', { variables: { name: 'Ada' } })).body.prompt).toBe('You greet Ada.');
    expect((await api().post('/api/prompts/nope/compile', { variables: {} })).status).toBe(404);
  });

  it('records the author: the key user by default, or authorId', async () => {
    const admin = as(t.creds.adminApiKey);
    const created = await admin.post('/api/prompts', { handle: 'authored' }, { projectId: t.creds.project.id });
    expect(created.body.authorId).toBe(t.creds.user.id);
    const v2 = await api().put('/api/prompts/authored', { commitMessage: 'by bot', authorId: 'bot-7' });
    expect(v2.body.authorId).toBe('bot-7');
  });

  it('deletes a prompt with its versions; 404 afterwards', async () => {
    const created = await api().post('/api/prompts', { handle: 'doomed' });
    await api().put('/api/prompts/doomed', { commitMessage: 'v2' });
    const del = await api().del('/api/prompts/doomed');
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: created.body.id, handle: 'doomed', deleted: true });
    expect((await api().get('/api/prompts/doomed')).status).toBe(404);
    expect((await api().get(`/api/prompts/${created.body.id}/versions`)).status).toBe(404);
    expect((await api().del('/api/prompts/doomed')).status).toBe(404);
    const [{ n }] = await rows<{ n: number }>(t.db.orm, sql`SELECT count(*)::int AS n FROM prompt_versions WHERE prompt_id = ${created.body.id}`);
    expect(n).toBe(0);
    expect(await eventCount('prompt.deleted', created.body.id)).toBe(1);
    // The handle is free again.
    expect((await api().post('/api/prompts', { handle: 'doomed' })).status).toBe(200);
  });

  it('answers 400, 401 and 403 as {error: string}', async () => {
    for (const [method, url] of [
      ['GET', '/'],
      ['POST', '/'],
      ['GET', '/api/prompts'],
      ['GET', '/api/prompts/greeter'],
    ]) {
      const res = await t.request(method, url, { body: method === 'POST' ? { handle: 'x' } : undefined });
      expect(res.status).toBe(401);
      expect(Object.keys(res.body)).toEqual(['error']);
      expect(typeof res.body.error).toBe('string');
    }
    // An organization key must name the project.
    const unnamed = await t.request('GET', '/', { token: t.creds.adminApiKey });
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.error).toContain('X-Project-Id');
    const readonly = (
      await t.request('POST', '/api/api-keys', {
        token: t.creds.adminApiKey,
        body: { name: 'ro', keyType: 'service', permissionMode: 'readonly' },
      })
    ).body.token;
    const ro = as(readonly);
    const opts = { projectId: t.creds.project.id };
    expect((await ro.get('/api/prompts', opts)).status).toBe(200);
    const denied = await ro.post('/api/prompts', { handle: 'ro-made' }, opts);
    expect(denied.status).toBe(403);
    expect(typeof denied.body.error).toBe('string');
  });

  it('a project deleted takes its PROJECT prompts along, while ORGANIZATION prompts it created stay', async () => {
    const project = await t.request('POST', '/api/projects', { token: t.creds.adminApiKey, body: { name: 'Short-lived' } });
    const temp = as(project.body.token);
    const local = await temp.post('/api/prompts', { handle: 'temp-local' });
    const shared = await temp.post('/api/prompts', { handle: 'temp-shared', scope: 'ORGANIZATION' });
    expect((await t.request('DELETE', `/api/projects/${project.body.project.id}`, { token: t.creds.adminApiKey })).status).toBe(200);
    const [{ n }] = await rows<{ n: number }>(t.db.orm, sql`SELECT count(*)::int AS n FROM prompts WHERE id = ${local.body.id}`);
    expect(n).toBe(0);
    const kept = await api().get(`/api/prompts/${shared.body.id}`);
    expect(kept.status).toBe(200);
    expect(kept.body.projectId).toBe(t.creds.project.id);
  });
});
