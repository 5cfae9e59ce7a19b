import { describe, expect, it } from 'vitest';
import { pool } from '../../src/platform/task-pool.ts';
import { databaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;

interface Seeded {
  id: string;
  startedAt: number;
  words: string[];
  user: string;
  cost: number;
}

/**
 * The trace search over traces spread across many days (each day stored apart): every page,
 * walked with scrollId, in the order of (start DESC, trace id DESC) over all of them, whatever
 * day the page's traces are in, whether the first day alone fills it or not, with ties in start
 * time and a trace whose start moved after it was first stored.
 */
describe.each(databaseKinds)('search across days (%s)', (kind) => {
  let a: ProjectApp;
  const clock = useProjectApp(kind, (x) => (a = x));
  const call = (body: object) => a.t.request('POST', '/api/trace/search', { authToken: a.key, body });
  const send = async (id: string, startedAt: number, text: string, user: string, cost: number) => {
    const res = await a.t.request('POST', '/api/collector', {
      authToken: a.key,
      body: {
        trace_id: id,
        metadata: { user_id: user, labels: ['across-days'] },
        spans: [
          {
            span_id: `${id}-llm`,
            type: 'llm',
            model: 'gpt-4o-mini',
            input: { type: 'text', value: text },
            output: { type: 'text', value: 'ok' },
            metrics: { cost },
            timestamps: { started_at: startedAt, finished_at: startedAt + 10 },
          },
        ],
      },
    });
    expect(res.status, res.text).toBe(200);
  };

  /** Every page of a search, walked with scrollId: the trace ids in order, and each page's totalHits. */
  const walk = async (body: object, pageSize: number) => {
    const ids: string[] = [];
    const totals: number[] = [];
    let scrollId: string | undefined;
    for (let pages = 0; pages < 200; pages++) {
      const res = await call({ ...body, pageSize, scrollId });
      expect(res.status, res.text).toBe(200);
      ids.push(...res.body.traces.map((t: { trace_id: string }) => t.trace_id));
      totals.push(res.body.pagination.totalHits);
      expect(res.body.pagination.totalHitsRelation).toBe('eq');
      scrollId = res.body.pagination.scrollId ?? undefined;
      if (!scrollId) break;
    }
    return { ids, totals };
  };

  // Hundreds of pages (page sizes down to 1): past the default minute on a slow 2-core machine.
  it('pages newest first over 40 days exactly as one ordered list, for text queries, filters and other sorts', { timeout: 240_000 }, async () => {
    const now = clock.now().getTime();
    const seeded: Seeded[] = [];
    // 80 traces over the last 40 days, some hours apart, some days; a common word, a rarer one,
    // and one only in the oldest days. Two a day so that pages of 3 and 7 end inside a day and
    // across days, and 40 days so that the oldest word and the 20-day start date leave days out.
    for (let i = 0; i < 80; i++) {
      const startedAt = now - Math.floor(i / 2) * DAY - (i % 2) * 5 * HOUR - 60_000;
      const words = ['everyday', ...(i % 5 === 0 ? ['seldom'] : []), ...(i >= 70 ? ['ancient'] : [])];
      seeded.push({ id: `across-${String(i).padStart(3, '0')}`, startedAt, words, user: `u${i % 3}`, cost: (i * 7919) % 101 });
    }
    // Three traces starting at the same millisecond a day back: ordered by trace id.
    for (const id of ['across-tie-a', 'across-tie-b', 'across-tie-c']) seeded.push({ id, startedAt: now - DAY, words: ['everyday', 'seldom'], user: 'u0', cost: 1 });
    // Eight at a time: the collector writes what arrives together in one transaction.
    await pool(seeded.map((s) => () => send(s.id, s.startedAt, s.words.join(' '), s.user, s.cost)), 8);
    // A trace first stored 30 days back whose span, sent again, now starts an hour ago: it
    // stays in its first day's storage but sorts by its new start.
    const moved: Seeded = { id: 'across-moved', startedAt: now - HOUR, words: ['everyday', 'seldom'], user: 'u1', cost: 3 };
    await send(moved.id, now - 30 * DAY, 'everyday seldom', moved.user, moved.cost);
    clock.advance(1000);
    await send(moved.id, moved.startedAt, 'everyday seldom', moved.user, moved.cost);
    seeded.push(moved);
    clock.advance(1000);

    const newestFirst = (list: Seeded[]) => [...list].sort((x, y) => y.startedAt - x.startedAt || (y.id < x.id ? -1 : y.id > x.id ? 1 : 0)).map((s) => s.id);
    // Pages of one (each ~30 ms of CPU here, the most of this test's cost) for the two searches
    // that answer every trace, a filter and a text query: every pair of neighbours in the whole
    // order, ties and the moved trace included, is then a page boundary on both paths. The narrower
    // searches walk pages of 3 and 7 (boundaries inside and across days) and one page of 100.
    const cases: [object, (s: Seeded) => boolean, number[]][] = [
      [{ filters: { labels: 'across-days' } }, () => true, [1, 3, 7, 100]],
      [{ query: 'everyday' }, (s) => s.words.includes('everyday'), [1, 3, 7, 100]],
      [{ query: 'seldom' }, (s) => s.words.includes('seldom'), [3, 7, 100]],
      [{ query: 'ancient' }, (s) => s.words.includes('ancient'), [3, 7, 100]],
      [{ query: 'everyday', filters: { user_id: ['u1', 'u2'] } }, (s) => s.user !== 'u0', [3, 7, 100]],
      [{ query: 'seldom', startDate: now - 20 * DAY }, (s) => s.words.includes('seldom') && s.startedAt >= now - 20 * DAY, [3, 7, 100]],
    ];
    for (const [body, keep, pageSizes] of cases) {
      const expected = newestFirst(seeded.filter(keep));
      for (const pageSize of pageSizes) {
        const { ids, totals } = await walk(body, pageSize);
        expect(ids, `${JSON.stringify(body)}, pages of ${pageSize}`).toEqual(expected);
        expect(new Set(totals)).toEqual(new Set([expected.length]));
      }
    }
    // Oldest first and by cost: the same traces, in their own orders.
    const oldest = await walk({ query: 'seldom', sortDirection: 'asc' }, 4);
    expect(oldest.ids).toEqual(newestFirst(seeded.filter((s) => s.words.includes('seldom'))).reverse());
    const byCost = await walk({ query: 'everyday', sortBy: 'metrics.total_cost' }, 6);
    const costOf = new Map(seeded.map((s) => [s.id, s.cost]));
    expect(byCost.ids.map((id) => costOf.get(id))).toEqual(seeded.map((s) => s.cost).sort((x, y) => y - x));
    expect(new Set(byCost.ids)).toEqual(new Set(seeded.map((s) => s.id)));
  });
});
