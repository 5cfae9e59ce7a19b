import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { appDatabaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';

const T0 = Date.parse('2026-11-22T09:00:00Z');

/** Adding traces and spans to a dataset through a column mapping, now or as a background job. */
describe.each(appDatabaseKinds)('datasets from traces (%s)', (kind) => {
  let a: ProjectApp;
  useProjectApp(kind, (x) => (a = x));
  const call = (method: string, url: string, body?: unknown) => a.t.request(method, url, { token: a.key, body });
  const ingest = async (id: string, question: string, answer: string, extra: object[] = [], labels: string[] = []) => {
    const res = await a.t.request('POST', '/api/collector', {
      authToken: a.key,
      body: {
        trace_id: id,
        metadata: { labels, user_id: `user-${id}` },
        spans: [
          {
            span_id: `${id}-llm`,
            type: 'llm',
            model: 'gpt-4o-mini',
            input: { type: 'chat_messages', value: [{ role: 'user', content: question }] },
            output: { type: 'chat_messages', value: [{ role: 'assistant', content: answer }] },
            timestamps: { started_at: T0, finished_at: T0 + 100 },
          },
          ...extra,
        ],
      },
    });
    expect(res.status, res.text).toBe(200);
  };
  const columns = [
    { name: 'question', type: 'string' },
    { name: 'answer', type: 'string' },
    { name: 'contexts', type: 'rag_contexts' },
    { name: 'conversation', type: 'chat_messages' },
    { name: 'user', type: 'string' },
    { name: 'from_trace', type: 'string' },
  ];
  const mapping = { question: 'input', answer: 'output', contexts: 'contexts', conversation: 'messages', user: 'metadata.user_id', from_trace: 'trace_id' };

  it('adds traces and spans through a mapping, remembers it, and keeps where each record came from', async () => {
    await ingest('ft-1', 'What is Spyglass?', 'An observability tool.', [
      { span_id: 'ft-1-rag', type: 'rag', output: { type: 'json', value: [{ content: 'Spyglass records traces.' }, 'second context'] }, timestamps: { started_at: T0, finished_at: T0 + 10 } },
    ]);
    await ingest('ft-2', 'Hello?', 'Hi!');
    const d = (await call('POST', '/api/dataset', { name: 'From Traces', columnTypes: columns })).body;
    const res = await call('POST', `/api/dataset/${d.slug}/from-traces`, { items: [{ traceId: 'ft-1' }, { traceId: 'ft-2', spanId: 'ft-2-llm' }], mapping });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({ recordsCreated: 2, version: 1 });
    const all = (await call('GET', `/api/dataset/${d.slug}`)).body.data.map((r: { entry: unknown }) => r.entry);
    expect(all[0]).toMatchObject({ contexts: ['Spyglass records traces.', 'second context'], user: 'user-ft-1', from_trace: 'ft-1' });
    expect(all[0].conversation).toEqual([
      { role: 'user', content: 'What is Spyglass?' },
      { role: 'assistant', content: 'An observability tool.' },
    ]);
    expect(typeof all[0].question).toBe('string');
    expect(all[1]).toMatchObject({ question: [{ role: 'user', content: 'Hello?' }], contexts: [], from_trace: 'ft-2' });
    // The mapping is remembered: the next add needs none.
    const again = await call('POST', `/api/dataset/${d.slug}/from-traces`, { items: [{ traceId: 'ft-2' }] });
    expect(again.status, again.text).toBe(201);
    expect((await call('GET', `/api/dataset/${d.slug}/versions`)).body.data[0]).toMatchObject({ version: 2, change: 'from_traces', added: 1 });
    // The records keep their trace and span.
    const stored = await rows<{ trace_id: string; span_id: string | null }>(a.t.db.orm, sql`SELECT trace_id, span_id FROM dataset_records WHERE dataset_id = ${d.id} ORDER BY position`);
    expect(stored.map((r) => [r.trace_id, r.span_id])).toEqual([['ft-1', null], ['ft-2', 'ft-2-llm'], ['ft-2', null]]);
  });

  it('refuses what it cannot add, naming the field, and adds nothing', async () => {
    const d = (await call('POST', '/api/dataset', { name: 'Strict Traces', columnTypes: columns })).body;
    const cases: [object, number, string][] = [
      [{ items: [{ traceId: 'ft-1' }] }, 400, 'body.mapping'],
      [{ items: [{ traceId: 'ft-1' }], mapping: { nope: 'input' } }, 400, 'body.mapping.nope'],
      [{ items: [{ traceId: 'ft-1' }], mapping: { question: 'everything' } }, 400, 'body.mapping.question'],
      [{ items: [{ traceId: 'no-such-trace' }], mapping }, 404, ''],
      [{ items: [{ traceId: 'ft-1', spanId: 'no-such-span' }], mapping }, 404, ''],
      [{ mapping }, 400, 'body.items'],
      [{ items: Array.from({ length: 1001 }, () => ({ traceId: 'ft-1' })), mapping }, 400, 'body.items'],
    ];
    for (const [body, status, field] of cases) {
      const res = await call('POST', `/api/dataset/${d.slug}/from-traces`, body);
      expect(res.status, JSON.stringify(body).slice(0, 100)).toBe(status);
      if (field) expect(res.body.error.meta.field).toBe(field);
    }
    expect((await call('GET', `/api/dataset/${d.slug}/records`)).body.pagination.total).toBe(0);
    // Another project's traces are not found.
    const theirs = await a.t.request('POST', '/api/dataset', { token: a.other.projectToken, body: { name: 'Theirs', columnTypes: columns } });
    const steal = await a.t.request('POST', `/api/dataset/${theirs.body.slug}/from-traces`, { token: a.other.projectToken, body: { items: [{ traceId: 'ft-1' }], mapping } });
    expect(steal.status).toBe(404);
  });

  it('adds every trace matching a search as a background job whose progress GET reads', async () => {
    for (let i = 0; i < 5; i++) await ingest(`job-${i}`, `Question ${i}`, `Answer ${i}`, [], ['for-dataset']);
    await ingest('job-other', 'Not me', 'No', [], ['other']);
    const d = (await call('POST', '/api/dataset', { name: 'From Search', columnTypes: columns })).body;
    const started = await call('POST', `/api/dataset/${d.slug}/from-traces`, { filter: { filters: { labels: 'for-dataset' } }, mapping });
    expect(started.status, started.text).toBe(202);
    expect(started.body).toMatchObject({ datasetId: d.id, status: 'queued', total: 0, done: 0, recordsCreated: 0, error: null });
    const url = `/api/dataset/${d.slug}/imports/${started.body.id}`;
    expect((await call('GET', url)).body.status).toBe('queued');
    await a.t.app.services.jobs.runDue();
    const done = await call('GET', url);
    expect(done.body).toMatchObject({ status: 'completed', total: 5, done: 5, recordsCreated: 5 });
    const traces = (await call('GET', `/api/dataset/${d.slug}`)).body.data.map((r: { entry: { from_trace: string } }) => r.entry.from_trace).sort();
    expect(traces).toEqual(['job-0', 'job-1', 'job-2', 'job-3', 'job-4']);
    expect((await call('GET', `/api/dataset/${d.slug}/imports/import_nope`)).status).toBe(404);
    expect((await a.t.request('GET', url, { token: a.other.projectToken })).status).toBe(404);
    const badFilter = await call('POST', `/api/dataset/${d.slug}/from-traces`, { filter: { filters: { nonsense: 1 } } });
    expect(badFilter.status).toBe(400);
  });
});
