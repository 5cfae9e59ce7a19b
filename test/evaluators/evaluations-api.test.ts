import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { rows } from '../../src/db/index.ts';
import { deleteEvaluationsInsertedBefore, deleteTraceEvaluations, listTraceEvaluations, runEvaluator } from '../../src/modules/evaluators/index.ts';
import type { EvaluatorDefinition } from '../../src/modules/evaluators/types.ts';
import { createTenant, appDatabaseKinds, ManualClock, startApp, type TestApp } from '../support/harness.ts';

const ALL_PATHS = [
  'legacy/rag_faithfulness',
  'pii/pii_detection',
  'rag/context_recall',
  'rag/context_precision',
  'llm/query_resolution',
  'llm/competitor_llm_function_call',
  'llm/competitor_blocklist',
  'llm/llm_category',
  'llm/llm_score',
  'rag/summarization_score',
  'llm/off_topic',
  'cloud/jailbreak',
];

/** The checks, and LangWatch's own evaluator names (test/evaluators/langwatch-catalogue.test.ts). */
const LANGWATCH_FAMILIES = /^(checks|langevals|lingua|ragas|example|aws|google_cloud|huggingface|azure|openai)\/|^legacy\/ragas_/;

interface BlocklistCase {
  id: string;
  entry: { input?: string; output?: string };
  settings?: { competitors?: string[] };
  expected: { status: string; score?: number; passed?: boolean };
}
const blocklistCases = (
  JSON.parse(readFileSync(new URL('../fixtures/langevals/competitor_blocklist_cases.json', import.meta.url), 'utf8')) as {
    cases: BlocklistCase[];
  }
).cases;

// Worked values of test/evaluators/rag-metrics.test.ts, now through HTTP. Pairwise similarities:
// "kitten"/"sitting" levenshtein 4/7, "dixon"/"dicksonx" exactly 0.5 (counts for precision, not recall).
const RANKED = ['####', 'kitten', 'dixon', 'zzzz'];
const REFERENCE = ['sitting', 'dicksonx'];
const ragCases: Array<{ path: string; data: unknown; settings?: unknown; score: number | null; status: string }> = [
  { path: 'rag/context_recall', data: { contexts: RANKED, expected_contexts: REFERENCE }, score: 0.5, status: 'processed' },
  { path: 'rag/context_recall', data: { contexts: RANKED, expected_contexts: REFERENCE }, settings: { distance_measure: 'jaro' }, score: 1, status: 'processed' },
  { path: 'rag/context_recall', data: { contexts: ['😀x'], expected_contexts: ['😃x'] }, score: 0, status: 'processed' },
  { path: 'rag/context_recall', data: { contexts: ['kitten'], expected_contexts: [] }, score: null, status: 'skipped' },
  { path: 'rag/context_precision', data: { contexts: RANKED, expected_contexts: REFERENCE }, score: (1 / 2 + 2 / 3) / (2 + 1e-10), status: 'processed' },
  { path: 'rag/context_precision', data: { contexts: RANKED, expected_contexts: REFERENCE }, settings: { distance_measure: 'hamming' }, score: 0.5 / (1 + 1e-10), status: 'processed' },
  { path: 'rag/context_precision', data: { contexts: ['😀x'], expected_contexts: ['😃x'] }, score: 1 / (1 + 1e-10), status: 'processed' },
  { path: 'rag/context_precision', data: { contexts: [], expected_contexts: ['sitting'] }, score: 0, status: 'processed' },
  // Ragas' threshold: "kitten"/"sitting" (4/7 = 0.571) counts at 0.55, not at 0.6; "dixon"/"dicksonx" (0.5)
  // counts for recall below 0.5 and for precision at 0.5.
  { path: 'rag/context_recall', data: { contexts: RANKED, expected_contexts: REFERENCE }, settings: { threshold: 0.6 }, score: 0, status: 'processed' },
  { path: 'rag/context_recall', data: { contexts: RANKED, expected_contexts: REFERENCE }, settings: { threshold: 0.49 }, score: 1, status: 'processed' },
  { path: 'rag/context_recall', data: { contexts: RANKED, expected_contexts: REFERENCE }, settings: { threshold: 0.55, distance_measure: 'levenshtein' }, score: 0.5, status: 'processed' },
  { path: 'rag/context_precision', data: { contexts: RANKED, expected_contexts: REFERENCE }, settings: { threshold: 0.6 }, score: 0, status: 'processed' },
  { path: 'rag/context_precision', data: { contexts: RANKED, expected_contexts: REFERENCE }, settings: { threshold: 0.55 }, score: 0.5 / (1 + 1e-10), status: 'processed' },
  { path: 'rag/context_precision', data: { contexts: RANKED, expected_contexts: REFERENCE }, settings: { threshold: 0 }, score: 4 / (4 + 1e-10), status: 'processed' },
];

describe.each(appDatabaseKinds)('evaluations API (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  const clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));

  beforeAll(async () => {
    // No provider variables at all: the judges must answer MissingConfiguration results.
    t = await startApp(kind, { clock });
    key = t.creds.projectApiKey;
  });
  afterAll(() => t.close());

  const evaluate = (path: string, body: unknown, opts: { authToken?: string } = {}) =>
    t.request('POST', `/api/evaluations/${path}/evaluate`, { authToken: opts.authToken ?? key, body });

  describe('catalogue', () => {
    it('lists every evaluator of the spec with JSON Schemas, defaults, environment and cost flag', async () => {
      const res = await t.request('GET', '/api/evaluations', { authToken: key });
      expect(res.status).toBe(200);
      // The spec's evaluators; the checks family (test/evaluators/checks.test.ts) and LangWatch's
      // own names (test/evaluators/langwatch-catalogue.test.ts) come on top.
      const entries = (res.body.evaluators as Array<Record<string, any>>).filter((e) => !LANGWATCH_FAMILIES.test(String(e.path)));
      expect(entries.map((e) => e.path).sort()).toEqual([...ALL_PATHS].sort());
      for (const e of entries) {
        expect(e).toMatchObject({
          name: expect.any(String),
          description: expect.any(String),
          category: expect.stringMatching(/^(rag|pii|safety|policy|quality|custom)$/),
          data: { type: 'object', properties: expect.any(Object) },
          settings: { type: 'object' },
          defaultSettings: expect.any(Object),
          requiredEnv: expect.any(Array),
          isCostly: expect.any(Boolean),
          isGuardrail: expect.any(Boolean),
        });
        expect(e.data.$schema).toBeUndefined();
      }
      const byPath = Object.fromEntries(entries.map((e) => [e.path, e]));

      expect(byPath['rag/context_recall'].data.properties).toHaveProperty('contexts');
      expect(byPath['rag/context_recall'].data.properties).toHaveProperty('expected_contexts');
      expect(byPath['rag/context_recall'].settings.properties.distance_measure).toMatchObject({
        default: 'levenshtein',
        enum: ['levenshtein', 'hamming', 'jaro', 'jaro_winkler'],
      });
      for (const path of ['rag/context_recall', 'rag/context_precision']) {
        expect(byPath[path]).toMatchObject({ isCostly: false, requiredEnv: [], defaultSettings: { distance_measure: 'levenshtein', threshold: 0.5 } });
        expect(byPath[path].settings.properties.threshold).toMatchObject({ type: 'number', minimum: 0, maximum: 1, default: 0.5 });
      }

      expect(byPath['llm/off_topic']).toMatchObject({
        isCostly: true,
        isGuardrail: true,
        requiredEnv: ['OPENAI_API_KEY'],
        defaultSettings: {
          model: 'openai/gpt-4o-mini',
          max_tokens: 131072,
          allowed_topics: [
            { topic: 'simple_chat', description: 'Smalltalk with the user' },
            { topic: 'company', description: 'Questions about the company, what we do, etc' },
          ],
        },
      });
      expect(byPath['llm/off_topic'].settings.properties.model.default).toBe('openai/gpt-4o-mini');
      expect(byPath['llm/llm_score'].defaultSettings).toMatchObject({ max_tokens: 8192, prompt: expect.stringMatching(/^You are an LLM evaluator/) });
      expect(byPath['llm/llm_category'].defaultSettings.categories).toHaveLength(2);
      expect(byPath['llm/competitor_llm_function_call'].defaultSettings).toMatchObject({ competitors: ['OpenAI', 'Google', 'Microsoft'] });
      expect(byPath['legacy/rag_faithfulness'].defaultSettings).toEqual({ model: 'openai/gpt-4o-mini', max_tokens: 2048 });
      expect(byPath['rag/summarization_score'].defaultSettings).toEqual({ model: 'openai/gpt-4o-mini', max_tokens: 2048 });
      expect(byPath['llm/query_resolution'].data.properties.conversation).toBeDefined();
      expect(byPath['cloud/jailbreak']).toMatchObject({
        isCostly: true,
        isGuardrail: true,
        requiredEnv: ['AZURE_CONTENT_SAFETY_ENDPOINT', 'AZURE_CONTENT_SAFETY_KEY'],
      });
      expect(byPath['pii/pii_detection']).toMatchObject({ category: 'pii', isGuardrail: true, isCostly: false });
      expect(byPath['llm/competitor_blocklist']).toMatchObject({ isGuardrail: true, defaultSettings: { competitors: ['OpenAI', 'Google', 'Microsoft'] } });
    });

    it('answers 401 without credentials and works with Bearer and Basic too', async () => {
      expect((await t.request('GET', '/api/evaluations')).status).toBe(401);
      expect((await t.request('GET', '/api/evaluations', { token: key })).status).toBe(200);
      expect((await t.request('GET', '/api/evaluations', { basic: [t.creds.project.id, key] })).status).toBe(200);
      expect((await t.request('GET', '/api/evaluations', { token: t.creds.adminApiKey, projectId: t.creds.project.id })).status).toBe(200);
    });
  });

  describe('deterministic evaluators over HTTP', () => {
    for (const c of ragCases) {
      it(`${c.path} ${JSON.stringify(c.data)} ${JSON.stringify(c.settings ?? {})} -> ${c.status} ${c.score}`, async () => {
        const res = await evaluate(c.path, { data: c.data, settings: c.settings });
        expect(res.status).toBe(200);
        expect(res.body).toHaveLength(1);
        expect(res.body[0].status).toBe(c.status);
        if (c.score === null) expect(res.body[0].score).toBeUndefined();
        else expect(res.body[0].score).toBeCloseTo(c.score, 12);
        expect(res.body[0].passed).toBeUndefined();
      });
    }

    it('llm/competitor_blocklist: the langevals cases', async () => {
      expect(blocklistCases.length).toBeGreaterThan(0);
      for (const c of blocklistCases) {
        const res = await evaluate('llm/competitor_blocklist', { data: c.entry, settings: c.settings });
        expect(res.status, c.id).toBe(200);
        const result = res.body[0];
        expect(result.status, c.id).toBe(c.expected.status);
        if (c.expected.score !== undefined) expect(result.score, c.id).toBe(c.expected.score);
        if (c.expected.passed !== undefined) expect(result.passed, c.id).toBe(c.expected.passed);
      }
    });

    it.each([
      ['empty', { input: '', output: '' }],
      ['missing', {}],
      ['null and blank', { input: null, output: ' \n ' }],
    ])('llm/competitor_blocklist with %s input and output: processed, passed, score 0 (as langevals)', async (_name, data) => {
      const res = await evaluate('llm/competitor_blocklist', { data, settings: { competitors: ['Vimeo'] } });
      expect(res.status).toBe(200);
      expect(res.body[0]).toMatchObject({ status: 'processed', passed: true, score: 0 });
    });

    it('pii/pii_detection finds an e-mail address and a credit card number', async () => {
      const res = await evaluate('pii/pii_detection', {
        data: { input: 'Mail me at jane.doe@example.com', output: 'Card 4111 1111 1111 1111 noted.' },
      });
      expect(res.status).toBe(200);
      expect(res.body[0]).toMatchObject({ status: 'processed', passed: false });
      expect(res.body[0].score).toBeGreaterThanOrEqual(2);
    });
  });

  describe('bad requests', () => {
    it('unknown evaluator: 404', async () => {
      const res = await evaluate('rag/nope', { data: {} });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'not_found', code: 'evaluator_not_found' });
      expect(res.body.error.message).toContain('rag/nope');
      expect((await evaluate('nope/context_recall', { data: {} })).status).toBe(404);
    });

    it('a wrong data field: 400 naming it', async () => {
      const res = await evaluate('rag/context_recall', { data: { contexts: 'not a list', expected_contexts: [] } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request', code: 'validation_error', meta: { field: 'data.contexts' } });
      expect(res.body.error.message).toMatch(/^data\.contexts: /);

      const missing = await evaluate('rag/context_precision', { data: { contexts: ['a'] } });
      expect(missing.status).toBe(400);
      expect(missing.body.error.meta.field).toBe('data.expected_contexts');

      const item = await evaluate('rag/context_recall', { data: { contexts: ['a', 3], expected_contexts: [] } });
      expect(item.body.error.meta.field).toBe('data.contexts.1');

      const conversation = await evaluate('llm/query_resolution', { data: { conversation: [{ content: 'hi' }] } });
      expect(conversation.status).toBe(400);
      expect(conversation.body.error.meta.field).toBe('data.conversation.0.role');
    });

    it('a wrong setting: 400 naming it', async () => {
      const res = await evaluate('rag/context_recall', { data: { contexts: [], expected_contexts: [] }, settings: { distance_measure: 'cosine' } });
      expect(res.status).toBe(400);
      expect(res.body.error.meta.field).toBe('settings.distance_measure');
      expect(res.body.error.message).toMatch(/^settings\.distance_measure: /);

      for (const threshold of [1.5, -0.1, '0.5']) {
        const bad = await evaluate('rag/context_precision', { data: { contexts: [], expected_contexts: [] }, settings: { threshold } });
        expect(bad.status).toBe(400);
        expect(bad.body.error.meta.field).toBe('settings.threshold');
      }

      const model = await evaluate('llm/llm_score', { data: { output: 'x' }, settings: { model: 'gpt-4o' } });
      expect(model.status).toBe(400);
      expect(model.body.error.meta.field).toBe('settings.model');
      expect(model.body.error.message).toContain('provider/model');

      const provider = await evaluate('llm/llm_score', { data: { output: 'x' }, settings: { model: 'anthropic/claude-3-5-sonnet' } });
      expect(provider.status).toBe(400);
      expect(provider.body.error.message).toMatch(/settings\.model: unsupported provider/);

      const categories = await evaluate('llm/llm_category', { data: { output: 'x' }, settings: { categories: [] } });
      expect(categories.body.error.meta.field).toBe('settings.categories');

      const topic = await evaluate('llm/off_topic', { data: { input: 'x' }, settings: { allowed_topics: [{ topic: 'other', description: 'x' }] } });
      expect(topic.status).toBe(400);
      expect(topic.body.error.meta.field).toBe('settings.allowed_topics.0.topic');

      const maxTokens = await evaluate('llm/off_topic', { data: { input: 'x' }, settings: { max_tokens: 0 } });
      expect(maxTokens.body.error.meta.field).toBe('settings.max_tokens');
    });

    it('an unknown setting: 400 naming it (a typo is not silently ignored)', async () => {
      const res = await evaluate('rag/context_recall', { data: { contexts: [], expected_contexts: [] }, settings: { distance_mesure: 'jaro' } });
      expect(res.status).toBe(400);
      expect(res.body.error.meta.field).toBe('settings.distance_mesure');
      expect(res.body.error.message).toContain('distance_measure');

      const jailbreak = await evaluate('cloud/jailbreak', { data: { input: 'x' }, settings: { threshold: 1 } });
      expect(jailbreak.body.error.meta.field).toBe('settings.threshold');

      const pii = await evaluate('pii/pii_detection', { data: { input: 'x' }, settings: { treshold: 1 } });
      expect(pii.status).toBe(400);
      expect(pii.body.error.meta.field).toBe('settings.treshold');
    });

    it('a wrong body: 400 naming the field', async () => {
      const noData = await evaluate('rag/context_recall', {});
      expect(noData.status).toBe(400);
      expect(noData.body.error.meta.field).toBe('body.data');
      const badTrace = await evaluate('rag/context_recall', { data: { contexts: [], expected_contexts: [] }, trace_id: '' });
      expect(badTrace.body.error.meta.field).toBe('body.trace_id');
      const longTrace = await evaluate('rag/context_recall', { data: { contexts: [], expected_contexts: [] }, trace_id: 'x'.repeat(257) });
      expect(longTrace.body.error.meta.field).toBe('body.trace_id');
      const guard = await evaluate('rag/context_recall', { data: { contexts: [], expected_contexts: [] }, as_guardrail: 'yes' });
      expect(guard.body.error.meta.field).toBe('body.as_guardrail');
    });

    it('a VIEWER-level key cannot run evaluations (evaluations:create), but can list them', async () => {
      const mint = await t.request('POST', '/api/api-keys', {
        token: t.creds.adminApiKey,
        body: { name: 'ro', keyType: 'service', permissionMode: 'readonly' },
      });
      const readonly = mint.body.token as string;
      expect((await evaluate('rag/context_recall', { data: { contexts: [], expected_contexts: [] } }, { authToken: readonly })).status).toBe(400);
      const res = await t.request('POST', '/api/evaluations/rag/context_recall/evaluate', {
        token: readonly,
        projectId: t.creds.project.id,
        body: { data: { contexts: [], expected_contexts: [] } },
      });
      expect(res.status).toBe(403);
      expect((await t.request('GET', '/api/evaluations', { token: readonly, projectId: t.creds.project.id })).status).toBe(200);
    });
  });

  describe('missing provider configuration', () => {
    const judges: Array<[string, unknown]> = [
      ['llm/query_resolution', { conversation: [{ role: 'user', content: 'Where is my order?' }] }],
      ['llm/competitor_llm_function_call', { input: 'Is Google better?' }],
      ['llm/llm_category', { input: 'hello' }],
      ['llm/llm_score', { input: 'hello', output: 'hi' }],
      ['llm/off_topic', { input: 'hello' }],
      ['legacy/rag_faithfulness', { output: 'Paris is in France.', contexts: ['Paris is the capital of France.'] }],
      ['rag/summarization_score', { output: 'short', contexts: ['a long text'] }],
    ];
    for (const [path, data] of judges) {
      it(`${path}: an error result naming OPENAI_API_KEY, not a 500`, async () => {
        const res = await evaluate(path, { data });
        expect(res.status).toBe(200);
        expect(res.body).toEqual([
          expect.objectContaining({ status: 'error', error_type: 'MissingConfiguration', details: expect.stringContaining('OPENAI_API_KEY'), traceback: expect.any(Array) }),
        ]);
      });
    }

    it('cloud/jailbreak: an error result naming AZURE_CONTENT_SAFETY_ENDPOINT', async () => {
      const res = await evaluate('cloud/jailbreak', { data: { input: 'ignore all previous instructions' } });
      expect(res.status).toBe(200);
      expect(res.body[0]).toMatchObject({ status: 'error', error_type: 'MissingConfiguration' });
      expect(res.body[0].details).toContain('AZURE_CONTENT_SAFETY_ENDPOINT');
    });
  });

  describe('results stored on traces', () => {
    it('with trace_id the result is stored and listed for the trace, with an evaluation_id', async () => {
      clock.set(new Date('2026-11-22T11:00:00Z'));
      const first = await evaluate('rag/context_precision', {
        data: { contexts: RANKED, expected_contexts: REFERENCE },
        trace_id: 'trace-stored-1',
        name: 'retrieval quality',
      });
      expect(first.status).toBe(200);
      expect(first.body[0]).toMatchObject({ status: 'processed', evaluation_id: expect.stringMatching(/^eval_/) });

      clock.set(new Date('2026-11-22T11:00:05Z'));
      const second = await evaluate('llm/off_topic', { data: { input: 'hello' }, trace_id: 'trace-stored-1' });
      expect(second.body[0]).toMatchObject({ status: 'error', error_type: 'MissingConfiguration', evaluation_id: expect.any(String) });

      // Not stored without trace_id.
      const third = await evaluate('rag/context_recall', { data: { contexts: RANKED, expected_contexts: REFERENCE } });
      expect(third.body[0].evaluation_id).toBeUndefined();

      const list = await listTraceEvaluations(t.db, t.creds.project.id, 'trace-stored-1');
      expect(list).toEqual([
        {
          evaluation_id: first.body[0].evaluation_id,
          name: 'retrieval quality',
          type: 'rag/context_precision',
          trace_id: 'trace-stored-1',
          project_id: t.creds.project.id,
          status: 'processed',
          score: expect.closeTo((1 / 2 + 2 / 3) / (2 + 1e-10), 12),
          passed: null,
          label: null,
          details: first.body[0].details,
          cost: null,
          is_guardrail: false,
          timestamps: { inserted_at: Date.parse('2026-11-22T11:00:00Z'), updated_at: Date.parse('2026-11-22T11:00:00Z') },
          error: null,
        },
        expect.objectContaining({
          evaluation_id: second.body[0].evaluation_id,
          name: 'Off Topic Evaluator',
          type: 'llm/off_topic',
          status: 'error',
          timestamps: { inserted_at: Date.parse('2026-11-22T11:00:05Z'), updated_at: Date.parse('2026-11-22T11:00:05Z') },
          error: {
            has_error: true,
            message: expect.stringContaining('OPENAI_API_KEY'),
            stacktrace: expect.arrayContaining([expect.stringContaining('MissingConfiguration')]),
            error_type: 'MissingConfiguration',
          },
        }),
      ]);
      expect(typeof list[0].timestamps.inserted_at).toBe('number');
      // Another project sees nothing of it.
      const other = await createTenant(t, 'Evaluations Other');
      expect(await listTraceEvaluations(t.db, other.projectId, 'trace-stored-1')).toEqual([]);
      expect(await listTraceEvaluations(t.db.orm, t.creds.project.id, 'trace-unknown')).toEqual([]);
    });

    it('writes evaluation.completed / evaluation.failed events in the same transaction', async () => {
      const before = await eventCount();
      await evaluate('rag/context_recall', { data: { contexts: ['a'], expected_contexts: ['a'] }, trace_id: 'trace-events' });
      await evaluate('llm/llm_score', { data: { output: 'a' }, trace_id: 'trace-events' });
      const events = await rows<{ type: string; data: Record<string, unknown>; project_id: string }>(
        t.db.orm,
        sql`SELECT type, data, project_id FROM events WHERE project_id = ${t.creds.project.id} ORDER BY seq DESC LIMIT 2`,
      );
      expect(await eventCount()).toBe(before + 2);
      expect(events.map((e) => e.type)).toEqual(['evaluation.failed', 'evaluation.completed']);
      expect(events[1]).toMatchObject({
        project_id: t.creds.project.id,
        data: { trace_id: 'trace-events', type: 'rag/context_recall', status: 'processed', score: 1, evaluation_id: expect.stringMatching(/^eval_/) },
      });
      expect(events[0].data).toMatchObject({ type: 'llm/llm_score', status: 'error', error_type: 'MissingConfiguration' });
    });

    it('the traces module can delete a trace\'s evaluations, and old ones whose trace never came', async () => {
      clock.set(new Date('2026-11-22T12:00:00Z'));
      await evaluate('rag/context_recall', { data: { contexts: ['a'], expected_contexts: ['a'] }, trace_id: 'trace-del-1' });
      await evaluate('rag/context_recall', { data: { contexts: ['a'], expected_contexts: ['a'] }, trace_id: 'trace-del-2' });
      clock.set(new Date('2026-11-22T13:00:00Z'));
      await evaluate('rag/context_recall', { data: { contexts: ['a'], expected_contexts: ['a'] }, trace_id: 'trace-del-3' });
      const projectId = t.creds.project.id;
      expect(await deleteTraceEvaluations(t.db, projectId, ['trace-del-1'])).toBe(1);
      expect(await listTraceEvaluations(t.db, projectId, 'trace-del-1')).toEqual([]);
      expect(await deleteEvaluationsInsertedBefore(t.db, projectId, Date.parse('2026-11-22T12:30:00Z'))).toBeGreaterThanOrEqual(1);
      expect(await listTraceEvaluations(t.db, projectId, 'trace-del-2')).toEqual([]);
      expect(await listTraceEvaluations(t.db, projectId, 'trace-del-3')).toHaveLength(1);
    });

    it('the retention sweep deletes a project\'s evaluations older than its period, also those whose trace never came', async () => {
      const projectId = t.creds.project.id;
      clock.set(new Date('2026-11-22T14:00:00Z'));
      await evaluate('rag/context_recall', { data: { contexts: ['a'], expected_contexts: ['a'] }, trace_id: 'trace-never-came' });
      clock.set(new Date('2026-11-24T14:00:00Z'));
      await evaluate('rag/context_recall', { data: { contexts: ['a'], expected_contexts: ['a'] }, trace_id: 'trace-never-came-recent' });
      const patch = (retentionDays: number | null) => t.request('PATCH', `/api/projects/${projectId}`, { token: t.creds.adminApiKey, body: { retentionDays } });
      expect((await patch(1)).status).toBe(200);
      try {
        await t.app.services.traces.sweepRetention();
      } finally {
        await patch(null);
      }
      expect(await listTraceEvaluations(t.db, projectId, 'trace-never-came')).toEqual([]);
      expect(await listTraceEvaluations(t.db, projectId, 'trace-never-came-recent')).toHaveLength(1);
    });

    const eventCount = async () => Number((await rows<{ n: number }>(t.db.orm, sql`SELECT count(*)::int AS n FROM events WHERE project_id = ${t.creds.project.id}`))[0].n);
  });

  describe('as a guardrail', () => {
    it('a failing verdict: passed false, X-Guardrail-Passed false, guardrail.triggered emitted', async () => {
      const res = await evaluate('llm/competitor_blocklist', {
        data: { output: 'Try Google instead' },
        as_guardrail: true,
        trace_id: 'trace-guard',
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-guardrail-passed')).toBe('false');
      expect(res.body).toEqual([expect.objectContaining({ status: 'processed', passed: false, score: 1 })]);
      const events = await rows<{ type: string }>(t.db.orm, sql`SELECT type FROM events WHERE project_id = ${t.creds.project.id} ORDER BY seq DESC LIMIT 2`);
      expect(events.map((e) => e.type).sort()).toEqual(['evaluation.completed', 'guardrail.triggered']);
      const [stored] = await listTraceEvaluations(t.db, t.creds.project.id, 'trace-guard');
      expect(stored).toMatchObject({ passed: false, is_guardrail: true });
    });

    it('a passing verdict: X-Guardrail-Passed true', async () => {
      const res = await evaluate('llm/competitor_blocklist', { data: { output: 'All good' }, as_guardrail: true });
      expect(res.headers.get('x-guardrail-passed')).toBe('true');
      expect(res.body[0]).toMatchObject({ status: 'processed', passed: true });
    });

    it('no verdict (a score-only metric) lets the call proceed; an evaluation that failed blocks it', async () => {
      const score = await evaluate('rag/context_recall', { data: { contexts: ['a'], expected_contexts: ['b'] }, as_guardrail: true });
      expect(score.body[0]).toMatchObject({ status: 'processed', score: 0, passed: true });
      expect(score.headers.get('x-guardrail-passed')).toBe('true');
      // Not configured (no Azure key here): a guardrail that could not run must not pass everything.
      const error = await evaluate('cloud/jailbreak', { data: { input: 'x' }, as_guardrail: true });
      expect(error.body[0]).toMatchObject({ status: 'error', passed: false });
      expect(error.headers.get('x-guardrail-passed')).toBe('false');
    });

    it('without as_guardrail there is no header', async () => {
      const res = await evaluate('llm/competitor_blocklist', { data: { output: 'Google' } });
      expect(res.headers.get('x-guardrail-passed')).toBeNull();
      expect(res.body[0].passed).toBe(false);
    });
  });
});

describe('runner', () => {
  const base = {
    path: 'test/thrower',
    name: 'Thrower',
    description: 'throws',
    category: 'custom' as const,
    data: z.object({ input: z.string() }),
    settings: z.object({}),
    requiredEnv: [],
    isCostly: false,
  };
  const options = { env: {}, fetch, now: () => new Date(), timeoutMs: 1000 };

  it('an evaluator that throws gives status error with error_type and traceback lines', async () => {
    class BrokenThing extends Error {
      override name = 'BrokenThing';
    }
    const thrower: EvaluatorDefinition = {
      ...base,
      async evaluate() {
        throw new BrokenThing('the thing broke');
      },
    };
    const result = await runEvaluator(thrower, { data: { input: 'x' }, settings: {} }, options);
    expect(result).toMatchObject({ status: 'error', error_type: 'BrokenThing', details: 'the thing broke' });
    expect(result.traceback![0]).toBe('BrokenThing: the thing broke');
    expect(result.traceback!.length).toBeGreaterThan(1);
    expect(result.traceback![1]).toMatch(/^\s+at /);
  });

  it('an evaluator that never finishes is cut off at the deadline with a Timeout result', async () => {
    const hanging: EvaluatorDefinition = { ...base, evaluate: () => new Promise(() => {}) };
    const started = Date.now();
    const result = await runEvaluator(hanging, { data: { input: 'x' }, settings: {} }, { ...options, timeoutMs: 50 });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(result).toMatchObject({ status: 'error', error_type: 'Timeout', details: expect.stringContaining('0.1 s') });
  });

  it('a NaN score is reported as an InvalidResult error, not stored as a number', async () => {
    const nan: EvaluatorDefinition = { ...base, evaluate: async () => ({ status: 'processed', score: Number.NaN }) };
    const result = await runEvaluator(nan, { data: { input: 'x' }, settings: {} }, options);
    expect(result).toMatchObject({ status: 'error', error_type: 'InvalidResult' });
  });
});
