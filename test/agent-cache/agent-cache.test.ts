import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { everyTableAsText as everyTable } from '../support/every-table.ts';
import { buildAgentCache } from '../../src/modules/agent-cache/index.ts';
import { getEntry, putEntry } from '../../src/modules/agent-cache/entries.ts';
import { Keyring } from '../../src/platform/crypto.ts';
import {
  databaseKinds,
  startApp,
  useProjectApp,
  type RequestOptions,
  type TestApp,
  type Tenant,
} from '../support/harness.ts';

const MiB = 1024 * 1024;

function expectNested(body: { error: { type: string; code: string; message: string } }) {
  expect(typeof body.error.type).toBe('string');
  expect(typeof body.error.code).toBe('string');
  expect(typeof body.error.message).toBe('string');
}

/** Every row of every table of the public schema, as text. */
async function everyTableAsText(t: TestApp): Promise<string> {
  const { tables, text } = await everyTable(t.db.orm);
  expect(tables).toContain('agent_cache_entries');
  return text;
}

describe.each(databaseKinds)('agent cache (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let other: Tenant;
  const clock = useProjectApp(kind, (app) => ({ t, key, other } = app));

  const call = (method: string, name: string, body?: unknown, opts: RequestOptions = {}) =>
    t.request(method, `/api/agent-cache/${name}`, { token: key, body, ...opts });

  it('PUT stores, GET reads, a second PUT replaces (last write wins)', async () => {
    const put = await call('PUT', 'SESSION_TOKEN', { value: 'first' });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ name: 'SESSION_TOKEN', ttl_seconds: 900 });
    expect((await call('GET', 'SESSION_TOKEN')).body).toEqual({ name: 'SESSION_TOKEN', value: 'first' });

    const again = await call('PUT', 'SESSION_TOKEN', { value: 'second', ttl_seconds: 60 });
    expect(again.body).toEqual({ name: 'SESSION_TOKEN', ttl_seconds: 60 });
    const got = await call('GET', 'SESSION_TOKEN');
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ name: 'SESSION_TOKEN', value: 'second' });

    // Concurrent writers: one of them wins whole, never a mix.
    const values = ['alpha', 'beta', 'gamma', 'delta'];
    await Promise.all(values.map((value) => call('PUT', 'RACED', { value })));
    expect(values).toContain((await call('GET', 'RACED')).body.value);
  });

  it('keeps unicode and large values intact', async () => {
    const value = '✓ ünïcödé 🚀 ' + 'x'.repeat(10_000) + '\n"quoted"\u0000';
    expect((await call('PUT', 'UNICODE_1', { value })).status).toBe(200);
    expect((await call('GET', 'UNICODE_1')).body.value).toBe(value);
  });

  it('validates the name: 1..64, an uppercase letter then uppercase letters, digits or _', async () => {
    const ok = 'A' + 'B_9'.repeat(21);
    expect(ok).toHaveLength(64);
    for (const name of ['A', 'X1', 'MY_KEY_2', ok]) {
      expect((await call('PUT', name, { value: 'v' })).status, name).toBe(200);
    }
    for (const name of ['lower', 'Mixed', '1ABC', '_ABC', 'A-B', 'A.B', ok + 'C', 'A%20B']) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await call(method, name, method === 'PUT' ? { value: 'v' } : undefined);
        expect(res.status, `${method} ${name}`).toBe(400);
        expectNested(res.body);
        expect(res.body.error.meta.field).toBe('params.name');
      }
    }
  });

  it('validates the body: value required and non-empty, ttl_seconds an integer 5..86400', async () => {
    const cases: [unknown, string][] = [
      [{}, 'body.value'],
      [{ value: '' }, 'body.value'],
      [{ value: 42 }, 'body.value'],
      [{ value: 'v', ttl_seconds: 4 }, 'body.ttl_seconds'],
      [{ value: 'v', ttl_seconds: 86401 }, 'body.ttl_seconds'],
      [{ value: 'v', ttl_seconds: 1.5 }, 'body.ttl_seconds'],
      [{ value: 'v', ttl_seconds: '900' }, 'body.ttl_seconds'],
      [{ value: 'v', ttl: 900 }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await call('PUT', 'VALIDATED', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expectNested(res.body);
      expect(res.body.error.type).toBe('invalid_request');
      expect(res.body.error.message, JSON.stringify(body)).toContain(field);
    }
    for (const ttl of [5, 86400]) expect((await call('PUT', 'VALIDATED', { value: 'v', ttl_seconds: ttl })).status).toBe(200);
  });

  it('GET of a name never stored: 404 in the nested shape', async () => {
    const res = await call('GET', 'NEVER_STORED');
    expect(res.status).toBe(404);
    expectNested(res.body);
    expect(res.body.error).toMatchObject({ type: 'not_found', code: 'entry_not_found' });
  });

  it('DELETE removes; a name not held answers the same', async () => {
    await call('PUT', 'TO_DELETE', { value: 'bye' });
    const del = await call('DELETE', 'TO_DELETE');
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ name: 'TO_DELETE', deleted: true });
    expect((await call('GET', 'TO_DELETE')).status).toBe(404);
    const again = await call('DELETE', 'TO_DELETE');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(del.body);
    expect((await call('DELETE', 'NEVER_HELD')).body).toEqual({ name: 'NEVER_HELD', deleted: true });
  });

  it('an entry is gone the moment its lifetime passes; the sweep deletes expired rows', async () => {
    await call('PUT', 'SHORT_LIVED', { value: 'tick', ttl_seconds: 5 });
    await call('PUT', 'LONG_LIVED', { value: 'tock', ttl_seconds: 3600 });
    clock.advance(4999);
    expect((await call('GET', 'SHORT_LIVED')).body.value).toBe('tick');
    clock.advance(1);
    const expired = await call('GET', 'SHORT_LIVED');
    expect(expired.status).toBe(404);
    expect(expired.body.error.code).toBe('entry_not_found');

    const count = async (name: string) =>
      (
        await rows<{ n: number }>(
          t.db.orm,
          sql`SELECT count(*)::int AS n FROM agent_cache_entries WHERE project_id = ${t.creds.project.id} AND name = ${name}`,
        )
      )[0].n;
    // Reads never depend on the sweep: the row is still there until it runs.
    expect(await count('SHORT_LIVED')).toBe(1);
    expect(await t.app.services.agentCache.sweepExpired()).toBeGreaterThanOrEqual(1);
    expect(await count('SHORT_LIVED')).toBe(0);
    expect(await count('LONG_LIVED')).toBe(1);
    expect((await call('GET', 'LONG_LIVED')).body.value).toBe('tock');

    // A PUT after expiry starts a fresh lifetime (default 900 s).
    await call('PUT', 'SHORT_LIVED', { value: 'again' });
    clock.advance(899_000);
    expect((await call('GET', 'SHORT_LIVED')).body.value).toBe('again');
    clock.advance(1000);
    expect((await call('GET', 'SHORT_LIVED')).status).toBe(404);
    // Re-writing a live entry restarts its lifetime too.
    await call('PUT', 'RENEWED', { value: 'r1', ttl_seconds: 10 });
    clock.advance(8000);
    await call('PUT', 'RENEWED', { value: 'r2', ttl_seconds: 10 });
    clock.advance(8000);
    expect((await call('GET', 'RENEWED')).body.value).toBe('r2');
  });

  it('refuses values over 1 MiB with 413; exactly 1 MiB is accepted', async () => {
    const exact = 'a'.repeat(MiB);
    expect((await call('PUT', 'BIG', { value: exact })).status).toBe(200);
    expect((await call('GET', 'BIG')).body.value).toHaveLength(MiB);

    const over = await call('PUT', 'BIG', { value: 'a'.repeat(MiB + 1) });
    expect(over.status).toBe(413);
    expectNested(over.body);
    expect(over.body.error).toMatchObject({ type: 'payload_too_large', code: 'value_too_large' });
    expect(over.body.error.message).toContain('1 MiB');
    // Bytes count, not characters: 524,289 two-byte characters are 1 MiB + 2 bytes.
    const multibyte = await call('PUT', 'BIG', { value: 'é'.repeat(MiB / 2 + 1) });
    expect(multibyte.status).toBe(413);
    // Escaping inflates the JSON body past 1 MiB, yet the value itself fits.
    const escaped = await call('PUT', 'ESCAPED', { value: '"'.repeat(MiB - 10) });
    expect(escaped.status).toBe(200);
    // Bodies far beyond any allowed value are cut off by the parser, still 413.
    const huge = await call('PUT', 'BIG', { value: 'a'.repeat(9 * MiB) });
    expect(huge.status).toBe(413);
    expectNested(huge.body);
    // The refused writes left the stored value alone.
    expect((await call('GET', 'BIG')).body.value).toBe(exact);
  });

  it('needs agentCache:manage: 401 without credentials, 403 for read-only or view-only keys', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await t.request(method, '/api/agent-cache/SESSION_TOKEN', { body: method === 'PUT' ? { value: 'x' } : undefined });
      expect(res.status).toBe(401);
      expectNested(res.body);
    }
    const mint = async (body: object) => (await t.request('POST', '/api/api-keys', { token: t.creds.adminApiKey, body })).body.token as string;
    const readonly = await mint({ name: 'ro', keyType: 'service', permissionMode: 'readonly' });
    const viewOnly = await mint({ name: 'view', keyType: 'service', permissionMode: 'restricted', permissions: ['agentCache:view'] });
    const manager = await mint({ name: 'cache', keyType: 'service', permissionMode: 'restricted', permissions: ['agentCache:manage'] });
    const projectId = t.creds.project.id;
    for (const token of [readonly, viewOnly]) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await call(method, 'SESSION_TOKEN', method === 'PUT' ? { value: 'x' } : undefined, { token, projectId });
        expect(res.status, method).toBe(403);
        expect(res.body.error).toMatchObject({ type: 'permission_error' });
      }
    }
    expect((await call('PUT', 'BY_SERVICE_KEY', { value: 's' }, { token: manager, projectId })).status).toBe(200);
    expect((await call('GET', 'BY_SERVICE_KEY', undefined, { token: manager, projectId })).body.value).toBe('s');
    // The legacy project key reaches the cache with every credential form.
    expect((await t.request('GET', '/api/agent-cache/BY_SERVICE_KEY', { authToken: key })).body.value).toBe('s');
    expect((await t.request('GET', '/api/agent-cache/BY_SERVICE_KEY', { basic: [projectId, key] })).body.value).toBe('s');
  });

  it('keeps projects apart', async () => {
    await call('PUT', 'ISOLATED', { value: 'mine' });
    const foreign = (method: string, body?: unknown) => call(method, 'ISOLATED', body, { token: other.projectToken });
    expect((await foreign('GET')).status).toBe(404);
    expect((await foreign('PUT', { value: 'theirs' })).status).toBe(200);
    expect((await foreign('GET')).body.value).toBe('theirs');
    expect((await call('GET', 'ISOLATED')).body.value).toBe('mine');
    await foreign('DELETE');
    expect((await call('GET', 'ISOLATED')).body.value).toBe('mine');
  });

  it('stores only ciphertext bound to project and name: a copied row fails to decrypt (500)', async () => {
    const secret = `sk-live-${randomBytes(12).toString('hex')}`;
    await call('PUT', 'API_SECRET', { value: secret });
    const [row] = await rows<{ key_id: string; sealed: string }>(
      t.db.orm,
      sql`SELECT key_id, sealed FROM agent_cache_entries WHERE project_id = ${t.creds.project.id} AND name = 'API_SECRET'`,
    );
    expect(row.sealed.startsWith('v1.')).toBe(true);
    expect(row.sealed).not.toContain(secret);
    expect(row.sealed).not.toContain(Buffer.from(secret).toString('base64'));
    expect(typeof row.key_id).toBe('string');

    // The same ciphertext under another name of the same project...
    await t.db.orm.execute(sql`INSERT INTO agent_cache_entries (project_id, name, key_id, sealed, expires_at)
      SELECT project_id, 'STOLEN', key_id, sealed, expires_at FROM agent_cache_entries
      WHERE project_id = ${t.creds.project.id} AND name = 'API_SECRET'`);
    const renamed = await call('GET', 'STOLEN');
    expect(renamed.status).toBe(500);
    expectNested(renamed.body);
    expect(renamed.body.error).toMatchObject({ type: 'internal_error', code: 'decryption_failed' });
    expect(renamed.text).not.toContain(secret);

    // ...or under the same name in another project.
    await t.db.orm.execute(sql`INSERT INTO agent_cache_entries (project_id, name, key_id, sealed, expires_at)
      SELECT ${other.projectId}, name, key_id, sealed, expires_at FROM agent_cache_entries
      WHERE project_id = ${t.creds.project.id} AND name = 'API_SECRET'`);
    const moved = await call('GET', 'API_SECRET', undefined, { token: other.projectToken });
    expect(moved.status).toBe(500);
    expect(moved.body.error.code).toBe('decryption_failed');

    // The original still opens.
    expect((await call('GET', 'API_SECRET')).body.value).toBe(secret);
  });

  it('a unique value written through the API appears in no table of the database', async () => {
    const secret = `needle-${randomBytes(16).toString('hex')}`;
    expect((await call('PUT', 'NEEDLE', { value: secret })).status).toBe(200);
    expect((await call('GET', 'NEEDLE')).body.value).toBe(secret);
    // Control: the same dump does show a value stored in clear (an annotation comment).
    const control = `control-${randomBytes(8).toString('hex')}`;
    await t.request('POST', '/api/annotations/trace/needle-trace', { token: key, body: { comment: control, isThumbsUp: true } });
    const everything = await everyTableAsText(t);
    expect(everything).toContain(control);
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain(Buffer.from(secret).toString('base64'));
    expect(everything).not.toContain(Buffer.from(secret).toString('hex'));
  });

  it('old keys still decrypt after a rotation; a value sealed with a key no longer configured answers 500', async () => {
    const oldKey = { id: 'old', material: randomBytes(32) };
    const newKey = { id: 'new', material: randomBytes(32) };
    const before = buildAgentCache({ db: t.db, clock, keyring: new Keyring([oldKey]) }).ctx;
    await putEntry(before, t.creds.project.id, { name: 'ROTATED', value: 'sealed with old', ttlSeconds: 600 });

    const rotated = buildAgentCache({ db: t.db, clock, keyring: new Keyring([newKey, oldKey]) }).ctx;
    expect(await getEntry(rotated, t.creds.project.id, 'ROTATED')).toEqual({ name: 'ROTATED', value: 'sealed with old' });
    await putEntry(rotated, t.creds.project.id, { name: 'ROTATED', value: 'sealed with new', ttlSeconds: 600 });
    const [row] = await rows<{ key_id: string }>(
      t.db.orm,
      sql`SELECT key_id FROM agent_cache_entries WHERE project_id = ${t.creds.project.id} AND name = 'ROTATED'`,
    );
    expect(row.key_id).toBe('new');

    const oldOnly = buildAgentCache({ db: t.db, clock, keyring: new Keyring([oldKey]) }).ctx;
    await expect(getEntry(oldOnly, t.creds.project.id, 'ROTATED')).rejects.toMatchObject({ status: 500, code: 'decryption_failed' });
  });
});

/**
 * An app of its own with its keys from the environment and a logger at trace level: the keys'
 * source and what the log holds are checked on one app (each app of its own opens a database,
 * about 2 s of CPU).
 */
describe('agent cache keys from the environment, and the log', () => {
  let t: TestApp;
  let log = '';
  const sink = new Writable({
    write(chunk, _enc, done) {
      log += chunk.toString();
      done();
    },
  });
  beforeAll(async () => {
    const k1 = randomBytes(32).toString('base64');
    const k2 = randomBytes(32).toString('base64');
    t = await startApp('pglite', { env: { SPYGLASS_ENCRYPTION_KEY: `primary:${k1},legacy:${k2}` }, logger: pino({ level: 'trace' }, sink) });
  });
  afterAll(() => t?.close());

  it('uses SPYGLASS_ENCRYPTION_KEY (first key encrypts) and creates no key file', async () => {
    expect((await t.request('PUT', '/api/agent-cache/FROM_ENV', { token: t.creds.projectApiKey, body: { value: 'v' } })).status).toBe(200);
    const [row] = await rows<{ key_id: string }>(t.db.orm, sql`SELECT key_id FROM agent_cache_entries WHERE name = 'FROM_ENV'`);
    expect(row.key_id).toBe('primary');
    expect(fs.existsSync(path.join(t.dataDir, 'encryption.key'))).toBe(false);
  });

  it('logs requests, failures and decryption errors at trace level without the value', async () => {
    const secret = `log-needle-${randomBytes(16).toString('hex')}`;
    const token = t.creds.projectApiKey;
    expect((await t.request('PUT', '/api/agent-cache/LOGGED', { token, body: { value: secret } })).status).toBe(200);
    expect((await t.request('GET', '/api/agent-cache/LOGGED', { token })).body.value).toBe(secret);
    // Failures that carry the value in the request: bad ttl, unknown field, too large, a row that fails to decrypt.
    await t.request('PUT', '/api/agent-cache/LOGGED', { token, body: { value: secret, ttl_seconds: 1 } });
    await t.request('PUT', '/api/agent-cache/LOGGED', { token, body: { value: secret, extra: secret } });
    await t.request('PUT', '/api/agent-cache/LOGGED', { token, body: { value: secret.repeat(40_000) } });
    await t.db.orm.execute(sql`UPDATE agent_cache_entries SET name = 'MOVED' WHERE name = 'LOGGED'`);
    expect((await t.request('GET', '/api/agent-cache/MOVED', { token })).status).toBe(500);
    expect(log).toContain('request completed');
    expect(log).toContain('decryption_failed');
    expect(log).not.toContain(secret);
  });
});

describe('agent cache key file', () => {
  it('otherwise keeps a key file with mode 0600 in the data directory', async () => {
    const t = await startApp('pglite');
    try {
      const file = path.join(t.dataDir, 'encryption.key');
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect((await t.request('PUT', '/api/agent-cache/FROM_FILE', { token: t.creds.projectApiKey, body: { value: 'v' } })).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('no plaintext cache value reaches the disk (PGlite with a data directory)', () => {
  it('a unique value written through the API is in no file under the data directory', async () => {
    const t = await startApp('pglite', { persistent: true });
    const secret = `disk-needle-${randomBytes(16).toString('hex')}`;
    const control = `disk-control-${randomBytes(16).toString('hex')}`;
    const grep = (needles: string[]) => {
      const found = new Set<string>();
      const walk = (dir: string) => {
        for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
          const file = path.join(dir, entry.name);
          if (entry.isDirectory()) walk(file);
          else if (entry.isFile()) {
            const content = fs.readFileSync(file);
            for (const n of needles) if (content.includes(Buffer.from(n))) found.add(n);
          }
        }
      };
      walk(t.dataDir);
      return found;
    };
    let closed = false;
    const encodings = (s: string) => [s, Buffer.from(s).toString('base64'), Buffer.from(s).toString('base64url'), Buffer.from(s).toString('hex')];
    try {
      expect(fs.existsSync(path.join(t.dataDir, 'pgdata'))).toBe(true);
      const put = await t.request('PUT', '/api/agent-cache/DISK_NEEDLE', { token: t.creds.projectApiKey, body: { value: secret, ttl_seconds: 600 } });
      expect(put.status).toBe(200);
      expect((await t.request('GET', '/api/agent-cache/DISK_NEEDLE', { token: t.creds.projectApiKey })).body.value).toBe(secret);
      // Control: a value stored in clear (an annotation comment) is found by the same search.
      await t.request('POST', '/api/annotations/trace/disk-trace', { token: t.creds.projectApiKey, body: { comment: control, isThumbsUp: true } });
      await t.db.orm.execute(sql`CHECKPOINT`);

      const whileOpen = grep([...encodings(secret), control]);
      expect(whileOpen.has(control)).toBe(true);
      for (const e of encodings(secret)) expect(whileOpen.has(e)).toBe(false);
      expect(await everyTableAsText(t)).not.toContain(secret);

      // And after a clean shutdown, with everything flushed.
      await t.app.http.close();
      await t.db.close();
      closed = true;
      const afterClose = grep([...encodings(secret), control]);
      expect(afterClose.has(control)).toBe(true);
      for (const e of encodings(secret)) expect(afterClose.has(e)).toBe(false);
    } finally {
      if (!closed) {
        await t.app.http.close();
        await t.db.close();
      }
      fs.rmSync(t.dataDir, { recursive: true, force: true });
    }
  });
});
