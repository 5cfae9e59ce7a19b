/**
 * New traces join their topic from a watermark: each round reads the traces first ingested since
 * the last one it embedded (less a margin for transactions that commit late), not every trace
 * without an embedding. A clock moved by hand stamps the traces' ingest times.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { startFakeServer, type FakeServer } from '../evaluators/fake-servers.ts';
import { databaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { seeded, sentence, subjectTrace, SUBJECTS, topicModel } from './subjects.ts';

describe.each(databaseKinds)('topics: new traces from the watermark (%s)', (kind) => {
  let t: TestApp;
  let fake: FakeServer;
  const clock = new ManualClock(Date.now() - 3_600_000);
  const next = seeded(7);

  const admin = (method: string, url: string, body?: unknown) => t.request(method, url, { token: t.creds.adminApiKey, projectId: t.creds.project.id, ...(body === undefined ? {} : { body }) });
  const rounds = () => t.app.services.topics.topics.runRounds(t.creds.project.id);
  async function ingest(traceId: string, subject: string) {
    const res = await t.request('POST', '/api/collector', { authToken: t.creds.projectApiKey, body: subjectTrace(traceId, sentence(subject, next), clock.now().getTime() - 1000) });
    expect(res.status, res.text).toBe(200);
  }
  /** The name of the topic the trace filter finds the trace in, or null. */
  async function topicNameOf(traceId: string): Promise<string | null> {
    const listed = (await admin('GET', '/api/topics')).body.topics as { id: string; name: string }[];
    for (const topic of listed) {
      const found = await admin('POST', '/api/trace/search', { filters: { topic: topic.id }, pageSize: 1000 });
      if ((found.body.traces as { trace_id: string }[]).some((x) => x.trace_id === traceId)) return topic.name.toLowerCase();
    }
    return null;
  }

  beforeAll(async () => {
    fake = await startFakeServer();
    fake.fallback = topicModel();
    t = await startApp(kind, { clock, fresh: true });
    const provider = await admin('POST', '/api/model-providers', { name: 'local', kind: 'openai_compatible', api_key: 'sk-local', base_url: `${fake.url}/v1`, models: ['embed-small', 'namer'] });
    expect(provider.status, provider.text).toBe(201);
    const set = await admin('PUT', '/api/topics/settings', { embeddingsModel: 'local/embed-small', namingModel: 'local/namer' });
    expect(set.status, set.text).toBe(200);
    for (const subject of Object.keys(SUBJECTS)) for (let i = 0; i < 6; i++) await ingest(`first-${subject}-${i}`, subject);
    const first = await rounds();
    expect(first).toEqual({ embedded: 30, built: 1 });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('embeds only what arrived since the last round, and puts it in its topic', async () => {
    expect((await rounds()).embedded).toBe(0);
    clock.advance(5 * 60_000);
    await ingest('new-weather', 'weather');
    await ingest('new-recipes', 'recipes');
    expect((await rounds()).embedded).toBe(2);
    expect(await topicNameOf('new-weather')).toContain('weather');
    expect(await topicNameOf('new-recipes')).toContain('recipes');
    expect((await rounds()).embedded).toBe(0);
  });

  it('still takes a trace stamped before the watermark when it committed late (within a minute)', async () => {
    const now = clock.now().getTime();
    clock.set(now - 30_000);
    await ingest('late-weather', 'weather');
    clock.set(now);
    expect((await rounds()).embedded).toBe(1);
    expect(await topicNameOf('late-weather')).toContain('weather');
  });

  it('never reads the table behind the watermark again: a trace stamped long before it is left', async () => {
    const now = clock.now().getTime();
    clock.set(now - 10 * 60_000);
    await ingest('stale-weather', 'weather');
    clock.set(now);
    expect((await rounds()).embedded).toBe(0);
    expect(await topicNameOf('stale-weather')).toBeNull();
    const status = (await admin('GET', '/api/topics/settings')).body.status;
    expect(status.embeddedTraces).toBe(33);
  });
});
