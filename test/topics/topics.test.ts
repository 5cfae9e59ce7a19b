/**
 * Topics: traces of five known subjects, embedded by a loopback OpenAI-compatible server whose
 * embeddings are a deterministic function of the words (hashed bag of words), clustered into
 * topics that must recover the subjects (adjusted Rand index >= 0.8). Then the topic as a trace
 * filter and an analytics grouping, new traces joining their topic, a rebuild keeping the ids,
 * settings refused at their fields, an embeddings provider failing (recorded, ingest unaffected),
 * and another tenant seeing none of it. Both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adjustedRandIndex } from '../../src/modules/topics/index.ts';
import { startFakeServer, type FakeServer } from '../evaluators/fake-servers.ts';
import { createTenant, databaseKinds, startApp, type Tenant, type TestApp } from '../support/harness.ts';
import { seeded, sentence, subjectTrace, SUBJECTS, topicModel } from './subjects.ts';

describe.each(databaseKinds)('topics (%s)', (kind) => {
  let t: TestApp;
  let fake: FakeServer;
  let key: string;
  let other: Tenant;
  let failEmbeddings = false;
  /** The subject each trace was written about. */
  const subjectOf = new Map<string, string>();
  let firstIds: string[] = [];

  const req = (method: string, url: string, body?: unknown, token = key) => t.request(method, url, { authToken: token, ...(body === undefined ? {} : { body }) });
  const rounds = () => t.app.services.topics.topics.runRounds(t.creds.project.id);
  /** Rounds until `embedded` traces are embedded and the topics were built after `after` (the app's own schedule runs rounds too). */
  async function settle(embedded: number, after: number | null) {
    for (let i = 0; i < 20; i++) {
      await rounds();
      const status = (await req('GET', '/api/topics/settings')).body.status;
      if (status.embeddedTraces === embedded && (after === null || (status.builtAt !== null && status.builtAt > after && status.rebuildRequestedAt === null))) return status;
    }
    throw new Error(`topics did not settle at ${embedded} embedded traces`);
  }

  async function ingest(subject: string, n: number, seed: number, prefix: string) {
    const next = seeded(seed);
    const started = Date.now() - 3_600_000;
    for (let i = 0; i < n; i++) {
      const traceId = `${prefix}-${subject}-${i}`;
      subjectOf.set(traceId, subject);
      const res = await req('POST', '/api/collector', subjectTrace(traceId, sentence(subject, next), started + i * 1000));
      expect(res.status, res.text).toBe(200);
    }
  }

  /** Each trace's topic, read through the trace filter. */
  async function topicOfEachTrace(topicIds: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const id of topicIds) {
      const found = await req('POST', '/api/trace/search', { filters: { topic: id }, pageSize: 1000 });
      expect(found.status, found.text).toBe(200);
      for (const tr of found.body.traces as { trace_id: string }[]) out.set(tr.trace_id, id);
    }
    return out;
  }

  beforeAll(async () => {
    fake = await startFakeServer();
    fake.fallback = topicModel(() => failEmbeddings);
    t = await startApp(kind);
    key = t.creds.projectApiKey;
    other = await createTenant(t);
    const provider = await t.request('POST', '/api/model-providers', {
      token: t.creds.adminApiKey,
      projectId: t.creds.project.id,
      body: { name: 'local', kind: 'openai_compatible', api_key: 'sk-local-topics', base_url: `${fake.url}/v1`, models: ['embed-small', 'namer'] },
    });
    expect(provider.status, provider.text).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('is off until an embeddings model is set, and refuses bad settings at their fields', async () => {
    const off = await req('GET', '/api/topics');
    expect(off.status, off.text).toBe(200);
    expect(off.body.topics).toEqual([]);
    expect(off.body.status).toMatchObject({ enabled: false, builtAt: null, embeddedTraces: 0 });

    const cases: [unknown, string][] = [
      [{ embeddingsModel: 'no-slash' }, 'embeddingsModel'],
      [{ embeddingsModel: 'ghost/embed' }, 'embeddingsModel'],
      [{ embeddingsModel: 'local/embed-small', namingModel: 'ghost/namer' }, 'namingModel'],
      [{ embeddingsModel: 'local/embed-small', reclusterHours: 0 }, 'reclusterHours'],
      [{ embeddingsModel: 'local/embed-small', reclusterHours: 24 * 31 }, 'reclusterHours'],
      [{ embeddingsModel: 'local/embed-small', extra: 1 }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await t.request('PUT', '/api/topics/settings', { token: t.creds.adminApiKey, projectId: t.creds.project.id, body });
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(res.text).toContain(field);
    }
    const read = await req('GET', '/api/topics/settings');
    expect(read.status, read.text).toBe(200);
    expect(read.body.embeddingsModel).toBeNull();
  });

  it('records an embeddings provider failing without holding ingest back', async () => {
    const set = await t.request('PUT', '/api/topics/settings', {
      token: t.creds.adminApiKey,
      projectId: t.creds.project.id,
      body: { embeddingsModel: 'local/embed-small', namingModel: 'local/namer', reclusterHours: 24 },
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body.status.enabled).toBe(true);

    failEmbeddings = true;
    await ingest('refunds', 2, 99, 'early');
    expect((await rounds()).embedded).toBe(0);
    const status = (await req('GET', '/api/topics/settings')).body.status;
    expect(status.lastError).toMatch(/embedding new traces failed/);
    expect(status.lastErrorAt).toBeTypeOf('number');
    // The traces are stored and searchable all the same.
    const found = await req('POST', '/api/trace/search', { pageSize: 10 });
    expect(found.body.traces.length).toBeGreaterThanOrEqual(2);
    failEmbeddings = false;
  });

  it('finds the five subjects (adjusted Rand index >= 0.8) and names them', async () => {
    let seed = 1;
    for (const subject of Object.keys(SUBJECTS)) await ingest(subject, 30, seed++, 'a');
    // The app's own schedule may have found topics from part of the traces meanwhile: find them from all.
    await settle(152, null);
    const asked = await t.request('POST', '/api/topics/rebuild', { token: t.creds.adminApiKey, projectId: t.creds.project.id });
    expect(asked.status, asked.text).toBe(202);
    await settle(152, asked.body.requestedAt - 1);

    const listed = await req('GET', '/api/topics');
    expect(listed.status, listed.text).toBe(200);
    const topics = listed.body.topics as { id: string; name: string; keywords: string[]; traces: number; size: number; trend: { traces: number }[] }[];
    expect(listed.body.status).toMatchObject({ enabled: true, builtTraces: 152, embeddedTraces: 152, lastError: null });
    const assigned = await topicOfEachTrace(topics.map((x) => x.id));
    const ids = [...subjectOf.keys()];
    expect(assigned.size).toBe(ids.length);
    const truth = ids.map((id) => Object.keys(SUBJECTS).indexOf(subjectOf.get(id)!));
    const found = ids.map((id) => topics.findIndex((x) => x.id === assigned.get(id)));
    const ari = adjustedRandIndex(truth, found);
    expect(ari).toBeGreaterThanOrEqual(0.8);

    // Named by the naming model after its subject; keywords from the inputs; counts that add up.
    for (const topic of topics) {
      const members = ids.filter((id) => assigned.get(id) === topic.id).map((id) => subjectOf.get(id)!);
      const majority = Object.keys(SUBJECTS).sort((x, y) => members.filter((m) => m === y).length - members.filter((m) => m === x).length)[0];
      expect(topic.name.toLowerCase()).toContain(majority);
      expect(topic.keywords.some((w) => SUBJECTS[majority].includes(w))).toBe(true);
      expect(topic.traces).toBe(members.length);
      expect(topic.trend.reduce((n, d) => n + d.traces, 0)).toBe(members.length);
    }
    firstIds = topics.map((x) => x.id).sort();
  }, 240_000);

  it('groups analytics by topic, as the topics list counts them', async () => {
    const now = Date.now();
    const series = await req('POST', '/api/analytics/timeseries', { startDate: now - 86_400_000, endDate: now, interval: 'day', groupBy: 'topic' });
    expect(series.status, series.text).toBe(200);
    // The range in the query string as epoch ms (as the web app sends it) or ISO 8601.
    const listed = (await req('GET', `/api/topics?startDate=${now - 86_400_000}&endDate=${now}`)).body.topics as { id: string; traces: number }[];
    const iso = await req('GET', `/api/topics?startDate=${new Date(now - 86_400_000).toISOString()}&endDate=${new Date(now).toISOString()}`);
    expect(iso.status, iso.text).toBe(200);
    expect(iso.body.topics).toEqual(listed);
    for (const topic of listed) {
      const s = (series.body.series as { group: string | null; buckets: { traces: number }[] }[]).find((x) => x.group === topic.id);
      expect(s, topic.id).toBeDefined();
      expect(s!.buckets.reduce((n, b) => n + b.traces, 0)).toBe(topic.traces);
    }
  });

  it('splits an alert rule by topic: one decision per topic', async () => {
    const listed = (await req('GET', '/api/topics')).body.topics as { id: string; traces: number }[];
    const preview = await req('POST', '/api/alerts/rules/preview', {
      name: 'traffic per topic',
      metric: { kind: 'trace_count' },
      splitBy: 'topic',
      windowMinutes: 5,
      condition: { kind: 'threshold', operator: 'above', value: 0 },
    });
    expect(preview.status, preview.text).toBe(200);
    const fired = new Set((preview.body.fires as { segment: string }[]).map((f) => f.segment));
    expect([...fired].sort()).toEqual(listed.filter((x) => x.traces > 0).map((x) => x.id).sort());
    const rule = await req('POST', '/api/alerts/rules', { name: 'traffic per topic', metric: { kind: 'trace_count' }, splitBy: 'topic', windowMinutes: 5, condition: { kind: 'threshold', operator: 'above', value: 0 } });
    expect(rule.status, rule.text).toBe(200);
    expect(rule.body.splitBy).toBe('topic');
  });

  it('puts new traces in their topic at the next round, and a rebuild keeps the ids', async () => {
    await ingest('weather', 3, 500, 'late');
    await ingest('recipes', 3, 501, 'late');
    await settle(158, null);
    const listed = (await req('GET', '/api/topics')).body.topics as { id: string; name: string }[];
    const assigned = await topicOfEachTrace(listed.map((x) => x.id));
    for (const id of ['late-weather-0', 'late-weather-1', 'late-weather-2', 'late-recipes-0', 'late-recipes-1', 'late-recipes-2']) {
      const topic = listed.find((x) => x.id === assigned.get(id));
      expect(topic?.name.toLowerCase(), id).toContain(subjectOf.get(id));
    }

    const asked = await t.request('POST', '/api/topics/rebuild', { token: t.creds.adminApiKey, projectId: t.creds.project.id });
    expect(asked.status, asked.text).toBe(202);
    expect(asked.body.status.rebuildRequestedAt).toBeTypeOf('number');
    await settle(158, asked.body.requestedAt - 1);
    const again = await req('GET', '/api/topics');
    expect(again.body.status).toMatchObject({ builtTraces: 158, rebuildRequestedAt: null });
    expect((again.body.topics as { id: string }[]).map((x) => x.id).sort()).toEqual(firstIds);
  }, 240_000);

  it('keeps topics to their project', async () => {
    const theirs = await req('GET', '/api/topics', undefined, other.projectToken);
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.body.topics).toEqual([]);
    const probe = await req('POST', '/api/trace/search', { filters: { topic: firstIds[0] }, pageSize: 10 }, other.projectToken);
    expect(probe.status, probe.text).toBe(200);
    expect(probe.body.traces).toEqual([]);
    const change = await req('POST', '/api/topics/rebuild', undefined, other.projectToken);
    expect([202, 403]).toContain(change.status);
    const ours = await req('GET', '/api/topics');
    expect(ours.body.status.rebuildRequestedAt).toBeNull();
  });
});
