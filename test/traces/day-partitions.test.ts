import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { createTenant, databaseKinds, startApp, useProjectApp, type ProjectApp } from '../support/harness.ts';

/**
 * Spans and trace summaries are stored by day (docs/operating.md: Retention): a trace stays in
 * the day it started on, whatever day its later spans start on, and retention drops a day
 * whole once every project with traces that day is past its retention period.
 */
const DAY = 86_400_000;

describe.each(databaseKinds)('traces stored by day (%s)', (kind) => {
  let p: ProjectApp;
  const clock = useProjectApp(kind, (started) => (p = started));

  const otlp = (traceId: string, spanId: string, startMs: number, parentSpanId?: string) => ({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'day-test' } }] },
        scopeSpans: [
          {
            scope: { name: 'day-test' },
            spans: [
              {
                traceId,
                spanId,
                ...(parentSpanId ? { parentSpanId } : {}),
                name: `span ${spanId}`,
                kind: 1,
                startTimeUnixNano: String(BigInt(startMs) * 1_000_000n),
                endTimeUnixNano: String(BigInt(startMs + 1_000) * 1_000_000n),
              },
            ],
          },
        ],
      },
    ],
  });
  const send = async (token: string, body: object) => {
    const res = await p.t.request('POST', '/api/otel/v1/traces', { token, body });
    expect(res.status, res.text).toBe(200);
  };
  const suffix = (day: number) => new Date(day * DAY).toISOString().slice(0, 10).replace(/-/g, '');
  const partitionsOf = async (day: number) =>
    (
      await rows<{ name: string }>(
        p.t.db.orm,
        sql`SELECT relname AS name FROM pg_class WHERE relname IN (${`traces_d${suffix(day)}`}, ${`spans_d${suffix(day)}`}, ${`evaluations_d${suffix(day)}`}) ORDER BY 1`,
      )
    ).map((r) => r.name);
  const spansOf = async (traceId: string) =>
    Number((await rows<{ n: number }>(p.t.db.orm, sql`SELECT count(*)::int AS n FROM spans WHERE trace_id = ${traceId}`))[0].n);
  const evaluate = async (token: string, traceId: string) => {
    const res = await p.t.request('POST', '/api/evaluations/llm/competitor_blocklist/evaluate', {
      authToken: token,
      body: { data: { output: 'we beat Acme' }, settings: { competitors: ['Acme'] }, trace_id: traceId },
    });
    expect(res.status, res.text).toBe(200);
  };
  // The results kept of a trace, and the days they are kept in.
  const evaluationsOf = async (traceId: string) =>
    (await rows<{ day: number }>(p.t.db.orm, sql`SELECT day FROM evaluations WHERE trace_id = ${traceId}`)).map((r) => Number(r.day));
  const setRetention = async (projectId: string, token: string, retentionDays: number | null) => {
    const res = await p.t.request('PATCH', `/api/projects/${projectId}`, { token, body: { retentionDays } });
    expect(res.status, res.text).toBe(200);
  };

  it('keeps a trace whose spans cross midnight in the day it started, and drops a day whole once every project with traces in it is past its retention', async () => {
    const now = clock.now().getTime();
    // A day of this test's own, long past: a minute before its midnight, and two minutes later.
    const day = Math.floor((now - 100 * DAY) / DAY);
    const beforeMidnight = (day + 1) * DAY - 60_000;
    const mine = 'a1'.repeat(16);
    const theirs = 'b2'.repeat(16);
    await send(p.key, otlp(mine, '1'.repeat(16), beforeMidnight));
    await send(p.key, otlp(mine, '2'.repeat(16), beforeMidnight + 120_000, '1'.repeat(16)));
    await send(p.other.projectToken, otlp(theirs, '3'.repeat(16), beforeMidnight - 3_600_000));
    // A trace of today, which no sweep below may drop.
    await send(p.other.projectToken, otlp('d4'.repeat(16), '4'.repeat(16), now - 60_000));

    const trace = await p.t.request('GET', `/api/trace/${mine}`, { token: p.key });
    expect(trace.status, trace.text).toBe(200);
    expect(trace.body.spans.map((s: { span_id: string }) => s.span_id).sort()).toEqual(['1'.repeat(16), '2'.repeat(16)]);
    // The later span went to its trace's day; the next day's partitions exist all the same.
    const [{ days }] = await rows<{ days: number[] }>(p.t.db.orm, sql`SELECT array_agg(DISTINCT day) AS days FROM spans WHERE trace_id = ${mine}`);
    expect(days.map(Number)).toEqual([day]);
    expect(await partitionsOf(day)).toEqual([`evaluations_d${suffix(day)}`, `spans_d${suffix(day)}`, `traces_d${suffix(day)}`]);
    expect(await partitionsOf(day + 1)).toHaveLength(3);
    // Evaluation results are kept in their trace's day, whenever they are stored; a result whose
    // trace has not come is kept in the day it was stored on.
    await evaluate(p.key, mine);
    await evaluate(p.other.projectToken, theirs);
    await evaluate(p.other.projectToken, 'c3'.repeat(16));
    expect(await evaluationsOf(mine)).toEqual([day]);
    expect(await evaluationsOf(theirs)).toEqual([day]);
    expect(await evaluationsOf('c3'.repeat(16))).toEqual([Math.floor(now / DAY)]);

    // Today's partitions as they are before the sweeps. (Usually all three; but the worker's shared
    // app may have started at another file's clock, and an earlier file's rows of today then went
    // to the default partitions, which keep that day's rows from then on.)
    const today = Math.floor(now / DAY);
    const todayPartitions = await partitionsOf(today);

    // Only this project expires its traces: the other project's trace keeps the day, so this
    // project's trace goes row by row, both of its spans with it.
    await setRetention(p.t.creds.project.id, p.t.creds.adminApiKey, 30);
    await p.t.app.services.traces.sweepRetention();
    expect((await p.t.request('GET', `/api/trace/${mine}`, { token: p.key })).status).toBe(404);
    expect(await spansOf(mine)).toBe(0);
    expect(await evaluationsOf(mine)).toEqual([]);
    const kept = await p.t.request('GET', `/api/trace/${theirs}`, { token: p.other.projectToken });
    expect(kept.status).toBe(200);
    expect(kept.body.evaluations).toHaveLength(1);
    expect(await partitionsOf(day)).toHaveLength(3);

    // Once the other project expires its traces too, the day goes whole, and the empty day after it.
    await setRetention(p.other.projectId, p.other.adminToken, 30);
    await p.t.app.services.traces.sweepRetention();
    expect((await p.t.request('GET', `/api/trace/${theirs}`, { token: p.other.projectToken })).status).toBe(404);
    expect(await partitionsOf(day)).toEqual([]);
    expect(await partitionsOf(day + 1)).toEqual([]);
    expect(await evaluationsOf(theirs)).toEqual([]);
    // Recent days stay, with today's trace and the result whose trace never came.
    expect(await partitionsOf(today)).toEqual(todayPartitions);
    expect(await spansOf('d4'.repeat(16))).toBe(1);
    expect(await evaluationsOf('c3'.repeat(16))).toEqual([today]);
  });

  it('takes spans for days without partitions from several projects at once while two retention sweeps drop days, and makes a dropped day again', async () => {
    const now = clock.now().getTime();
    const today = Math.floor(now / DAY);
    const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
    const traceId = (n: number) => `d0${hex(n, 30)}`;
    const spans = (first: number, count: number, startMs: number) => ({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'day-test' } }] },
          scopeSpans: [
            {
              scope: { name: 'day-test' },
              spans: Array.from({ length: count }, (_, k) => ({
                traceId: traceId(first + k),
                spanId: hex(first + k + 1, 16),
                name: `span ${first + k}`,
                kind: 1,
                startTimeUnixNano: String(BigInt(startMs + k) * 1_000_000n),
                endTimeUnixNano: String(BigInt(startMs + k + 1_000) * 1_000_000n),
              })),
            },
          ],
        },
      ],
    });
    // Projects keeping their traces (this file's two expire theirs after 30 days).
    const tenants = (await Promise.all(['First', 'Second', 'Third', 'Fourth'].map((name) => createTenant(p.t, name)))).map((t) => ({ token: t.projectToken }));
    // A project past its retention with traces on a day of its own: both sweeps drop that day.
    const expiring = await createTenant(p.t, 'Expiring');
    const expiredDay = today - 250;
    await send(expiring.projectToken, spans(9_000, 5, expiredDay * DAY + 3_600_000));
    await setRetention(expiring.projectId, expiring.adminToken, 30);

    // Every request below needs a day without partitions yet (its own, long past); on PostgreSQL
    // the projects' transactions run side by side with the making and the dropping of days.
    const sent: { token: string; first: number }[] = [];
    const requests: Promise<{ status: number; text: string }>[] = [];
    const PER_REQUEST = 40;
    tenants.forEach(({ token }, i) => {
      for (let j = 0; j < 4; j++) {
        const first = (i * 4 + j) * PER_REQUEST;
        sent.push({ token, first });
        requests.push(p.t.request('POST', '/api/otel/v1/traces', { token, body: spans(first, PER_REQUEST, (today - 300 - i * 4 - j) * DAY + 3_600_000) }));
      }
    });
    const sweeps = Promise.allSettled([p.t.app.services.traces.sweepRetention(), p.t.app.services.traces.sweepRetention()]);
    const answers = await Promise.all(requests);
    expect(answers.map((a) => `${a.status} ${a.status === 200 ? '' : a.text}`)).toEqual(answers.map(() => '200 '));
    expect((await sweeps).map((s) => (s.status === 'rejected' ? String(s.reason) : s.status))).toEqual(['fulfilled', 'fulfilled']);
    for (const { token, first } of sent) {
      for (const id of [traceId(first), traceId(first + PER_REQUEST - 1)]) expect((await p.t.request('GET', `/api/trace/${id}`, { token })).status).toBe(200);
    }
    expect((await p.t.request('GET', `/api/trace/${traceId(9_000)}`, { token: expiring.projectToken })).status).toBe(404);
    expect(await partitionsOf(expiredDay)).toEqual([]);

    // A project that keeps its traces sends spans of the dropped day: the day is made again.
    await send(tenants[0].token, spans(9_100, 3, expiredDay * DAY + 7_200_000));
    expect((await p.t.request('GET', `/api/trace/${traceId(9_100)}`, { token: tenants[0].token })).status).toBe(200);
    expect(await partitionsOf(expiredDay)).toHaveLength(3);
  });

  it('takes the first trace of a day whose rows sit in the default partition already (a result that came before its trace)', async () => {
    // Ten days on: past the days made ahead, so the day has no partitions; other files' apps
    // share the worker's database at clocks of their own, so on to the first day none made.
    clock.advance(10 * DAY);
    for (let i = 0; i < 60 && (await partitionsOf(Math.floor(clock.now().getTime() / DAY))).length > 0; i++) clock.advance(DAY);
    const now = clock.now().getTime();
    const day = Math.floor(now / DAY);
    const tenant = await createTenant(p.t, 'Late');
    const first = 'e1'.repeat(16);
    // A result for a trace not stored yet is kept in the day it was stored on, here in the default partition.
    await evaluate(tenant.projectToken, first);
    expect(await partitionsOf(day)).toEqual([]);
    await send(tenant.projectToken, otlp(first, '4'.repeat(16), now - 60_000));
    await send(tenant.projectToken, otlp('e2'.repeat(16), '5'.repeat(16), now - 30_000));
    for (const id of [first, 'e2'.repeat(16)]) expect((await p.t.request('GET', `/api/trace/${id}`, { token: tenant.projectToken })).status).toBe(200);
    expect(await evaluationsOf(first)).toEqual([day]);
  });
});

describe.each(databaseKinds)('a day dropped by another server (%s)', (kind) => {
  it('still stores spans of that day: on the server that had the day, and on one started after', async () => {
    const a = await startApp(kind, { fresh: true });
    const apps = [a];
    try {
      const key = a.creds.projectApiKey;
      const day = Math.floor((Date.now() - 200 * DAY) / DAY);
      const span = (traceId: string, spanId: string, startMs: number) => ({
        resourceSpans: [{ scopeSpans: [{ spans: [{ traceId, spanId, name: 'late', kind: 1,
          startTimeUnixNano: String(BigInt(startMs) * 1_000_000n), endTimeUnixNano: String(BigInt(startMs + 1_000) * 1_000_000n) }] }] }],
      });
      const send = async (t: typeof a, traceId: string, spanId: string, startMs: number) => {
        const res = await t.request('POST', '/api/otel/v1/traces', { token: key, body: span(traceId, spanId, startMs) });
        expect(res.status, res.text).toBe(200);
      };
      const spanIds = async (traceId: string) => {
        const res = await a.request('GET', `/api/trace/${traceId}`, { token: key });
        expect(res.status, res.text).toBe(200);
        return res.body.spans.map((s: { span_id: string }) => s.span_id);
      };
      await send(a, 'd4'.repeat(16), '4'.repeat(16), day * DAY + 3_600_000);
      // As the other server's retention does: this one still takes the day's partitions to exist.
      const suffix = new Date(day * DAY).toISOString().slice(0, 10).replace(/-/g, '');
      for (const table of ['spans', 'traces', 'evaluations']) await a.db.orm.execute(sql.raw(`DROP TABLE "${table}_d${suffix}"`));
      await send(a, 'e5'.repeat(16), '5'.repeat(16), day * DAY + 7_200_000);
      expect(await spanIds('e5'.repeat(16))).toEqual(['5'.repeat(16)]);
      // A server started now cannot make the day (the default partition holds rows of it): the rows stay there.
      const b = await startApp(kind, { reopen: a });
      apps.push(b);
      await send(b, 'f6'.repeat(16), '6'.repeat(16), day * DAY + 10_800_000);
      await send(b, 'e5'.repeat(16), '7'.repeat(16), day * DAY + 7_300_000);
      expect(await spanIds('f6'.repeat(16))).toEqual(['6'.repeat(16)]);
      expect((await spanIds('e5'.repeat(16))).sort()).toEqual(['5'.repeat(16), '7'.repeat(16)]);
    } finally {
      for (const t of apps.reverse()) await t.close();
    }
  });
});
