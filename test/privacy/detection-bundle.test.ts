import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { request } from '../support/harness.ts';
import { startServer, useTmpDirs } from '../support/server-process.ts';
import { markers } from './markers.ts';

/**
 * The bundled server (dist/server, SPYGLASS_RUN_FROM=bundle: no fallback to the sources) with
 * privacy at ingest: its detection workers start from the bundle's own worker entry, only once
 * a project has privacy on, and search what comes in.
 */
const tmpDir = useTmpDirs();

beforeAll(() => {
  execFileSync(process.execPath, [path.resolve('scripts/build-server.mjs'), '--if-stale'], { stdio: 'inherit' });
}, 120_000);

/** The server process's threads (Linux: /proc), its detection workers among them. */
function threads(pid: number): number {
  return Number(/^Threads:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
}

describe('privacy detection workers in the bundled server', { timeout: 180_000 }, () => {
  it.runIf(process.platform === 'linux')('start when a project turns privacy on, not before, and mask what comes in', async () => {
    const dataDir = tmpDir();
    const srv = await startServer({ SPYGLASS_RUN_FROM: 'bundle', SPYGLASS_DATA_DIR: dataDir, SPYGLASS_PRIVACY_DETECTION_THREADS: '2' });
    try {
      const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
      const call = (method: string, url: string, body: unknown, token: string) => request(srv.baseUrl, method, url, { token, body, projectId: creds.project.id });
      const m = markers();
      const span = (id: string, text: string) => ({ trace_id: id, spans: [{ span_id: `${id}-s`, type: 'llm', model: 'gpt-4o-mini', input: { type: 'text', value: text }, output: { type: 'text', value: 'ok' }, timestamps: { started_at: 1_763_812_800_000, finished_at: 1_763_812_800_010 } }] });

      // Privacy off: ingest starts no detection worker.
      expect((await call('POST', '/api/collector', span('bundle-off', 'nothing to see here'), creds.projectApiKey)).status).toBe(200);
      const atRest = threads(srv.child.pid!);
      expect((await call('GET', '/api/privacy/settings', undefined, creds.adminApiKey)).status).toBe(200);
      expect(threads(srv.child.pid!)).toBe(atRest);

      const set = await call('PUT', '/api/privacy/settings', { mode: 'mask' }, creds.adminApiKey);
      expect(set.status, set.text).toBe(200);
      // The two workers start at once (they load the engine while nothing waits for them).
      expect(threads(srv.child.pid!)).toBeGreaterThanOrEqual(atRest + 2);

      const sent = await call('POST', '/api/collector', span('bundle-on', `Mail ${m.email} or call ${m.phone}`), creds.projectApiKey);
      expect(sent.status, sent.text).toBe(200);
      const trace = await call('GET', '/api/trace/bundle-on', undefined, creds.projectApiKey);
      expect(trace.body.input.value).toBe('Mail <EMAIL_ADDRESS> or call <PHONE_NUMBER>');
      expect(srv.output()).not.toContain('detection worker');
    } finally {
      srv.child.kill('SIGTERM');
      expect(await srv.exited).toBe(0);
    }
  });
});
