/**
 * The LangWatch TypeScript SDK (`langwatch` on npm, unmodified) reads a dataset made through
 * Spyglass's API: `langwatch.datasets.get(slugOrId)` answers every entry with every column as
 * stored, in order. PGlite only: the database is not what this file tests.
 */
import { LangWatch } from 'langwatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/harness.ts';

const COLUMNS = [
  { name: 'input', type: 'string' },
  { name: 'expected_output', type: 'string' },
  { name: 'score', type: 'number' },
  { name: 'passed', type: 'boolean' },
  { name: 'contexts', type: 'rag_contexts' },
  { name: 'messages', type: 'chat_messages' },
  { name: 'day', type: 'date' },
];

const ENTRIES = [
  {
    input: 'What is the capital of France?',
    expected_output: 'Paris',
    score: 0.75,
    passed: true,
    contexts: [{ document_id: 'doc-1', content: 'Paris is the capital of France.' }],
    messages: [{ role: 'user', content: 'What is the capital of France?' }],
    day: '2026-11-20',
  },
  { input: 'Ünïcödé, "quotes", commas\nand lines 東京', expected_output: null, score: null, passed: false, contexts: [], messages: null, day: null },
  { input: '=1+1', expected_output: '2', score: -1, passed: null, contexts: null, messages: [], day: '2026-01-01' },
];

describe('LangWatch TypeScript SDK: datasets', () => {
  let t: TestApp;
  let langwatch: LangWatch;
  let created: { id: string; slug: string };
  let recordIds: string[];

  beforeAll(async () => {
    t = await startApp('pglite');
    langwatch = new LangWatch({ apiKey: t.creds.projectApiKey, endpoint: t.baseUrl });
    const res = await t.request('POST', '/api/dataset', { token: t.creds.projectApiKey, body: { name: 'SDK Read Test', columnTypes: COLUMNS } });
    expect(res.status, res.text).toBe(201);
    created = res.body;
    const added = await t.request('POST', `/api/dataset/${created.slug}/records`, { token: t.creds.projectApiKey, body: { entries: ENTRIES } });
    expect(added.status, added.text).toBe(201);
    recordIds = added.body.data.map((r: { id: string }) => r.id);
  });
  afterAll(() => t?.close());

  it.each(['slug', 'id'] as const)('datasets.get by %s answers every entry and column as stored, oldest first', async (by) => {
    const dataset = await langwatch.datasets.get(by === 'slug' ? created.slug : created.id);
    expect(dataset.entries).toHaveLength(ENTRIES.length);
    dataset.entries.forEach((item, i) => {
      expect(item.id).toBe(recordIds[i]);
      expect(item.datasetId).toBe(created.id);
      expect(item.projectId).toBe(t.creds.project.id);
      expect(item.entry).toEqual(ENTRIES[i]);
      expect(Object.keys(item.entry)).toEqual(COLUMNS.map((c) => c.name));
      expect(new Date(item.createdAt).toISOString()).toBe(item.createdAt);
      expect(new Date(item.updatedAt).toISOString()).toBe(item.updatedAt);
    });
  });

  it('an unknown dataset raises the SDK\'s not-found error', async () => {
    await expect(langwatch.datasets.get('no-such-dataset')).rejects.toThrow(/not found/i);
  });
});
