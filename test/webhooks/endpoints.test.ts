import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { EVENT_TYPES } from '../../src/platform/events/index.ts';
import { createTenant, appDatabaseKinds, ManualClock, startApp, type DatabaseKind, type TestApp, type Tenant } from '../support/harness.ts';
import { Receiver } from './receiver.ts';
import { admin, dispatcherOf, signedWith, WEBHOOK_TEST_ENV } from './support.ts';

const BASE = '/api/webhooks/v1';
const HOUR = 3600_000;

/**
 * The file's database per kind, opened by the first block's app: the second block's app (another
 * environment) reopens it once the first has stopped, instead of opening a database of its own
 * (about 2 s of CPU on PGlite). Closed after the file.
 */
const firstApps = new Map<DatabaseKind, TestApp>();
afterAll(async () => {
  for (const app of firstApps.values()) await app.close();
});

describe.each(appDatabaseKinds)('webhook endpoints and catalogue (%s)', (kind) => {
  let t: TestApp;
  let other: Tenant;
  let receiver: Receiver;
  let api: ReturnType<typeof admin>;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    t = await startApp(kind, { clock, env: WEBHOOK_TEST_ENV });
    firstApps.set(kind, t);
    other = await createTenant(t);
    api = admin(t);
  });
  // Stopped (its requests and timers end); its database stays for the next block.
  afterAll(() => t?.stop());
  beforeEach(async () => {
    receiver = await Receiver.start();
  });
  afterEach(async () => {
    for (const e of (await api.get(`${BASE}/endpoints`)).body.data) await api.call('DELETE', `${BASE}/endpoints/${e.id}`);
    await receiver.close();
  });

  const project = () => ({ token: t.creds.projectApiKey });

  it('lists the event-type catalogue, grouped by family, to any valid key of the project', async () => {
    const res = await t.request('GET', `${BASE}/event-types`, project());
    expect(res.status).toBe(200);
    const data = res.body.data as { type: string; family: string; schema_version: string; is_emitting: boolean; description: string }[];
    expect(data.map((e) => e.type).sort()).toEqual(EVENT_TYPES.map((e) => e.type).sort());
    for (const e of data) {
      expect(Object.keys(e).sort()).toEqual(['description', 'family', 'is_emitting', 'schema_version', 'type']);
      expect(e.family).toBe(e.type.split('.')[0]);
      expect(e.description.length).toBeGreaterThan(0);
    }
    // Grouped: each family's types are contiguous.
    const families = data.map((e) => e.family).filter((f, i, all) => i === 0 || all[i - 1] !== f);
    expect(new Set(families).size).toBe(families.length);
    expect(data.find((e) => e.type === 'api_key.created')!.is_emitting).toBe(true);

    expect((await t.request('GET', `${BASE}/event-types`)).status).toBe(401);
    expect((await t.request('GET', `${BASE}/event-types`, { token: t.creds.adminApiKey, projectId: t.creds.project.id })).status).toBe(200);
    const noProject = await t.request('GET', `${BASE}/event-types`, { token: t.creds.adminApiKey });
    expect(noProject.status).toBe(400);
    expect(noProject.body.error).toMatchObject({ type: 'invalid_request', code: 'missing_project' });
  });

  it('creates an endpoint: 201, the whsec_ secret once, never stored in plaintext', async () => {
    const res = await t.request('POST', `${BASE}/endpoints`, {
      ...project(),
      body: { url: receiver.url, enabled_events: ['trace.*', 'prompt.created', 'prompt.created'], description: 'CI hook' },
    });
    expect(res.status).toBe(201);
    const created = res.body.data;
    expect(created).toMatchObject({
      project_id: t.creds.project.id,
      url: receiver.url,
      description: 'CI hook',
      enabled_events: ['trace.*', 'prompt.created'],
      max_batch_size: 50,
      max_batch_delay_ms: 0,
      enabled: true,
      disabled_reason: null,
      receives_organization_events: false,
      previous_secret_expires_at: null,
    });
    expect(created.id).toMatch(/^ep_/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const got = await t.request('GET', `${BASE}/endpoints/${created.id}`, project());
    expect(got.status).toBe(200);
    expect(got.body.data).not.toHaveProperty('secret');
    expect(got.body.data).toEqual(Object.fromEntries(Object.entries(created).filter(([k]) => k !== 'secret')));
    const list = await t.request('GET', `${BASE}/endpoints`, project());
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([created.id]);
    expect(JSON.stringify(list.body)).not.toContain(created.secret.slice(6));

    const stored = JSON.stringify(await rows(t.db.orm, sql`SELECT * FROM webhook_endpoints`));
    expect(stored).toContain(created.id);
    expect(stored).not.toContain(created.secret.slice(6));
    expect(stored).not.toContain(Buffer.from(created.secret.slice(6), 'base64').toString('hex'));
  });

  it('refuses bad bodies with a 400 naming the field, in the {error: {type, code, message}} shape', async () => {
    const ok = { url: receiver.url, enabled_events: ['*'] };
    const cases: [Record<string, unknown>, string][] = [
      [{ enabled_events: ['*'] }, 'body.url'],
      [{ ...ok, url: 'not a url' }, 'body.url'],
      [{ ...ok, url: 'ftp://example.com/hook' }, 'body.url'],
      [{ ...ok, url: 'http://user:pw@example.com/hook' }, 'body.url'],
      [{ ...ok, url: `http://example.com/${'x'.repeat(2048)}` }, 'body.url'],
      [{ url: receiver.url }, 'body.enabled_events'],
      [{ ...ok, enabled_events: [] }, 'body.enabled_events'],
      [{ ...ok, enabled_events: ['trace.created', 'trace.exploded'] }, 'body.enabled_events.1'],
      [{ ...ok, enabled_events: ['nope.*'] }, 'body.enabled_events.0'],
      [{ ...ok, enabled_events: 'trace.created' }, 'body.enabled_events'],
      [{ ...ok, description: 'x'.repeat(501) }, 'body.description'],
      [{ ...ok, max_batch_size: 0 }, 'body.max_batch_size'],
      [{ ...ok, max_batch_size: 501 }, 'body.max_batch_size'],
      [{ ...ok, max_batch_size: 1.5 }, 'body.max_batch_size'],
      [{ ...ok, max_batch_delay_ms: -1 }, 'body.max_batch_delay_ms'],
      [{ ...ok, max_batch_delay_ms: 300_001 }, 'body.max_batch_delay_ms'],
      [{ ...ok, secret: 'whsec_mine' }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await t.request('POST', `${BASE}/endpoints`, { ...project(), body });
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      expect(res.body.error.type).toBe('invalid_request');
      expect(typeof res.body.error.code).toBe('string');
      expect(res.body.error.message).toContain(field);
      expect(res.body.error.meta.field, JSON.stringify(body).slice(0, 120)).toBe(field);
    }
    const patch = await t.request('PATCH', `${BASE}/endpoints/ep_missing`, { ...project(), body: { max_batch_size: 0 } });
    expect(patch.status).toBe(400);
    const broken = await t.request('POST', `${BASE}/endpoints`, { ...project(), rawBody: '{"url":', headers: { 'content-type': 'application/json' } });
    expect(broken.status).toBe(400);
    expect(broken.body.error).toMatchObject({ type: 'invalid_request', code: 'invalid_json' });
  });

  it('reads, changes and deletes endpoints of its own project only; unknown ids are 404', async () => {
    const created = (await api.createEndpoint({ url: receiver.url, enabled_events: ['prompt.*'] })).body.data;
    const url = `${BASE}/endpoints/${created.id}`;

    const patched = await api.call('PATCH', url, { enabled_events: ['*'], description: 'all', max_batch_size: 5, max_batch_delay_ms: 1000 });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ enabled_events: ['*'], description: 'all', max_batch_size: 5, max_batch_delay_ms: 1000 });
    expect((await api.call('PATCH', url, { description: null })).body.data.description).toBeNull();
    const disabled = await api.call('PATCH', url, { enabled: false });
    expect(disabled.body.data).toMatchObject({ enabled: false, disabled_reason: 'disabled through the API' });

    // Another organization's key naming our project is refused; its own project does not see our endpoint.
    expect((await t.request('GET', url, { token: other.adminToken, projectId: t.creds.project.id })).status).toBe(403);
    for (const [method, path] of [
      ['GET', url],
      ['PATCH', url],
      ['DELETE', url],
      ['POST', `${url}/test`],
      ['POST', `${url}/roll-secret`],
      ['GET', `${url}/deliveries`],
    ] as const) {
      const res = await t.request(method, path, { token: other.projectToken, body: method === 'PATCH' ? { description: 'x' } : undefined });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'not_found', code: 'webhook_endpoint_not_found' });
    }
    expect((await t.request('GET', `${BASE}/endpoints`, { token: other.projectToken })).body.data).toEqual([]);

    const deleted = await api.call('DELETE', url);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api.get(url)).status).toBe(404);
    expect((await api.call('DELETE', url)).status).toBe(404);
  });

  it('a read-only key may read endpoints but not change them', async () => {
    const minted = await t.request('POST', '/api/api-keys', {
      token: t.creds.adminApiKey,
      body: { name: 'ro', keyType: 'service', permissionMode: 'readonly' },
    });
    const ro = { token: minted.body.token, projectId: t.creds.project.id };
    expect((await t.request('GET', `${BASE}/endpoints`, ro)).status).toBe(200);
    const refused = await t.request('POST', `${BASE}/endpoints`, { ...ro, body: { url: receiver.url, enabled_events: ['*'] } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'permission_error' });
  });

  it('sends a webhook.test event to that endpoint alone, whatever it subscribes to', async () => {
    const endpoint = (await api.createEndpoint({ url: receiver.url, enabled_events: ['api_key.created'] })).body.data;
    const quiet = await Receiver.start();
    try {
      await api.createEndpoint({ url: quiet.url, enabled_events: ['prompt.*'] });
      const res = await api.call('POST', `${BASE}/endpoints/${endpoint.id}/test`);
      expect(res.status).toBe(202);
      expect(res.body.data.dispatch_id).toMatch(/^msg_/);
      // An event the endpoint subscribes to, queued while the test event waits: its own batch.
      const minted = await api.mintKey('beside the test');
      await dispatcherOf(t).drain();
      expect(quiet.received).toHaveLength(0);
      expect(receiver.received).toHaveLength(2);
      const r = receiver.received.find((x) => x.headers['webhook-id'] === res.body.data.dispatch_id)!;
      const other = receiver.received.find((x) => x !== r)!;
      expect(other.json.batch.map((e) => [e.type, e.data.id])).toEqual([['api_key.created', minted.apiKey.id]]);
      expect(r.headers['webhook-id']).toBe(res.body.data.dispatch_id);
      expect(r.json.batch).toEqual([res.body.data.event]);
      expect(r.json.batch[0]).toMatchObject({ type: 'webhook.test', data: { endpoint_id: endpoint.id } });
      expect(signedWith(endpoint.secret, r)).toBe(true);
      const log = (await api.deliveries(endpoint.id)).body.data;
      expect(log).toHaveLength(2);
      expect(log.find((a: { dispatch_id: string }) => a.dispatch_id === res.body.data.dispatch_id)).toMatchObject({ event_count: 1, outcome: 'delivered' });

      await api.call('PATCH', `${BASE}/endpoints/${endpoint.id}`, { enabled: false });
      const refused = await api.call('POST', `${BASE}/endpoints/${endpoint.id}/test`);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ type: 'conflict', code: 'endpoint_disabled' });
    } finally {
      await quiet.close();
    }
  });

  it('rolls the secret: the new one is shown once, the old one keeps verifying for 24 hours', async () => {
    const endpoint = (await api.createEndpoint({ url: receiver.url, enabled_events: ['api_key.created'] })).body.data;
    const rolled = await api.call('POST', `${BASE}/endpoints/${endpoint.id}/roll-secret`);
    expect(rolled.status).toBe(200);
    const { secret, previous_secret_expires_at } = rolled.body.data;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(endpoint.secret);
    expect(previous_secret_expires_at).toBe(new Date(clock.now().getTime() + 24 * HOUR).toISOString());
    expect((await api.get(`${BASE}/endpoints/${endpoint.id}`)).body.data.previous_secret_expires_at).toBe(previous_secret_expires_at);

    await api.mintKey('after roll');
    await dispatcherOf(t).drain();
    const within = receiver.received.at(-1)!;
    expect(within.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(signedWith(secret, within)).toBe(true);
    expect(signedWith(endpoint.secret, within)).toBe(true);

    clock.advance(24 * HOUR + 1000);
    await api.mintKey('a day later');
    await dispatcherOf(t).drain();
    const after = receiver.received.at(-1)!;
    expect(after.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(signedWith(secret, after)).toBe(true);
    expect(signedWith(endpoint.secret, after)).toBe(false);
  });

  it('organization-level events (organization keys) reach only endpoints whose URL an organization admin set', async () => {
    const byAdmin = (await api.createEndpoint({ url: receiver.url, enabled_events: ['api_key.*'] })).body.data;
    expect(byAdmin.receives_organization_events).toBe(true);
    const projectReceiver = await Receiver.start();
    try {
      const byProjectKey = await t.request('POST', `${BASE}/endpoints`, {
        ...project(),
        body: { url: projectReceiver.url, enabled_events: ['api_key.*'] },
      });
      expect(byProjectKey.body.data.receives_organization_events).toBe(false);
      const minted = await api.mintKey('org-wide');
      await dispatcherOf(t).drain();
      expect(receiver.events().map((e) => e.data.id)).toEqual([minted.apiKey.id]);
      expect(projectReceiver.received).toHaveLength(0);

      // A project key re-pointing the admin's endpoint takes the organization events away from it.
      const repointed = await t.request('PATCH', `${BASE}/endpoints/${byAdmin.id}`, { ...project(), body: { url: projectReceiver.url } });
      expect(repointed.body.data.receives_organization_events).toBe(false);
    } finally {
      await projectReceiver.close();
    }
  });

  it('pages the deliveries log newest first; every attempt exactly once; bad cursor or limit is a 400', async () => {
    const endpoint = (await api.createEndpoint({ url: receiver.url, enabled_events: ['api_key.created'], max_batch_size: 1 })).body.data;
    receiver.reply = (_, i) => ({ status: i % 3 === 0 ? 500 : 200 });
    for (let i = 0; i < 7; i++) {
      await api.mintKey(`page ${i}`);
      await dispatcherOf(t).drain();
      clock.advance(10_000);
      await dispatcherOf(t).drain();
    }
    const all = (await api.deliveries(endpoint.id)).body;
    expect(all.next_cursor).toBeNull();
    const total = all.data.length;
    expect(total).toBeGreaterThanOrEqual(9);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await api.deliveries(endpoint.id, `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...res.body.data.map((a: { id: string }) => a.id));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(Math.ceil(total / 3));
    expect(seen).toEqual(all.data.map((a: { id: string }) => a.id));
    expect(new Set(seen).size).toBe(total);
    const fired = all.data.map((a: { fired_at: string }) => Date.parse(a.fired_at));
    expect([...fired].sort((a, b) => b - a)).toEqual(fired);
    for (const a of all.data) {
      expect(Object.keys(a).sort()).toEqual(
        ['attempt', 'dispatch_id', 'error', 'event_count', 'fired_at', 'id', 'latency_ms', 'next_attempt_at', 'outcome', 'response_status'].sort(),
      );
    }

    const bad: [string, string][] = [
      ['?cursor=not-a-cursor', 'cursor'],
      [`?cursor=${'a'.repeat(501)}`, 'querystring.cursor'],
      ['?cursor=%25%25', 'cursor'],
      ['?limit=0', 'querystring.limit'],
      ['?limit=201', 'querystring.limit'],
      ['?limit=ten', 'querystring.limit'],
      ['?limit=2.5', 'querystring.limit'],
    ];
    for (const [query, field] of bad) {
      const res = await api.deliveries(endpoint.id, query);
      expect(res.status, query).toBe(400);
      expect(res.body.error.type).toBe('invalid_request');
      expect(res.body.error.meta.field, query).toBe(field);
    }
    expect((await api.deliveries(endpoint.id, '?limit=200')).status).toBe(200);
    expect((await api.deliveries('ep_unknown')).status).toBe(404);
  });
});

describe.each(appDatabaseKinds)('webhook destinations without SPYGLASS_WEBHOOK_ALLOW_PRIVATE (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(kind, { reopen: firstApps.get(kind), env: { SPYGLASS_WEBHOOK_POLL_MS: '0' } });
  });
  afterAll(() => t.close());

  it('refuses loopback, private, link-local and metadata destinations, however they are spelled', async () => {
    const refused = [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://api.localhost/hook',
      'http://2130706433/hook',
      'http://0x7f.1/hook',
      'http://0.0.0.0/hook',
      'http://10.1.2.3/hook',
      'http://172.16.0.9/hook',
      'http://192.168.1.1/hook',
      'http://100.64.0.1/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://[::ffff:a9fe:a9fe]/hook',
      'http://[fd00:ec2::254]/hook',
      'http://[fe80::1]/hook',
      'https://[64:ff9b::a00:1]/hook',
    ];
    for (const url of refused) {
      const res = await t.request('POST', '/api/webhooks/v1/endpoints', { token: t.creds.projectApiKey, body: { url, enabled_events: ['*'] } });
      expect(res.status, url).toBe(400);
      expect(res.body.error, url).toMatchObject({ type: 'invalid_request', code: 'destination_refused', meta: { field: 'url' } });
    }
    // A public address is fine (no DNS needed for a literal).
    const ok = await t.request('POST', '/api/webhooks/v1/endpoints', {
      token: t.creds.projectApiKey,
      body: { url: 'https://93.184.215.14/hook', enabled_events: ['*'] },
    });
    expect(ok.status).toBe(201);
    const patched = await t.request('PATCH', `/api/webhooks/v1/endpoints/${ok.body.data.id}`, {
      token: t.creds.projectApiKey,
      body: { url: 'http://[::ffff:10.0.0.1]/' },
    });
    expect(patched.status).toBe(400);
    expect(patched.body.error.code).toBe('destination_refused');
  });
});
