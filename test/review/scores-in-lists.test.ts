import { describe, expect, it } from 'vitest';
import { databaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';

const DAY = 86_400_000;
const NOV20 = Date.parse('2026-11-20T00:00:00Z');

/**
 * Review scores where traces are read: the traces list (scores per trace, the score filter,
 * sortByScore with keyset pages across the unscored), analytics' time series, and experiment
 * run rows whose trace was reviewed.
 */
describe.each(databaseKinds)('scores in lists, charts and experiment rows (%s)', (kind) => {
  let a: ProjectApp;
  const clock = useProjectApp(kind, (x) => (a = x));
  const call = (method: string, url: string, body?: unknown, token?: string) => a.t.request(method, url, { authToken: token ?? a.key, body });
  const search = (body: object) => call('POST', '/api/trace/search', body);
  const configs: Record<string, string> = {};

  const ingest = async (id: string, startedAt: number, userId: string) => {
    const res = await call('POST', '/api/collector', {
      trace_id: id,
      metadata: { user_id: userId },
      spans: [{ span_id: `${id}-llm`, type: 'llm', model: 'gpt-4o-mini', input: { type: 'text', value: 'q' }, output: { type: 'text', value: 'a' }, timestamps: { started_at: startedAt, finished_at: startedAt + 100 } }],
    });
    expect(res.status, res.text).toBe(200);
  };
  const score = async (traceId: string, scores: { configId: string; value: number | boolean | string }[]) => {
    clock.advance(1000); // the latest score is the one given last
    const res = await call('POST', `/api/annotations/trace/${traceId}`, { comment: 'reviewed', isThumbsUp: true, scores });
    expect(res.status, res.text).toBe(200);
  };
  const ids = (res: { body: { traces: { trace_id: string }[] } }) => res.body.traces.map((t) => t.trace_id);

  it('setup: seven traces over two days, four of them reviewed', async () => {
    for (const [name, body] of [
      ['quality', { name: 'Quality', kind: 'numeric', min: 1, max: 5 }],
      ['correct', { name: 'Correct', kind: 'boolean' }],
      ['tone', { name: 'Tone', kind: 'categorical', categories: ['friendly', 'neutral', 'rude'] }],
    ] as const) {
      const res = await call('POST', '/api/score-configs', body);
      expect(res.status, res.text).toBe(201);
      configs[name] = res.body.data.id;
    }
    await ingest('t1', NOV20 + 10 * 3_600_000, 'u-a');
    await ingest('t2', NOV20 + 11 * 3_600_000, 'u-b');
    await ingest('t3', NOV20 + DAY + 30 * 60_000, 'u-b'); // 00:30 UTC on the 21st: the 20th an hour west
    await ingest('t4', NOV20 + DAY + 12 * 3_600_000, 'u-b');
    for (const id of ['t5', 't6', 't7']) await ingest(id, NOV20 + DAY + 13 * 3_600_000, 'u-c');
    await score('t1', [{ configId: configs.quality, value: 5 }, { configId: configs.correct, value: true }, { configId: configs.tone, value: 'friendly' }]);
    await score('t1', [{ configId: configs.quality, value: 4 }, { configId: configs.correct, value: false }, { configId: configs.tone, value: 'rude' }]);
    await score('t2', [{ configId: configs.quality, value: 2 }, { configId: configs.correct, value: true }]);
    await score('t3', [{ configId: configs.quality, value: 4 }]);
    await score('t4', [{ configId: configs.quality, value: 4 }]);
  });

  it('the search answers each trace with its scores summed up per config', async () => {
    const res = await search({ pageSize: 10 });
    expect(res.status, res.text).toBe(200);
    const byId = new Map(res.body.traces.map((t: { trace_id: string; scores: unknown[] }) => [t.trace_id, t.scores]));
    expect(byId.get('t1')).toEqual([
      { configId: configs.correct, name: 'Correct', kind: 'boolean', count: 2, mean: 0.5, latest: false, counts: {} },
      { configId: configs.quality, name: 'Quality', kind: 'numeric', count: 2, mean: 4.5, latest: 4, counts: {} },
      { configId: configs.tone, name: 'Tone', kind: 'categorical', count: 2, mean: null, latest: 'rude', counts: { friendly: 1, rude: 1 } },
    ]);
    expect(byId.get('t2')).toEqual([
      { configId: configs.correct, name: 'Correct', kind: 'boolean', count: 1, mean: 1, latest: true, counts: {} },
      { configId: configs.quality, name: 'Quality', kind: 'numeric', count: 1, mean: 2, latest: 2, counts: {} },
    ]);
    expect(byId.get('t5')).toEqual([]);
  });

  it('sortByScore: by the mean, ties by trace id, unscored traces last in both directions, paged by keyset', async () => {
    const pages = async (body: object, total = 7) => {
      const seen: string[][] = [];
      let scrollId: string | undefined;
      do {
        const res = await search({ ...body, scrollId });
        expect(res.status, res.text).toBe(200);
        expect(res.body.pagination.totalHits).toBe(total);
        seen.push(ids(res));
        scrollId = res.body.pagination.scrollId ?? undefined;
      } while (scrollId);
      return seen;
    };
    expect(await pages({ sortByScore: configs.quality, pageSize: 2 })).toEqual([['t1', 't4'], ['t3', 't2'], ['t7', 't6'], ['t5']]);
    expect(await pages({ sortByScore: configs.quality, sortDirection: 'asc', pageSize: 3 })).toEqual([['t2', 't3', 't4'], ['t1', 't5', 't6'], ['t7']]);
    // Boolean: the share true.
    expect((await pages({ sortByScore: configs.correct, pageSize: 7 }))[0]).toEqual(['t2', 't1', 't7', 't6', 't5', 't4', 't3']);
    // Together with a filter, and the score filter itself.
    expect((await pages({ sortByScore: configs.quality, sortDirection: 'asc', pageSize: 10, filters: { score: { configId: configs.quality, min: 4 } } }, 3))[0]).toEqual(['t3', 't4', 't1']);

    // A scrollId belongs to its sort.
    const first = await search({ sortByScore: configs.quality, pageSize: 2 });
    const mixed = await search({ pageSize: 2, scrollId: first.body.pagination.scrollId });
    expect(mixed.status).toBe(400);
    expect(mixed.body).toMatchObject({ error: 'invalid_scroll_id', field: 'scrollId' });

    const refused = async (sortByScore: unknown, text: string) => {
      const res = await search({ sortByScore });
      expect(res.status, JSON.stringify(sortByScore)).toBe(400);
      expect(res.body.field ?? res.body.issues?.[0]?.field).toMatch(/sortByScore/);
      expect(res.body.message).toContain(text);
    };
    await refused(configs.tone, 'categorical');
    await refused('sc_missing', 'no score config');
    await refused('', 'sortByScore');
    // Another organization's config does not sort this project's traces.
    const theirs = await call('POST', '/api/score-configs', { name: 'Theirs', kind: 'numeric' }, a.other.projectToken);
    await refused(theirs.body.data.id, 'no score config');
  });

  it('the score filter: a numeric range, a category, a boolean', async () => {
    const found = async (score: object) => ids(await search({ filters: { score }, pageSize: 10 })).sort();
    expect(await found({ configId: configs.quality, min: 4 })).toEqual(['t1', 't3', 't4']);
    expect(await found({ configId: configs.quality, max: 3 })).toEqual(['t2']);
    expect(await found({ configId: configs.tone, value: 'rude' })).toEqual(['t1']);
    expect(await found({ configId: configs.correct, value: false })).toEqual(['t1']);
  });

  it('analytics: per config and bucket the mean, the share true, the counts per category; the filter and utcOffsetMinutes apply', async () => {
    const series = async (body: object) => {
      const res = await call('POST', '/api/analytics/timeseries', { startDate: NOV20, endDate: NOV20 + 2 * DAY - 1, interval: 'day', ...body });
      expect(res.status, res.text).toBe(200);
      return new Map<string, { kind: string; buckets: { start: number; count: number; mean: number | null; counts: Record<string, number> }[] }>(
        res.body.scores.map((s: { name: string }) => [s.name, s]),
      );
    };
    const all = await series({});
    expect([...all.keys()]).toEqual(['Correct', 'Quality', 'Tone']);
    expect(all.get('Quality')!.buckets).toEqual([
      { start: NOV20, count: 3, mean: 11 / 3, counts: {} },
      { start: NOV20 + DAY, count: 2, mean: 4, counts: {} },
    ]);
    expect(all.get('Correct')!.buckets[0]).toEqual({ start: NOV20, count: 3, mean: 2 / 3, counts: {} });
    expect(all.get('Tone')!.buckets).toEqual([
      { start: NOV20, count: 2, mean: null, counts: { friendly: 1, rude: 1 } },
      { start: NOV20 + DAY, count: 0, mean: null, counts: {} },
    ]);

    const onlyA = await series({ filters: { user_id: 'u-a' } });
    expect(onlyA.get('Quality')!.buckets.map((b) => [b.count, b.mean])).toEqual([[2, 4.5], [0, null]]);
    // The score filter narrows the traces, and so the scores counted.
    const rude = await series({ filters: { score: { configId: configs.tone, value: 'rude' } } });
    expect(rude.get('Quality')!.buckets.map((b) => b.count)).toEqual([2, 0]);

    // An hour west of UTC, t3 (00:30 UTC on the 21st) started on the 20th.
    const west = await series({ utcOffsetMinutes: -60 });
    expect(west.get('Quality')!.buckets.filter((b) => b.count > 0).map((b) => b.count)).toEqual([4, 1]);

    // Nothing in range: no score series.
    const empty = await call('POST', '/api/analytics/timeseries', { startDate: NOV20 - 10 * DAY, endDate: NOV20 - 5 * DAY, interval: 'day' });
    expect(empty.body.scores).toEqual([]);
  });

  it("experiment rows show the scores of their reviewed trace", async () => {
    const logged = await call('POST', '/api/evaluations/batch/log_results', {
      experiment_slug: 'reviewed-rows',
      run_id: 'run-1',
      dataset: [
        { index: 0, entry: { question: 'q0' }, predicted: { output: 'a0' }, trace_id: 't1' },
        { index: 1, entry: { question: 'q1' }, predicted: { output: 'a1' }, trace_id: 't5' },
        { index: 2, entry: { question: 'q2' }, predicted: { output: 'a2' } },
      ],
    });
    expect(logged.status, logged.text).toBe(200);
    const res = await call('GET', '/api/experiments/reviewed-rows/runs/run-1/rows');
    expect(res.status, res.text).toBe(200);
    const rows = res.body.rows as { index: number; traceId: string | null; scores: { name: string; mean: number | null; latest: unknown }[] }[];
    expect(rows.map((r) => [r.index, r.traceId])).toEqual([[0, 't1'], [1, 't5'], [2, null]]);
    expect(rows[0].scores.map((s) => [s.name, s.mean, s.latest])).toEqual([
      ['Correct', 0.5, false],
      ['Quality', 4.5, 4],
      ['Tone', null, 'rude'],
    ]);
    expect(rows[1].scores).toEqual([]);
    expect(rows[2].scores).toEqual([]);
  });

  it('monitors do not filter by scores: a trace is picked when it arrives, before any review', async () => {
    const res = await call('POST', '/api/monitors', { name: 'By score', evaluator: 'pii/pii_detection', filters: { score: { configId: configs.quality, min: 4 } } });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', meta: { field: 'body.filters' } });
    expect(res.body.error.message).toContain('"score"');
  });
});
