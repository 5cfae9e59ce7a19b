import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appDatabaseKinds } from '../support/harness.ts';
import { markers } from './markers.ts';
import { otlpDoc } from './otlp-doc.ts';
import { privacyApp } from './privacy-app.ts';

describe.each(appDatabaseKinds)('privacy detection workers stop when idle (%s)', (kind) => {
  let app: Awaited<ReturnType<typeof privacyApp>>;
  beforeAll(async () => {
    // Four idle seconds, not one: on a loaded machine the /metrics read right after the settings
    // change came after a one-second idle had already stopped the workers (seen at load 15).
    app = await privacyApp(kind, {}, { SPYGLASS_PRIVACY_DETECTION_THREADS: '2', SPYGLASS_PRIVACY_DETECTION_IDLE_SECONDS: '4' });
  });
  afterAll(() => app?.close());

  /** spyglass_privacy_detection_workers as /metrics shows it. */
  const workers = async () => {
    const metrics = (await app.call('GET', '/metrics', undefined, app.creds.adminApiKey)).text;
    const line = metrics.split('\n').find((l) => l.startsWith('spyglass_privacy_detection_workers '));
    expect(line, 'the workers gauge').toBeDefined();
    return Number(line!.split(' ').pop());
  };
  const waitFor = async (want: number) => {
    const deadline = Date.now() + 30_000;
    let seen = await workers();
    while (seen !== want && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await workers();
    }
    return seen;
  };

  it('start when privacy is turned on, stop after the idle time, start again for the next text, which is masked', async () => {
    expect(await workers()).toBe(0);
    const set = await app.call('PUT', '/api/privacy/settings', { mode: 'mask' }, app.creds.adminApiKey);
    expect(set.status, set.text).toBe(200);
    expect(await workers()).toBe(2);
    // Nothing to detect for four seconds: the workers stop.
    expect(await waitFor(0)).toBe(0);

    const m = markers();
    const traceId = 'ad1e'.repeat(8);
    const sent = app.otlp(otlpDoc(traceId, traceId.slice(0, 16), `Write to ${m.email} please.`, ''));
    // The text starts them again (lazily, not before it came).
    expect(await waitFor(2)).toBe(2);
    const res = await sent;
    expect(res.status, res.text).toBe(200);
    const trace = await app.call('GET', `/api/trace/${traceId}`);
    expect(trace.status, trace.text).toBe(200);
    expect(JSON.stringify(trace.body)).toContain('Write to <EMAIL_ADDRESS> please.');
    expect(JSON.stringify(trace.body)).not.toContain(m.email);
    expect(await waitFor(0)).toBe(0);
  });
});
