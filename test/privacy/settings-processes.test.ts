import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS_REFRESH_MS } from '../../src/modules/privacy/redactors.ts';
import { databaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { markers } from './markers.ts';

const T0 = Date.parse('2026-11-22T09:00:00Z');

/**
 * Each server process keeps a copy of a project's settings (ingest with privacy off reads
 * nothing): the process that saves applies them to the next request, another process on
 * the same database within SETTINGS_REFRESH_MS.
 */
describe.each(databaseKinds)('privacy settings across server processes on one database (%s)', (kind) => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startApp(kind, { fresh: true });
    b = await startApp(kind, { reopen: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const setPrivacy = async (app: TestApp, body: object) => {
    const res = await app.request('PUT', '/api/privacy/settings', { token: app.creds.adminApiKey, projectId: app.creds.project.id, body });
    expect(res.status, res.text).toBe(200);
  };
  /** Sends one trace to `app` and reads back its stored input. */
  const storedInput = async (app: TestApp, traceId: string, input: string): Promise<string> => {
    const key = app.creds.projectApiKey;
    const sent = await app.request('POST', '/api/collector', {
      token: key,
      body: { trace_id: traceId, spans: [{ span_id: `${traceId}-s`, type: 'llm', name: 'answer', input: { type: 'text', value: input }, output: { type: 'text', value: 'ok' }, timestamps: { started_at: T0, finished_at: T0 + 10 } }] },
    });
    expect(sent.status, sent.text).toBe(200);
    const read = await a.request('GET', `/api/trace/${traceId}`, { token: key });
    expect(read.status, read.text).toBe(200);
    return read.body.input.value as string;
  };

  it('a change made in one process applies in the other after at most the refresh interval, and at once in its own', async () => {
    const m = markers();
    // Both processes have read the settings (off): each holds its copy.
    expect(await storedInput(a, 'proc-a-off', `Mail ${m.email}`)).toContain(m.email);
    expect(await storedInput(b, 'proc-b-off', `Mail ${m.email}`)).toContain(m.email);

    await setPrivacy(a, { mode: 'mask', entities: ['EMAIL_ADDRESS'] });
    expect(await storedInput(a, 'proc-a-mask', `Mail ${m.email}`)).toBe('Mail <EMAIL_ADDRESS>');
    // The same text again (what was found in it is remembered): masked and recorded as the first time.
    expect(await storedInput(a, 'proc-a-mask-again', `Mail ${m.email}`)).toBe('Mail <EMAIL_ADDRESS>');
    expect((await a.request('GET', '/api/trace/proc-a-mask-again', { token: a.creds.projectApiKey })).body.redactions.summary).toBe('1 value redacted: 1 EMAIL_ADDRESS in input');
    await sleep(SETTINGS_REFRESH_MS + 50);
    expect(await storedInput(b, 'proc-b-mask', `Mail ${m.email}`)).toBe('Mail <EMAIL_ADDRESS>');

    // And back: the process that saves applies "off" at once, the other within the interval.
    await setPrivacy(b, { mode: 'off' });
    expect(await storedInput(b, 'proc-b-off-again', `Mail ${m.email}`)).toContain(m.email);
    await sleep(SETTINGS_REFRESH_MS + 50);
    expect(await storedInput(a, 'proc-a-off-again', `Mail ${m.email}`)).toContain(m.email);
  });
});
