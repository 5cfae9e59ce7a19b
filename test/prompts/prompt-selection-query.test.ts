/**
 * `?version=` and `?tag=` select a prompt version exactly as `handle:1` and
 * `handle:production` do (the LangWatch SDKs send the query form), on reads and on compile.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';

describe.each(databaseKinds)('prompt version and tag query parameters (%s)', (kind) => {
  let p: ProjectApp;
  useProjectApp(kind, (app) => (p = app));
  const get = (url: string) => p.t.request('GET', url, { token: p.key });
  const post = (url: string, body: unknown) => p.t.request('POST', url, { token: p.key, body });

  beforeAll(async () => {
    const created = await post('/api/prompts', {
      handle: 'support/reply',
      prompt: 'v1 for {{company}}',
      messages: [{ role: 'user', content: '{{question}}' }],
      inputs: [
        { identifier: 'company', type: 'str' },
        { identifier: 'question', type: 'str' },
      ],
    });
    expect(created.status).toBe(200);
    expect((await p.t.request('PUT', '/api/prompts/support%2Freply', { token: p.key, body: { commitMessage: 'v2', prompt: 'v2 for {{company}}' } })).status).toBe(200);
    expect((await p.t.request('PUT', '/api/prompts/support%2Freply', { token: p.key, body: { commitMessage: 'v3', prompt: 'v3 for {{company}}' } })).status).toBe(200);
    expect((await p.t.request('PUT', '/api/prompts/support%2Freply/tags/production', { token: p.key, body: { version: 2 } })).status).toBe(200);
  });

  it('GET ?version= and ?tag= answer that version, like handle:N and handle:tag', async () => {
    expect((await get('/api/prompts/support%2Freply')).body.version).toBe(3);
    expect((await get('/api/prompts/support%2Freply?version=1')).body).toMatchObject({ version: 1, prompt: 'v1 for {{company}}' });
    expect((await get('/api/prompts/support%2Freply?tag=production')).body).toMatchObject({ version: 2, tags: ['production'] });
    expect((await get('/api/prompts/support%2Freply?label=production')).body.version).toBe(2);
    expect((await get('/api/prompts/support%2Freply?version=latest')).body.version).toBe(3);
    for (const [path, query] of [
      ['support%2Freply:1', 'version=1'],
      ['support%2Freply:production', 'tag=production'],
    ]) {
      const a = await get(`/api/prompts/${path}`);
      const b = await get(`/api/prompts/support%2Freply?${query}`);
      expect(b.body).toEqual(a.body);
    }
    // The same selection twice is fine; a different one is a 400 naming the field.
    expect((await get('/api/prompts/support%2Freply:1?version=1')).body.version).toBe(1);
    const conflict = await get('/api/prompts/support%2Freply:1?version=2');
    expect(conflict.status).toBe(400);
    expect(conflict.body.error).toContain('version');
  });

  it('a version or tag that does not exist is a 404, a malformed one a 400', async () => {
    expect((await get('/api/prompts/support%2Freply?version=9')).status).toBe(404);
    expect((await get('/api/prompts/support%2Freply?tag=staging')).status).toBe(404);
    const bad = await get('/api/prompts/support%2Freply?version=one');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('version');
    expect((await get('/api/prompts/support%2Freply?version=1&tag=production')).status).toBe(400);
  });

  it('compile takes ?version= and ?tag= too', async () => {
    const variables = { company: 'Acme', question: 'Where is my parcel?' };
    expect((await post('/api/prompts/support%2Freply/compile?version=1', { variables })).body).toMatchObject({ version: 1, prompt: 'v1 for Acme' });
    expect((await post('/api/prompts/support%2Freply/compile?tag=production', { variables })).body).toMatchObject({ version: 2, prompt: 'v2 for Acme' });
    expect((await post('/api/prompts/support%2Freply/compile?version=7', { variables })).status).toBe(404);
  });
});
