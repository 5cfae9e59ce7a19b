import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appDatabaseKinds } from '../support/harness.ts';
import { markers } from './markers.ts';
import { privacyApp } from './privacy-app.ts';

const T0 = Date.parse('2026-11-22T09:00:00Z');
const str = (stringValue: string) => ({ stringValue });
const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');

/** Texts holding these make a detection worker hang, throw or die (a test-only switch the workers get at start). */
const HANG = 'zq-hang-zq';
const THROW = 'zq-throw-zq';
const EXIT = 'zq-exit-zq';
/** A hung worker is terminated this long after it started on the text. */
const BUDGET_MS = 3_000;

/** One OTLP/JSON request: a trace of spans, each with the prompt given (and a completion holding nothing). */
function otlpDoc(traceNo: number, prompts: string[]) {
  const traceId = hex(0xd7 * 4096 + traceNo, 32);
  return {
    traceId,
    doc: {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: str('privacy-workers') }] },
          scopeSpans: [
            {
              spans: prompts.map((prompt, i) => ({
                traceId,
                spanId: hex(traceNo * 256 + i + 1, 16),
                name: `chat ${i}`,
                startTimeUnixNano: String((T0 + i) * 1e6),
                endTimeUnixNano: String((T0 + i + 5) * 1e6),
                attributes: [
                  { key: 'gen_ai.request.model', value: str('gpt-4o-mini') },
                  { key: 'gen_ai.prompt.0.role', value: str('user') },
                  { key: 'gen_ai.prompt.0.content', value: str(prompt) },
                  { key: 'gen_ai.completion.0.role', value: str('assistant') },
                  { key: 'gen_ai.completion.0.content', value: str('Thanks, passed on.') },
                ],
              })),
            },
          ],
        },
      ],
    },
  };
}

describe.each(appDatabaseKinds)('privacy detection on worker threads (%s)', (kind) => {
  let app: Awaited<ReturnType<typeof privacyApp>>;
  beforeAll(async () => {
    app = await privacyApp(kind, { budgetMs: BUDGET_MS, workerFault: { hangOn: HANG, throwOn: THROW, exitOn: EXIT } }, { SPYGLASS_PRIVACY_DETECTION_THREADS: '2' });
    const set = await app.call('PUT', '/api/privacy/settings', { mode: 'mask' }, app.creds.adminApiKey);
    expect(set.status, set.text).toBe(200);
  });
  afterAll(() => app?.close());

  const failures = async () => {
    const metrics = (await app.call('GET', '/metrics', undefined, app.creds.adminApiKey)).text;
    const line = metrics.split('\n').find((l) => l.startsWith('spyglass_privacy_redaction_failures_total{path="otlp"}'));
    return Number(line?.split(' ').pop() ?? 0);
  };
  /** Each span's prompt as stored, in span order. */
  const prompts = async (traceId: string) => {
    const trace = await app.call('GET', `/api/trace/${traceId}`);
    expect(trace.status, trace.text).toBe(200);
    const spans = [...(trace.body.spans as { name: string; input: unknown }[])].sort((a, b) => a.name.localeCompare(b.name));
    return { all: JSON.stringify(trace.body), inputs: spans.map((s) => JSON.stringify(s.input)) };
  };

  it('a worker past the budget is terminated and its text stored as [redaction failed]; the other texts are masked; /healthz answers meanwhile', async () => {
    const m = markers();
    const before = await failures();
    const { traceId, doc } = otlpDoc(1, [`Write to ${m.email} please.`, `${HANG}: mail ${m.email}, call ${m.phone}.`, `${THROW}: card ${m.card}, mail ${m.email}.`, `Call ${m.phone} today.`]);
    const started = performance.now();
    let ingestDone = Infinity;
    const sent = app.otlp(doc).then((res) => {
      ingestDone = performance.now();
      return res;
    });
    // While one worker spins on the hanging text, the main thread serves requests.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const health = await app.call('GET', '/healthz');
    const healthDone = performance.now();
    expect(health.status).toBe(200);
    const res = await sent;
    expect(res.status, res.text).toBe(200);
    expect(healthDone).toBeLessThan(ingestDone);
    // The request waited for the budget to run out on the hanging text, no longer than it needs.
    expect(ingestDone - started).toBeGreaterThanOrEqual(BUDGET_MS);

    const { all, inputs } = await prompts(traceId);
    expect(inputs[0]).toContain('<EMAIL_ADDRESS>');
    expect(inputs[1]).toContain('[redaction failed]');
    expect(inputs[2]).toContain('[redaction failed]');
    expect(inputs[3]).toContain('<PHONE_NUMBER>');
    for (const needle of [...m.needles, HANG, THROW]) expect(all).not.toContain(needle);
    expect((await failures()) - before).toBe(2);
  });

  it('texts go to the workers in batches, each text held to the budget: the one past it, the one that throws and the one its worker dies on fail alone', async () => {
    const m = markers();
    const before = await failures();
    // Enough texts for batches of several (a request's texts are shared out between the workers).
    const texts = Array.from({ length: 24 }, (_, i) => `Text ${i}: mail ${m.email}.`);
    texts[3] = `${HANG}: mail ${m.email}, call ${m.phone}.`;
    texts[10] = `${THROW}: card ${m.card}.`;
    texts[17] = `${EXIT}: call ${m.phone}.`;
    const { traceId, doc } = otlpDoc(5, texts);
    const res = await app.otlp(doc);
    expect(res.status, res.text).toBe(200);
    const { all, inputs } = await prompts(traceId);
    // Span names sort as strings: chat 0, chat 1, chat 10, ...
    const byIndex = new Map(inputs.map((input, at) => [[...texts.keys()].map(String).sort()[at], input]));
    for (const [i, input] of byIndex) {
      if (i === '3' || i === '10' || i === '17') expect(input, `text ${i}`).toContain('[redaction failed]');
      else expect(input, `text ${i}`).toContain(`Text ${i}: mail <EMAIL_ADDRESS>.`);
    }
    for (const needle of [...m.needles, HANG, THROW, EXIT]) expect(all).not.toContain(needle);
    expect((await failures()) - before).toBe(3);
  });

  it('a worker that dies fails only the text it was on, and the next request is searched by its replacement', async () => {
    const m = markers();
    const before = await failures();
    const first = otlpDoc(2, [`${EXIT}: mail ${m.email}.`, `Mail ${m.email} again.`]);
    const res = await app.otlp(first.doc);
    expect(res.status, res.text).toBe(200);
    const died = await prompts(first.traceId);
    expect(died.inputs[0]).toContain('[redaction failed]');
    expect(died.inputs[1]).toContain('<EMAIL_ADDRESS>');
    expect((await failures()) - before).toBe(1);

    // Both workers are replaced ones or survivors: every text of the next requests is searched.
    for (let n = 3; n < 5; n++) {
      const next = otlpDoc(n, [`Call ${m.phone} or mail ${m.email} (${n}).`, `Card ${m.card} for ${m.email} (${n}).`, `Mail ${m.email} now (${n}).`]);
      const again = await app.otlp(next.doc);
      expect(again.status, again.text).toBe(200);
      const stored = await prompts(next.traceId);
      for (const input of stored.inputs) expect(input).toContain('<EMAIL_ADDRESS>');
      for (const needle of m.needles) expect(stored.all).not.toContain(needle);
    }
    expect((await failures()) - before).toBe(1);
  });

  it('the collector path and a hash-mode search go through the workers too', async () => {
    const m = markers();
    const set = await app.call('PUT', '/api/privacy/settings', { mode: 'hash' }, app.creds.adminApiKey);
    expect(set.status, set.text).toBe(200);
    const sent = await app.call('POST', '/api/collector', {
      trace_id: 'workers-collector',
      spans: [{ span_id: 'wc-1', type: 'llm', model: 'gpt-4o-mini', input: { type: 'text', value: `Reach me at ${m.email}` }, output: { type: 'text', value: `${HANG} ${m.email}` }, timestamps: { started_at: T0, finished_at: T0 + 5 } }],
    });
    expect(sent.status, sent.text).toBe(200);
    const trace = await app.call('GET', '/api/trace/workers-collector');
    expect(trace.body.input.value).toMatch(/^Reach me at <EMAIL_ADDRESS:[0-9a-f]{12}>$/);
    expect(trace.body.output.value).toBe('[redaction failed]');
    // The typed address becomes its token (searched on a worker), which finds the trace.
    const search = await app.call('POST', '/api/trace/search', { query: m.email });
    expect(search.status, search.text).toBe(200);
    expect((search.body.traces as { trace_id: string }[]).map((x) => x.trace_id)).toEqual(['workers-collector']);
  });
});
