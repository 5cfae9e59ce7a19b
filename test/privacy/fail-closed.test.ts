import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deps } from '../../src/app.ts';
import { appDatabaseKinds } from '../support/harness.ts';
import { markers } from './markers.ts';
import { privacyApp } from './privacy-app.ts';

const T0 = Date.parse('2026-11-22T09:00:00Z');

const cases = {
  'a detector that throws': { detector: () => { throw new Error('detector broke'); } },
  'detection past its time budget': {
    budgetMs: 5,
    detector: () => {
      const until = performance.now() + 20;
      while (performance.now() < until) { /* a slow detector */ }
      return [];
    },
  },
} satisfies Record<string, NonNullable<Deps['privacy']>>;

describe.each(appDatabaseKinds)('privacy at ingest fails closed (%s)', (kind) => {
  describe.each(Object.entries(cases))('%s', (_name, privacy) => {
    let app: Awaited<ReturnType<typeof privacyApp>>;
    beforeAll(async () => {
      app = await privacyApp(kind, privacy);
      const set = await app.call('PUT', '/api/privacy/settings', { mode: 'mask' }, app.creds.adminApiKey);
      expect(set.status, set.text).toBe(200);
    });
    afterAll(() => app?.close());

    it('stores every text concerned as [redaction failed], never raw, and counts it in /metrics', async () => {
      const m = markers();
      const sent = await app.call('POST', '/api/collector', {
        trace_id: 'fail-closed',
        metadata: { user_id: m.email },
        spans: [{ span_id: 'fc-1', type: 'llm', model: 'gpt-4o-mini', input: { type: 'text', value: m.sentence }, output: { type: 'text', value: `Mailed ${m.email}` }, attributes: { 'app.phone': m.phone }, timestamps: { started_at: T0, finished_at: T0 + 5 } }],
      });
      expect(sent.status, sent.text).toBe(200);
      const comment = await app.call('POST', '/api/annotations/trace/fail-closed', { comment: m.sentence, isThumbsUp: true });
      expect(comment.status, comment.text).toBe(200);

      const trace = await app.call('GET', '/api/trace/fail-closed');
      expect(trace.status).toBe(200);
      expect(trace.body.input.value).toBe('[redaction failed]');
      expect(trace.body.output.value).toBe('[redaction failed]');
      expect(trace.body.metadata.user_id).toBe('[redaction failed]');
      expect(trace.body.spans[0].attributes['app.phone']).toBe('[redaction failed]');
      // Ids and the model are no text of the application's: they stay.
      expect(trace.body.spans[0].model).toBe('gpt-4o-mini');
      const annotations = await app.call('GET', '/api/annotations/trace/fail-closed');
      expect(JSON.stringify(annotations.body)).toContain('[redaction failed]');
      for (const needle of m.needles) expect(JSON.stringify([trace.body, annotations.body])).not.toContain(needle);

      const metrics = (await app.call('GET', '/metrics', undefined, app.creds.adminApiKey)).text;
      const line = (p: string) => metrics.split('\n').find((l) => l.startsWith(`spyglass_privacy_redaction_failures_total{path="${p}"}`));
      expect(Number(line('collector')?.split(' ').pop())).toBeGreaterThanOrEqual(4);
      expect(Number(line('annotations')?.split(' ').pop())).toBe(1);
    });
  });
});
