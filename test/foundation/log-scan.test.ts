import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyTemplateDatabase, appDatabaseKinds, request } from '../support/harness.ts';
import { startServer, useTmpDirs } from '../support/server-process.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { waitFor } from '../webhooks/support.ts';
import { errorReply, startFakeServer } from '../evaluators/fake-servers.ts';

/**
 * A server process at the most verbose log level, taken through everything that handles a
 * secret: first start, sign-in, password change and reset, invitations, API keys, webhook
 * secrets (create, roll, signed deliveries), agent cache values, share links, and the same
 * secrets sent where they do not belong (failing requests). Its whole output (stdout and
 * stderr) must contain none of them.
 */
describe.each(appDatabaseKinds)('log scan: no token, password, webhook secret or cache value in the logs (%s)', (kind) => {
  const tmp = useTmpDirs();
  let receiver: Receiver;
  let dropDb: (() => Promise<void>) | null = null;
  let databaseUrl: string | null = null;
  beforeAll(async () => {
    receiver = await Receiver.start();
    if (kind === 'postgres') {
      const copy = await copyTemplateDatabase();
      databaseUrl = copy.url;
      dropDb = copy.drop;
    }
  });
  afterAll(async () => {
    await receiver.close();
    await dropDb?.();
  });

  it('at LOG_LEVEL=trace', async () => {
    const dataDir = tmp();
    const secrets: string[] = [];
    const keep = <T extends string>(s: T): T => (secrets.push(s), s);
    const initialPassword = keep(`initial-${randomBytes(9).toString('hex')}`);
    const server = await startServer({
      SPYGLASS_DATA_DIR: dataDir,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      LOG_LEVEL: 'trace',
      SPYGLASS_WEBHOOK_ALLOW_PRIVATE: '1',
      SPYGLASS_WEBHOOK_POLL_MS: '100',
      SPYGLASS_INIT_USER_PASSWORD: initialPassword,
    });
    try {
      const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
      const project: string = keep(creds.projectApiKey);
      const admin: string = keep(creds.adminApiKey);
      const base = server.baseUrl;
      const call = (method: string, url: string, opts: Parameters<typeof request>[3] = {}) => request(base, method, url, opts);

      // Sign in, change the password, sign in again; a wrong password too.
      const signin = await fetch(`${base}/api/auth/signin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: creds.user.email, password: initialPassword }) });
      expect(signin.status).toBe(200);
      const cookie = keep(signin.headers.getSetCookie()[0].split(';')[0]);
      const session = (await signin.json()) as { csrfToken: string };
      const csrf = keep(session.csrfToken);
      const newPassword = keep(`changed-${randomBytes(9).toString('hex')}`);
      const changed = await call('POST', '/api/auth/password', { headers: { cookie, 'x-csrf-token': csrf }, body: { currentPassword: initialPassword, newPassword } });
      expect(changed.status, changed.text).toBeLessThan(300);
      expect((await call('POST', '/api/auth/signin', { body: { email: creds.user.email, password: keep(`wrong-${randomBytes(6).toString('hex')}`) } })).status).toBe(401);

      // API keys: minted, used, revoked, and sent malformed.
      const minted = await call('POST', '/api/api-keys', { token: admin, body: { name: 'scan', keyType: 'service' } });
      expect(minted.status, minted.text).toBe(200);
      const serviceKey = keep(minted.body.token as string);
      expect((await call('GET', '/api/prompts', { token: serviceKey, projectId: creds.project.id })).status).toBe(200);
      expect((await call('DELETE', `/api/api-keys/${minted.body.apiKey.id}`, { token: admin })).status).toBeLessThan(300);
      expect((await call('GET', '/api/prompts', { token: serviceKey, projectId: creds.project.id })).status).toBe(401);
      expect((await call('GET', '/api/prompts', { basic: [creds.project.id, project] })).status).toBe(200);
      expect((await call('GET', '/api/prompts', { authToken: `${project}x` })).status).toBe(401);

      // Invitations and password resets: their links carry tokens.
      const member = await call('POST', '/api/members', { token: admin, body: { email: 'scan@example.com', role: 'MEMBER' } });
      expect(member.status, member.text).toBeLessThan(300);
      const inviteToken = keep((member.body.invitation.url as string).split('/').pop()!);
      expect((await call('GET', `/api/auth/invitations/${inviteToken}`)).status).toBe(200);
      const memberPassword = keep(`member-${randomBytes(9).toString('hex')}`);
      expect((await call('POST', `/api/auth/invitations/${inviteToken}/accept`, { body: { password: memberPassword, name: 'Scan' } })).status).toBe(200);
      const reset = await call('POST', `/api/members/${member.body.userId ?? member.body.user?.id ?? member.body.id}/password-reset`, { token: admin });
      expect(reset.status, reset.text).toBe(200);
      const resetToken = keep((reset.body.url as string).split('/').pop()!);
      expect((await call('GET', `/api/auth/password-reset/${resetToken}`)).status).toBe(200);
      expect((await call('POST', `/api/auth/password-reset/${resetToken}`, { body: { password: keep(`reset-${randomBytes(9).toString('hex')}`) } })).status).toBe(200);

      // Webhook secrets: shown at creation and roll, used to sign every delivery.
      const endpoint = await call('POST', '/api/webhooks/v1/endpoints', { token: project, body: { url: receiver.url, enabled_events: ['annotation.*', 'trace.*'] } });
      expect(endpoint.status, endpoint.text).toBe(201);
      keep(endpoint.body.data.secret as string);
      const rolled = await call('POST', `/api/webhooks/v1/endpoints/${endpoint.body.data.id}/roll-secret`, { token: project });
      expect(rolled.status, rolled.text).toBe(200);
      keep((rolled.body.data?.secret ?? rolled.body.secret) as string);

      // Agent cache values.
      const cached = keep(`cache-value-${randomBytes(9).toString('hex')}`);
      expect((await call('PUT', '/api/agent-cache/SCAN_VALUE', { token: project, body: { value: cached, ttl_seconds: 60 } })).status).toBe(200);
      expect((await call('GET', '/api/agent-cache/SCAN_VALUE', { token: project })).body.value).toBe(cached);
      // A value in a refused request (the name is invalid): the 400 must not echo it into a log.
      expect((await call('PUT', '/api/agent-cache/bad-name', { token: project, body: { value: cached, ttl_seconds: 60 } })).status).toBe(400);

      // Model provider keys: set (sealed), listed, tested against a server that echoes them, sent in a refused body.
      const llm = await startFakeServer();
      try {
        const providerKey = keep(`sk-scan-${randomBytes(12).toString('hex')}`);
        const provider = await call('POST', '/api/model-providers', {
          token: admin,
          projectId: creds.project.id,
          body: { name: 'scan', kind: 'openai_compatible', api_key: providerKey, base_url: `${llm.url}/v1`, models: ['m'] },
        });
        expect(provider.status, provider.text).toBe(201);
        expect(provider.text).not.toContain(providerKey);
        llm.queue(errorReply(401, `Incorrect API key provided: ${providerKey}`));
        const tested = await call('POST', `/api/model-providers/${provider.body.id}/test`, { token: admin, projectId: creds.project.id, body: {} });
        expect(tested.status).toBe(200);
        expect(tested.text).not.toContain(providerKey);
        llm.queue(errorReply(500, `upstream failed for key ${providerKey}`));
        const judged = await call('POST', '/api/evaluations/llm/llm_score/evaluate', { authToken: project, body: { data: { output: 'x' }, settings: { model: 'scan/m' } } });
        expect(judged.status).toBe(200);
        expect(judged.text).not.toContain(providerKey);
        await call('POST', '/api/model-providers', { token: admin, projectId: creds.project.id, body: { name: 'bad name', kind: 'openai', api_key: providerKey, models: ['m'] } });
        expect((await call('GET', '/api/model-providers', { token: admin, projectId: creds.project.id })).text).not.toContain(providerKey);
      } finally {
        await llm.close();
      }

      // A trace shared and read through its public link; events delivered with signatures.
      const now = Date.now();
      expect((await call('POST', '/api/collector', { authToken: project, body: { trace_id: 'scan-trace', spans: [{ span_id: 's1', type: 'span', timestamps: { started_at: now - 10, finished_at: now } }] } })).status).toBe(200);
      const share = await call('POST', '/api/trace/scan-trace/share', { token: project });
      const shareToken = keep((share.body.path as string).split('/').pop()!);
      expect((await call('GET', `/api/share/${shareToken}`)).status).toBe(200);
      expect((await call('POST', '/api/annotations/trace/scan-trace', { token: project, body: { comment: 'c', isThumbsUp: true } })).status).toBe(200);
      await waitFor(() => receiver.received.length >= 2, 15_000);
      for (const r of receiver.received) keep(r.headers['webhook-signature']);

      // Secrets sent where they do not belong: in a query string, a path, a bad body.
      await call('GET', `/api/annotations?anchor=${encodeURIComponent(cached)}`, { token: project });
      await call('GET', `/api/trace/${encodeURIComponent(admin)}`, { token: project });
      await call('POST', '/api/auth/signin', { rawBody: `{"email":"x@example.com","password":"${newPassword}"`, headers: { 'content-type': 'application/json' } });
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }

    const output = server.output();
    expect(output.length).toBeGreaterThan(1000); // trace level: the requests were logged
    const leaked = secrets.filter((s) => output.includes(s));
    // The secret halves of tokens too (sg-<id>_<secret>): the id is public, the secret is not.
    const halves = secrets.filter((s) => /^sgp?-[A-Za-z0-9]{16}_/.test(s)).map((s) => s.split('_')[1]).filter((h) => output.includes(h));
    expect([...leaked, ...halves], `secrets found in the logs:\n${output.slice(0, 2000)}`).toEqual([]);
  }, 180_000);
});
