import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';

type Entry = { path: string; available: boolean; unavailable_reason: string | null; requirements: { llm: boolean; external_service: string | null; env: string[] } };

describe.each(appDatabaseKinds)('GET /api/evaluations: what each evaluator needs, and whether this server can run it (%s)', (kind) => {
  let bare: TestApp;
  beforeAll(async () => {
    bare = await startApp(kind, { fresh: true });
  });
  afterAll(() => bare.close());

  const catalogue = async (t: TestApp) => {
    const res = await t.request('GET', '/api/evaluations', { authToken: t.creds.projectApiKey });
    expect(res.status).toBe(200);
    return Object.fromEntries((res.body.evaluators as Entry[]).map((e) => [e.path, e]));
  };

  it('without provider variables: judges and jailbreak are greyed out with the variables to set', async () => {
    const byPath = await catalogue(bare);
    expect(byPath['pii/pii_detection']).toMatchObject({ available: true, unavailable_reason: null, requirements: { llm: false, external_service: null, env: [] } });
    expect(byPath['llm/competitor_blocklist']).toMatchObject({ available: true, requirements: { llm: false } });
    expect(byPath['rag/context_recall']).toMatchObject({ available: true, requirements: { llm: false } });
    for (const path of ['llm/llm_score', 'llm/off_topic', 'legacy/rag_faithfulness', 'rag/summarization_score', 'llm/query_resolution']) {
      expect(byPath[path], path).toMatchObject({ available: false, requirements: { llm: true, external_service: null, env: ['OPENAI_API_KEY'] } });
      expect(byPath[path].unavailable_reason).toContain('Set OPENAI_API_KEY');
      expect(byPath[path].unavailable_reason).toContain('OPENAI_BASE_URL');
    }
    expect(byPath['cloud/jailbreak']).toMatchObject({
      available: false,
      requirements: { llm: false, external_service: expect.stringContaining('Azure AI Content Safety'), env: ['AZURE_CONTENT_SAFETY_ENDPOINT', 'AZURE_CONTENT_SAFETY_KEY'] },
    });
    expect(byPath['cloud/jailbreak'].unavailable_reason).toContain('AZURE_CONTENT_SAFETY_ENDPOINT and AZURE_CONTENT_SAFETY_KEY');
  });

  it('with OPENAI_API_KEY set, the judges become available; jailbreak still needs its variables', async () => {
    const configured = await startApp(kind, { reopen: bare, env: { OPENAI_API_KEY: 'k', AZURE_CONTENT_SAFETY_ENDPOINT: 'https://x.example' } });
    try {
      const byPath = await catalogue(configured);
      expect(byPath['llm/llm_score']).toMatchObject({ available: true, unavailable_reason: null });
      expect(byPath['cloud/jailbreak'].available).toBe(false);
      expect(byPath['cloud/jailbreak'].unavailable_reason).toMatch(/^Set AZURE_CONTENT_SAFETY_KEY /);
    } finally {
      await configured.close();
    }
  });
});
