import { describe, expect, it } from 'vitest';
import { appDatabaseKinds, useProjectApp, type TestApp } from '../support/harness.ts';
import { otlpJsonRequest, stringAttributes } from '../support/otlp-json.ts';
import { markers } from './markers.ts';
import { otlpDoc, T0 } from './otlp-doc.ts';

const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');

describe.each(appDatabaseKinds)('privacy at ingest on the trace paths (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  useProjectApp(kind, (app) => ({ t, key } = app));

  const setPrivacy = async (body: object) => {
    const res = await t.request('PUT', '/api/privacy/settings', { token: t.creds.adminApiKey, projectId: t.creds.project.id, body });
    expect(res.status, res.text).toBe(200);
  };
  const detail = async (traceId: string) => {
    const res = await t.request('GET', `/api/trace/${traceId}`, { token: key });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const collector = (traceId: string, input: string, output: string, metadata: Record<string, unknown> = {}) =>
    t.request('POST', '/api/collector', {
      token: key,
      body: { trace_id: traceId, metadata, spans: [{ span_id: `${traceId}-s`, type: 'llm', name: 'answer', model: 'gpt-4o-mini', input: { type: 'text', value: input }, output: { type: 'text', value: output }, timestamps: { started_at: T0, finished_at: T0 + 10 } }] },
    });
  const search = async (query: string) => {
    const res = await t.request('POST', '/api/trace/search', { token: key, body: { query } });
    expect(res.status, res.text).toBe(200);
    return (res.body.traces as { trace_id: string }[]).map((x) => x.trace_id);
  };
  const metric = async (name: string, labels: string) => {
    const text = (await t.request('GET', '/metrics', { token: t.creds.adminApiKey })).text;
    const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
    return line ? Number(line.split(' ').pop()) : 0;
  };

  it('mask: OTLP spans and collector traces are stored with placeholders, a record per trace, counted in /metrics', async () => {
    await setPrivacy({ mode: 'mask', entities: ['CREDIT_CARD', 'EMAIL_ADDRESS', 'PHONE_NUMBER'] });
    const m = markers();
    const before = await metric('spyglass_privacy_values_redacted_total', 'entity_type="EMAIL_ADDRESS",path="otlp"');

    const otlpTrace = hex(0xa11ce, 32);
    const res = await t.request('POST', '/api/otel/v1/traces', { token: key, rawBody: JSON.stringify(otlpDoc(otlpTrace, hex(1, 16), m.sentence, `I will mail ${m.email}.`, { 'app.customer': m.email })), headers: { 'content-type': 'application/json' } });
    expect(res.status, res.text).toBe(200);
    const d = await detail(otlpTrace);
    const text = JSON.stringify(d);
    for (const needle of m.needles) expect(text).not.toContain(needle);
    expect(d.spans[0].model).toBe('gpt-4o-mini');
    expect(d.input.value).toContain('<CREDIT_CARD>');
    expect(d.input.value).toContain('<EMAIL_ADDRESS>');
    expect(d.input.value).toContain('<PHONE_NUMBER>');
    expect(d.spans[0].attributes['app.customer']).toBe('<EMAIL_ADDRESS>');
    expect(d.redactions.summary).toBe('5 values redacted: 1 EMAIL_ADDRESS in attributes, 1 CREDIT_CARD in input, 1 EMAIL_ADDRESS in input, 1 PHONE_NUMBER in input, 1 EMAIL_ADDRESS in output');
    expect(d.redactions.counts).toEqual(
      expect.arrayContaining([
        { field: 'input', entity_type: 'CREDIT_CARD', count: 1 },
        { field: 'input', entity_type: 'PHONE_NUMBER', count: 1 },
        { field: 'output', entity_type: 'EMAIL_ADDRESS', count: 1 },
        { field: 'attributes', entity_type: 'EMAIL_ADDRESS', count: 1 },
      ]),
    );
    expect(await metric('spyglass_privacy_values_redacted_total', 'entity_type="EMAIL_ADDRESS",path="otlp"')).toBeGreaterThan(before);

    const collected = 'collected-privacy-1';
    expect((await collector(collected, `Hi, I am ${m.email}, call ${m.phone}`, 'Thanks!', { user_id: m.email })).status).toBe(200);
    const c = await detail(collected);
    const ctext = JSON.stringify(c);
    for (const needle of m.needles) expect(ctext).not.toContain(needle);
    expect(c.redactions.summary).toMatch(/^3 values redacted: /);
    expect(c.redactions.summary).toContain('1 EMAIL_ADDRESS in metadata');
    expect(c.metadata.user_id).toBe('<EMAIL_ADDRESS>');

    // Search finds placeholders.
    expect(await search('<PHONE_NUMBER>')).toEqual(expect.arrayContaining([otlpTrace, collected]));
  });

  it('mask: a span holding no personal data is stored as sent and has no record; a span sent again without any loses its record', async () => {
    await setPrivacy({ mode: 'mask', entities: ['CREDIT_CARD', 'EMAIL_ADDRESS', 'PHONE_NUMBER'] });
    const m = markers();
    const traceId = hex(0xc1ea2, 32);
    const clean = `What are your opening hours on weekdays? (${m.control})`;
    const send = async (firstPrompt: string) => {
      const doc = otlpDoc(traceId, hex(1, 16), firstPrompt, 'We will look into it.');
      doc.resourceSpans[0].scopeSpans[0].spans.push(otlpDoc(traceId, hex(2, 16), clean, 'From nine to five.', { 'app.note': 'no personal data here' }).resourceSpans[0].scopeSpans[0].spans[0]);
      const res = await t.request('POST', '/api/otel/v1/traces', { token: key, rawBody: JSON.stringify(doc), headers: { 'content-type': 'application/json' } });
      expect(res.status, res.text).toBe(200);
      return detail(traceId);
    };
    const spanOf = (d: { spans: (Record<string, unknown> & { span_id: string; attributes: Record<string, unknown> })[] }, n: number) => d.spans.find((s) => s.span_id === hex(n, 16))!;

    const first = await send(m.sentence);
    for (const needle of m.needles) expect(JSON.stringify(first)).not.toContain(needle);
    expect(first.redactions.summary).toBe('3 values redacted: 1 CREDIT_CARD in input, 1 EMAIL_ADDRESS in input, 1 PHONE_NUMBER in input');
    const untouched = spanOf(first, 2);
    expect(JSON.stringify(untouched.input)).toContain(clean);
    expect(JSON.stringify(untouched.output)).toContain('From nine to five.');
    expect(untouched.attributes['app.note']).toBe('no personal data here');
    expect(untouched.redactions).toBeUndefined();
    expect(spanOf(first, 1).redactions).toEqual({ input: { CREDIT_CARD: 1, EMAIL_ADDRESS: 1, PHONE_NUMBER: 1 } });
    expect(await search(m.control)).toEqual([traceId]);

    // The first span again, now without personal data: its record goes with its old contents.
    const again = await send(`Never mind, ${m.control} is settled.`);
    expect(again.redactions).toBeNull();
    expect(spanOf(again, 1).redactions).toBeUndefined();
    expect(JSON.stringify(spanOf(again, 1).input)).toContain(`Never mind, ${m.control} is settled.`);
    expect(JSON.stringify(spanOf(again, 2).input)).toContain(clean);
  });

  it('hash: the same value gives the same token within the project, and a search for the typed value finds it', async () => {
    await setPrivacy({ mode: 'hash', entities: ['EMAIL_ADDRESS', 'PHONE_NUMBER'], untouched_keys: ['thread_id'] });
    const m = markers();
    expect((await collector('hashed-1', `From ${m.email}`, 'ok', { thread_id: 'thread-with-id-4155550100' })).status).toBe(200);
    expect((await collector('hashed-2', `Again from ${m.email.toUpperCase()}`, 'ok')).status).toBe(200);
    const one = await detail('hashed-1');
    const two = await detail('hashed-2');
    const token = /<EMAIL_ADDRESS:[0-9a-f]{12}>/.exec(one.input.value)?.[0];
    expect(token).toBeDefined();
    expect(two.input.value).toContain(token);
    expect(JSON.stringify([one, two])).not.toContain(m.email);
    // An untouched key keeps its value as sent.
    expect(one.metadata.thread_id).toBe('thread-with-id-4155550100');

    const typed = await t.request('POST', '/api/privacy/stored-form', { token: key, body: { value: m.email } });
    expect(typed.body.text).toBe(token);
    expect((await search(m.email)).sort()).toEqual(['hashed-1', 'hashed-2']);
  });

  it('flag only stores as sent and counts; the project\'s own patterns run; off leaves data alone; settings apply from their change on', async () => {
    const m = markers();
    await setPrivacy({ mode: 'flag', entities: ['EMAIL_ADDRESS'] });
    expect((await collector('flagged', `mail ${m.email}`, 'ok')).status).toBe(200);
    const flagged = await detail('flagged');
    expect(flagged.input.value).toBe(`mail ${m.email}`);
    expect(flagged.redactions.summary).toBe('1 value redacted: 1 EMAIL_ADDRESS in input');

    await setPrivacy({ mode: 'mask', entities: [], patterns: [{ name: 'EMPLOYEE_ID', pattern: 'EMP-\\d{6}' }] });
    expect((await collector('patterned', 'badge EMP-123456 and EMP-654321', 'ok')).status).toBe(200);
    const patterned = await detail('patterned');
    expect(patterned.input.value).toBe('badge <EMPLOYEE_ID> and <EMPLOYEE_ID>');
    expect(patterned.redactions.summary).toBe('2 values redacted: 2 EMPLOYEE_ID in input');

    await setPrivacy({ mode: 'off' });
    expect((await collector('unredacted', `mail ${m.email}`, 'ok')).status).toBe(200);
    const off = await detail('unredacted');
    expect(off.input.value).toBe(`mail ${m.email}`);
    expect(off.redactions).toBeNull();
    // What was stored before the change stays as it was.
    expect((await detail('patterned')).input.value).toBe('badge <EMPLOYEE_ID> and <EMPLOYEE_ID>');
  });

  it('mask: requests larger than one transaction piece (OTLP and collector) land whole, every span masked, each trace with its full record', async () => {
    await setPrivacy({ mode: 'mask', entities: ['EMAIL_ADDRESS'] });
    const email = (trace: number, i: number) => `buyer${trace}x${i}@example.com`;
    // OTLP: a 300-span trace between small ones, 350 spans in one request (pieces hold at most 250).
    const traces = [1, 2, 3, 4, 5, 0, 6, 7, 8, 9, 10];
    const spans = traces.flatMap((k) =>
      Array.from({ length: k === 0 ? 300 : 5 }, (_, i) => ({
        traceId: hex(0xb16a000 + k, 32),
        spanId: hex(k * 10_000 + i + 1, 16),
        name: 'chat',
        startTimeUnixNano: String((T0 + i) * 1e6),
        endTimeUnixNano: String((T0 + i + 10) * 1e6),
        attributes: stringAttributes({ 'output.value': `Write to ${email(k, i)} today.` }),
      })),
    );
    const res = await t.request('POST', '/api/otel/v1/traces', { token: key, rawBody: JSON.stringify(otlpJsonRequest('pieces', spans)), headers: { 'content-type': 'application/json' } });
    expect(res.status, res.text).toBe(200);
    const big = await detail(hex(0xb16a000, 32));
    expect(big.span_count).toBe(300);
    expect(big.redactions.summary).toBe('300 values redacted: 300 EMAIL_ADDRESS in output');
    expect(JSON.stringify(big)).not.toMatch(/buyer\d+x\d+@example\.com/);
    expect(big.spans.filter((s: { output: { value: string } }) => s.output.value === 'Write to <EMAIL_ADDRESS> today.')).toHaveLength(300);
    for (const k of [1, 5, 6, 10]) {
      const small = await detail(hex(0xb16a000 + k, 32));
      expect(small.span_count).toBe(5);
      expect(small.redactions.summary).toBe('5 values redacted: 5 EMAIL_ADDRESS in output');
    }

    // The collector: one trace of 300 spans, written in runs of a piece's size.
    const collected = 'collected-pieces';
    const body = {
      trace_id: collected,
      spans: Array.from({ length: 300 }, (_, i) => ({ span_id: `${collected}-${i}`, type: 'llm', input: { type: 'text', value: `From ${email(99, i)}` }, output: { type: 'text', value: 'ok' }, timestamps: { started_at: T0 + i, finished_at: T0 + i + 10 } })),
    };
    expect((await t.request('POST', '/api/collector', { token: key, body })).status).toBe(200);
    const c = await detail(collected);
    expect(c.span_count).toBe(300);
    expect(c.redactions.summary).toBe('300 values redacted: 300 EMAIL_ADDRESS in input');
    expect(JSON.stringify(c)).not.toMatch(/buyer\d+x\d+@example\.com/);
  });
});
