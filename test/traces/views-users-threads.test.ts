import { describe, expect, it } from 'vitest';
import { databaseKinds, useProjectApp, type TestApp, type Tenant } from '../support/harness.ts';
import { agentTrace } from '../support/sample-traces.ts';

/**
 * The routes behind the trace page's search, the users page and saved views of the traces
 * list; the threads page reads the trace search (filtered by thread, oldest first).
 */
describe.each(databaseKinds)('span search, end users, saved views (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let other: Tenant;
  useProjectApp(kind, (app) => ({ t, key, other } = app));
  const T0 = Date.parse('2026-11-21T10:00:00Z');

  it('finds spans of a trace by name, type, model and attribute values, not attribute keys', async () => {
    expect((await t.request('POST', '/api/collector', { authToken: key, body: agentTrace('find-me', T0) })).status).toBe(200);
    const find = (q: string, via = key) => t.request('GET', `/api/trace/find-me/span-search?q=${encodeURIComponent(q)}`, { authToken: via });
    expect((await find('help center')).body.span_ids).toEqual(['find-me-retrieve']);
    expect((await find('RETRIEVER')).body.span_ids).toEqual(['find-me-retrieve']);
    expect((await find('gpt-4o-mini')).body.span_ids).toEqual(expect.arrayContaining(['find-me-llm1']));
    // An attribute value (db.system = pgvector), not a key.
    expect((await find('pgvector')).body).toEqual({ span_ids: ['find-me-retrieve'], truncated: false });
    expect((await find('db.system')).body.span_ids).toEqual([]);
    // LIKE's wildcards are plain characters.
    expect((await find('%')).body.span_ids).toEqual([]);
    const empty = await find('');
    expect(empty.status).toBe(400);
    expect(empty.body.field ?? JSON.stringify(empty.body)).toContain('q');
    expect((await t.request('GET', '/api/trace/nope/span-search?q=x', { authToken: key })).status).toBe(404);
    // Another tenant's key does not see it.
    expect((await find('help', other.projectToken)).status).toBe(404);
  });

  it('finds spans by their input (every message of a chat), output and error message', async () => {
    const at = (n: number) => ({ started_at: T0 + n * 10, finished_at: T0 + n * 10 + 5 });
    const body = {
      trace_id: 'payloads',
      spans: [
        { span_id: 'root', type: 'agent', name: 'agent', input: { type: 'text', value: 'Where is parcel 5521?' }, output: { type: 'text', value: 'It is "in the Leipzig hub"' }, timestamps: at(0) },
        {
          span_id: 'chat',
          parent_id: 'root',
          type: 'llm',
          name: 'answer',
          input: {
            type: 'chat_messages',
            value: [
              { role: 'system', content: 'You answer for Zephyrline couriers.' },
              { role: 'user', content: [{ type: 'text', text: 'Where is parcel 5521?' }] },
            ],
          },
          output: { type: 'chat_messages', value: [{ role: 'assistant', content: 'Checking the tracking board' }] },
          timestamps: at(1),
        },
        { span_id: 'tool', parent_id: 'root', type: 'tool', name: 'lookup', input: { type: 'json', value: { parcel: 5521 } }, error: { message: 'Upstream quota exhausted', stacktrace: [] }, timestamps: at(2) },
      ],
    };
    expect((await t.request('POST', '/api/collector', { authToken: key, body })).status).toBe(200);
    const find = async (q: string) => {
      const res = await t.request('GET', `/api/trace/payloads/span-search?q=${encodeURIComponent(q)}`, { authToken: key });
      expect(res.status, res.text).toBe(200);
      return res.body.span_ids as string[];
    };
    expect(await find('parcel 5521')).toEqual(['root', 'chat']); // text input; a chat's user message
    expect(await find('zephyrline')).toEqual(['chat']); // a chat's earlier (system) message
    expect(await find('tracking board')).toEqual(['chat']); // a chat output
    expect(await find('"in the leipzig')).toEqual(['root']); // a text output, quotes and all
    expect(await find('"parcel":5521')).toEqual(['tool']); // a JSON input
    expect(await find('quota exhausted')).toEqual(['tool']); // an error message
    // Message roles and payload keys are not text of the span.
    expect(await find('assistant')).toEqual([]);
    expect(await find('chat_messages')).toEqual([]);
  });

  it('lists end users with traces, cost, tokens, errors, thumbs, first and last seen; sorted, paged, isolated', async () => {
    const send = (id: string, user: string, at: number, opts: { error?: boolean; cost?: number } = {}) =>
      t.request('POST', '/api/collector', {
        authToken: key,
        body: {
          trace_id: id,
          metadata: { user_id: user, thread_id: `th-${user}` },
          spans: [
            {
              span_id: `${id}-s`,
              type: 'llm',
              model: 'gpt-4o-mini',
              input: { type: 'text', value: 'hi' },
              output: { type: 'text', value: 'hello' },
              metrics: { prompt_tokens: 10, completion_tokens: 5, cost: opts.cost ?? 0.001 },
              ...(opts.error ? { error: { message: 'boom' } } : {}),
              timestamps: { started_at: at, finished_at: at + 100 },
            },
          ],
        },
      });
    await send('u-a1', 'alice', T0);
    await send('u-a2', 'alice', T0 + 1000, { error: true, cost: 0.01 });
    await send('u-b1', 'bob', T0 + 2000);
    await send('u-c1', 'carol_x', T0 + 3000);
    await t.request('POST', '/api/annotations/trace/u-a1', { authToken: key, body: { comment: 'good', isThumbsUp: true } });
    await t.request('POST', '/api/annotations/trace/u-a2', { authToken: key, body: { comment: 'bad', isThumbsUp: false } });
    const users = (body: Record<string, unknown>, via = key) => t.request('POST', '/api/analytics/users', { authToken: via, body });

    const byTraces = await users({ sortBy: 'traces', sortDirection: 'desc', search: '' });
    expect(byTraces.status).toBe(200);
    const alice = byTraces.body.users[0];
    expect(alice).toEqual({
      user_id: 'alice',
      traces: 2,
      cost: 0.011,
      tokens: { prompt: 20, completion: 10 },
      errors: 1,
      thumbs_up: 1,
      thumbs_down: 1,
      first_seen: T0,
      last_seen: T0 + 1000,
    });
    expect(byTraces.body.pagination.total).toBeGreaterThanOrEqual(4); // the agent trace's customer-829 too
    const page = await users({ sortBy: 'user_id', sortDirection: 'asc', pageSize: 2, page: 2 });
    expect(page.body.users.map((u: { user_id: string }) => u.user_id)).toEqual(['carol_x', 'customer-829']);
    const past = await users({ sortBy: 'user_id', pageSize: 50, page: 9 });
    expect(past.body).toMatchObject({ users: [], pagination: { page: 9, total: page.body.pagination.total } });
    // Search within user ids; _ is a plain character.
    expect((await users({ search: 'L_X' })).body.users.map((u: { user_id: string }) => u.user_id)).toEqual(['carol_x']);
    // The trace filters count only matching traces.
    expect((await users({ filters: { has_error: true } })).body.users).toMatchObject([{ user_id: 'alice', traces: 1 }]);
    expect((await users({ sortBy: 'nope' })).status).toBe(400);
    expect((await users({ pageSize: 0 })).body.error.message).toContain('pageSize');
    expect((await users({}, other.projectToken)).body.users).toEqual([]);
  });

  it('reads a thread as its traces oldest first through the trace search', async () => {
    for (let i = 0; i < 5; i++) await t.request('POST', '/api/collector', { authToken: key, body: agentTrace(`turn-${i}`, T0 + i * 60_000, { threadId: 'conv-9', question: `question ${i}` }) });
    const res = await t.request('POST', '/api/trace/search', { authToken: key, body: { filters: { thread_id: 'conv-9' }, sortBy: 'started_at', sortDirection: 'asc', pageSize: 3 } });
    expect(res.body.traces.map((x: { trace_id: string }) => x.trace_id)).toEqual(['turn-0', 'turn-1', 'turn-2']);
    expect(res.body.pagination.totalHits).toBe(5);
  });

  it('saves, lists, renames and deletes views shared with the project', async () => {
    const create = (body: unknown, via = key) => t.request('POST', '/api/trace-views', { authToken: via, body });
    const made = await create({ name: 'Errors by cost', search: { error: 'yes', sort: 'cost' }, columns: ['time', 'input', 'meta:environment', 'eval:PII', 'cost'] });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'Errors by cost', search: { error: 'yes', sort: 'cost' }, columns: ['time', 'input', 'meta:environment', 'eval:PII', 'cost'], created_by: null });
    expect((await create({ name: 'Errors by cost' })).status).toBe(409);
    const bad = await create({ name: 'x', columns: ['nonsense'] });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('columns');
    expect((await create({ name: '' })).body.field ?? '').toContain('name');
    expect((await create({ name: 'x', search: { 'Bad Key': '1' } })).status).toBe(400);
    await create({ name: 'All', columns: [] });
    const list = await t.request('GET', '/api/trace-views', { authToken: key });
    expect(list.body.data.map((v: { name: string }) => v.name)).toEqual(['All', 'Errors by cost']);
    const renamed = await t.request('PATCH', `/api/trace-views/${made.body.id}`, { authToken: key, body: { name: 'Costly errors', columns: ['time', 'cost'] } });
    expect(renamed.body).toMatchObject({ name: 'Costly errors', search: { error: 'yes', sort: 'cost' }, columns: ['time', 'cost'] });
    expect((await t.request('PATCH', `/api/trace-views/${made.body.id}`, { authToken: key, body: { name: 'All' } })).status).toBe(409);
    // Another tenant sees none and can change none.
    expect((await t.request('GET', '/api/trace-views', { authToken: other.projectToken })).body.data).toEqual([]);
    expect((await t.request('PATCH', `/api/trace-views/${made.body.id}`, { authToken: other.projectToken, body: { name: 'mine' } })).status).toBe(404);
    expect((await t.request('DELETE', `/api/trace-views/${made.body.id}`, { authToken: other.projectToken })).status).toBe(404);
    expect((await t.request('DELETE', `/api/trace-views/${made.body.id}`, { authToken: key })).body).toEqual({ id: made.body.id, deleted: true });
    expect((await t.request('DELETE', `/api/trace-views/${made.body.id}`, { authToken: key })).status).toBe(404);
  });
});
