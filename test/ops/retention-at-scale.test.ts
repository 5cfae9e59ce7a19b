import { describe, expect, it } from 'vitest';
import { databaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';

/**
 * The retention sweep with a backlog bigger than one round (2,000 traces per transaction),
 * on both databases. A backlog of more ids than PostgreSQL takes parameters in one statement
 * (65,535) is `npm run bench`'s (BENCH_ONLY=retention sweeps 200,000 traces of one project).
 */
const OLD_TRACES = 4_500;
const PER_REQUEST = 500;
const DAY = 86_400_000;

describe.each(databaseKinds)('retention sweep of a large backlog (%s)', (kind) => {
  let p: ProjectApp;
  const clock = useProjectApp(kind, (started) => (p = started));

  const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
  const traceId = (i: number) => hex(i + 1, 32);
  const otlp = (first: number, count: number, startMs: number) => ({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'retention-test' } }] },
        scopeSpans: [
          {
            scope: { name: 'retention-test' },
            spans: Array.from({ length: count }, (_, k) => ({
              traceId: traceId(first + k),
              spanId: hex(first + k + 1, 16),
              name: `step ${first + k}`,
              kind: 1,
              startTimeUnixNano: String(BigInt(startMs + k) * 1_000_000n),
              endTimeUnixNano: String(BigInt(startMs + k + 50) * 1_000_000n),
            })),
          },
        ],
      },
    ],
  });
  const send = async (body: object) => {
    const res = await p.t.request('POST', '/api/otel/v1/traces', { token: p.key, body });
    expect(res.status, res.text).toBe(200);
  };
  const totalHits = async () =>
    (await p.t.request('POST', '/api/trace/search', { token: p.key, body: { pageSize: 1 } })).body.pagination.totalHits as number;

  it(
    `deletes ${OLD_TRACES.toLocaleString('en')} old traces in rounds, with their evaluations and annotations, and keeps the recent ones`,
    async () => {
      const now = clock.now().getTime();
      for (let first = 0; first < OLD_TRACES; first += PER_REQUEST) {
        await send(otlp(first, Math.min(PER_REQUEST, OLD_TRACES - first), now - 40 * DAY));
      }
      await send(otlp(OLD_TRACES, 3, now - DAY));
      // Search counts exactly up to 10,000, then answers 10,000 with totalHitsRelation "gte" (docs/api.md).
      expect(await totalHits()).toBe(Math.min(OLD_TRACES + 3, 10_000));
      for (const id of [traceId(0), traceId(OLD_TRACES - 1), traceId(OLD_TRACES)]) {
        const evaluated = await p.t.request('POST', '/api/evaluations/llm/competitor_blocklist/evaluate', {
          authToken: p.key,
          body: { data: { output: 'we beat Acme' }, settings: { competitors: ['Acme'] }, trace_id: id },
        });
        expect(evaluated.status, evaluated.text).toBe(200);
        expect((await p.t.request('POST', `/api/annotations/trace/${id}`, { token: p.key, body: { comment: 'kept?', isThumbsUp: true } })).status).toBe(200);
      }

      const patched = await p.t.request('PATCH', `/api/projects/${p.t.creds.project.id}`, { token: p.t.creds.adminApiKey, body: { retentionDays: 30 } });
      expect(patched.status).toBe(200);
      expect(await p.t.app.services.traces.sweepRetention()).toBe(OLD_TRACES);

      expect(await totalHits()).toBe(3);
      for (const id of [traceId(0), traceId(OLD_TRACES - 1)]) {
        expect((await p.t.request('GET', `/api/trace/${id}`, { token: p.key })).status).toBe(404);
        expect((await p.t.request('GET', `/api/annotations/trace/${id}`, { token: p.key })).body.data).toEqual([]);
      }
      const recent = await p.t.request('GET', `/api/trace/${traceId(OLD_TRACES)}`, { token: p.key });
      expect(recent.status).toBe(200);
      expect(recent.body.evaluations).toHaveLength(1);
      expect((await p.t.request('GET', `/api/annotations/trace/${traceId(OLD_TRACES)}`, { token: p.key })).body.data).toHaveLength(1);
      // A second round finds nothing more to do.
      expect(await p.t.app.services.traces.sweepRetention()).toBe(0);
    },
    120_000,
  );
});
