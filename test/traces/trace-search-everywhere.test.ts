import { describe, expect, it } from 'vitest';
import { appDatabaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';

const T0 = Date.parse('2026-11-22T09:00:00Z');

/**
 * One trace search, taken whole by every route that takes one: review queues and dataset imports
 * from a search pick the traces POST /api/trace/search finds, with the filters whose data other
 * modules own (annotations, scores) as well as a summary's, and refuse what a search would.
 */
describe.each(appDatabaseKinds)('a trace search taken everywhere (%s)', (kind) => {
  let a: ProjectApp;
  useProjectApp(kind, (x) => (a = x));
  const call = (method: string, url: string, body?: unknown) => a.t.request(method, url, { authToken: a.key, body });
  const ingest = async (id: string, labels: string[]) => {
    const res = await call('POST', '/api/collector', {
      trace_id: id,
      metadata: { labels },
      spans: [{ span_id: `${id}-llm`, type: 'llm', model: 'gpt-4o-mini', input: { type: 'text', value: `q ${id}` }, output: { type: 'text', value: `a ${id}` }, timestamps: { started_at: T0, finished_at: T0 + 10 } }],
    });
    expect(res.status, res.text).toBe(200);
  };

  it('queues and imports from a search with score and annotation filters pick what the search finds', async () => {
    for (let i = 1; i <= 4; i++) await ingest(`everywhere-${i}`, ['everywhere']);
    const quality = await call('POST', '/api/score-configs', { name: 'Everywhere quality', kind: 'numeric', min: 1, max: 5 });
    expect(quality.status, quality.text).toBe(201);
    const configId = quality.body.data.id;
    for (const [trace, value] of [['everywhere-1', 5], ['everywhere-2', 2], ['everywhere-3', 4]] as const) {
      const res = await call('POST', `/api/annotations/trace/${trace}`, { comment: 'scored', isThumbsUp: true, scores: [{ configId, value }] });
      expect(res.status, res.text).toBe(200);
    }
    const search = { filters: { labels: ['everywhere'], has_annotation: true, score: { configId, min: 4 } } };
    const found = await call('POST', '/api/trace/search', { ...search, pageSize: 100 });
    expect(found.status, found.text).toBe(200);
    const ids = found.body.traces.map((t: { trace_id: string }) => t.trace_id).sort();
    expect(ids).toEqual(['everywhere-1', 'everywhere-3']);

    const queue = await call('POST', '/api/queues', { name: 'Everywhere', scoreConfigIds: [configId] });
    expect(queue.status, queue.text).toBe(201);
    const added = await call('POST', `/api/queues/${queue.body.data.id}/items`, { filter: search });
    expect(added.status, added.text).toBe(200);
    expect(added.body).toEqual({ added: 2, alreadyQueued: 0 });
    const items = await call('GET', `/api/queues/${queue.body.data.id}/items`);
    expect(items.body.data.map((i: { traceId: string }) => i.traceId).sort()).toEqual(ids);

    const d = (await call('POST', '/api/dataset', { name: 'Everywhere', columnTypes: [{ name: 'from_trace', type: 'string' }] })).body;
    const started = await call('POST', `/api/dataset/${d.slug}/from-traces`, { filter: search, mapping: { from_trace: 'trace_id' } });
    expect(started.status, started.text).toBe(202);
    await a.t.app.services.jobs.runDue();
    expect((await call('GET', `/api/dataset/${d.slug}/imports/${started.body.id}`)).body).toMatchObject({ status: 'completed', recordsCreated: 2 });
    const records = (await call('GET', `/api/dataset/${d.slug}`)).body.data.map((r: { entry: { from_trace: string } }) => r.entry.from_trace).sort();
    expect(records).toEqual(ids);
  });

  it('refuses what the search refuses, naming the field, in both', async () => {
    const queue = await call('POST', '/api/queues', { name: 'Refusals', scoreConfigIds: [(await call('POST', '/api/score-configs', { name: 'Refusal ok', kind: 'boolean' })).body.data.id] });
    const d = (await call('POST', '/api/dataset', { name: 'Refusals', columnTypes: [{ name: 'from_trace', type: 'string' }] })).body;
    for (const [body, field] of [
      [{ filter: { sortBy: 'cost' } }, 'body.filter'],
      [{ filter: { filters: { evaluation: { status: 'maybe' } } } }, 'body.filter.filters.evaluation.status'],
      [{ filter: { filters: { score: { min: 1 } } } }, 'body.filter.filters.score.configId'],
    ] as const) {
      const toQueue = await call('POST', `/api/queues/${queue.body.data.id}/items`, body);
      expect(toQueue.status, JSON.stringify(body)).toBe(400);
      expect(toQueue.body.error.meta.field).toBe(field);
      const toDataset = await call('POST', `/api/dataset/${d.slug}/from-traces`, { ...body, mapping: { from_trace: 'trace_id' } });
      expect(toDataset.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(toDataset.body)).toContain(field);
    }
  });
});
