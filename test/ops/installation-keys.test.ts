import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/index.ts';
import { parseKeySpecs } from '../../src/platform/crypto.ts';
import { tokenHashVerifier } from '../../src/ops/key-check.ts';
import { copyTemplateDatabase, databaseKinds, request, type DatabaseKind } from '../support/harness.ts';
import { runCliInProcess, useTmpDirs } from '../support/server-process.ts';
import { serveInProcess } from '../support/serve-in-process.ts';

/**
 * The installation's keys against the data, as an operator meets them: a start with keys
 * that do not fit exits 2 with one message naming the variable, and writes nothing; the key
 * files hold what their variables take; a key file of an earlier version is still read; the
 * rotation and replacement commands, with their dry runs.
 */
const tmpDir = useTmpDirs();

/**
 * The CLI in this process (runCliInProcess): the commands and the starts refused before anything
 * is written answer here as they would in a process of their own, without loading one (about 2 s
 * of CPU each). The starts that succeed are `serve`'s start in this process too (serveInProcess),
 * stopped as a SIGTERM stops it: what a start accepts is the subject here, not the process.
 */
async function run(args: string[], env: Record<string, string>, ms = 120_000): Promise<{ code: number | null; out: string }> {
  const { code, out } = await runCliInProcess(args, { LOG_LEVEL: 'warn', PORT: '0', SPYGLASS_OTLP_GRPC_PORT: 'off', ...env }, { timeoutMs: ms });
  // `serve` sets V8's heap growth for a server process; this worker goes on with its default.
  if (args[0] === 'serve') v8.setFlagsFromString('--heap-growing-percent=0');
  return { code, out };
}

async function stop(srv: { stop(): Promise<void> }): Promise<void> {
  await srv.stop();
}

interface Installation {
  env: Record<string, string>;
  dataDir: string;
  adminKey: string;
  projectKey: string;
  projectId: string;
  query<T = Record<string, unknown>>(text: string): Promise<T[]>;
  /** Several queries on one opening of the database. */
  queryAll(texts: string[]): Promise<Record<string, unknown>[][]>;
  drop(): Promise<void>;
}

/** A set-up installation with an agent-cache value, a webhook endpoint, a model provider, an experiment's HTTP target headers and a scenario's HTTP agent headers (all encrypted), stopped. */
async function install(kind: DatabaseKind): Promise<Installation> {
  const dataDir = tmpDir();
  const copy = kind === 'postgres' ? await copyTemplateDatabase() : null;
  const env: Record<string, string> = { SPYGLASS_DATA_DIR: dataDir, SPYGLASS_WEBHOOK_ALLOW_PRIVATE: '1', SPYGLASS_WEBHOOK_POLL_MS: '0', ...(copy ? { DATABASE_URL: copy.url } : {}) };
  const srv = await serveInProcess(env);
  const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
  const project = { authToken: creds.projectApiKey as string };
  expect((await request(srv.baseUrl, 'PUT', '/api/agent-cache/STATE', { ...project, body: { value: 'sealed state', ttl_seconds: 86400 } })).status).toBe(200);
  expect((await request(srv.baseUrl, 'POST', '/api/webhooks/v1/endpoints', { ...project, body: { url: 'http://127.0.0.1:9/hook', enabled_events: ['prompt.*'] } })).status).toBe(201);
  const provider = await request(srv.baseUrl, 'POST', '/api/model-providers', {
    token: creds.adminApiKey,
    projectId: creds.project.id,
    body: { name: 'acme', kind: 'openai_compatible', api_key: 'sk-acme-sealed-1234', base_url: 'http://127.0.0.1:9/v1', models: ['small'] },
  });
  expect(provider.status, provider.text).toBe(201);
  const experiment = await request(srv.baseUrl, 'PUT', '/api/experiments/agent-check/definition', {
    ...project,
    body: { targets: [{ id: 'agent', type: 'http', url: 'http://127.0.0.1:9/agent', headers: { authorization: 'Bearer agent-secret-5678' } }] },
  });
  expect(experiment.status, experiment.text).toBe(200);
  const scenario = await request(srv.baseUrl, 'POST', '/api/simulations/scenarios', {
    ...project,
    body: {
      name: 'Refund',
      persona: 'A customer',
      goal: 'A refund',
      criteria: ['The agent refunds'],
      target: { type: 'http', url: 'http://127.0.0.1:9/agent', headers: { authorization: 'Bearer scenario-secret-4321' } },
    },
  });
  expect(scenario.status, scenario.text).toBe(201);
  expect(scenario.body.target.headers).toEqual({ authorization: '****4321' });
  await stop(srv);
  const queryAll = async (texts: string[]): Promise<Record<string, unknown>[][]> => {
    const results: Record<string, unknown>[][] = [];
    if (copy) {
      const client = new pg.Client({ connectionString: copy.url });
      await client.connect();
      try {
        for (const text of texts) results.push((await client.query(text)).rows);
      } finally {
        await client.end();
      }
      return results;
    }
    const db = await openDatabase({ databaseUrl: null, dataDir });
    try {
      for (const text of texts) results.push((await db.pglite!.exec(text)).at(-1)?.rows as Record<string, unknown>[]);
    } finally {
      await db.close();
    }
    return results;
  };
  const query = async <T,>(text: string) => (await queryAll([text]))[0] as T[];
  return { env, dataDir, adminKey: creds.adminApiKey, projectKey: creds.projectApiKey, projectId: creds.project.id, query, queryAll, drop: async () => void (await copy?.drop()) };
}

const keyFile = (inst: Installation, name: string) => path.join(inst.dataDir, name);
const readKey = (inst: Installation, name: string) => fs.readFileSync(keyFile(inst, name), 'utf8').trim();

/**
 * What a refused start must leave as it was; `more` are queries answered on the same opening of
 * the database (each opening of PGlite costs about 1.5 s of CPU), in `rest`.
 */
async function snapshot(inst: Installation, more: string[] = []) {
  const [record, keys, cache, migrations, ...rest] = await inst.queryAll([
    `SELECT kind, key_id, verifier FROM installation_keys ORDER BY kind, key_id`,
    `SELECT id, revoked_at FROM api_keys ORDER BY id`,
    `SELECT key_id, sealed FROM agent_cache_entries ORDER BY name`,
    `SELECT name FROM schema_migrations ORDER BY name`,
    ...more,
  ]);
  return {
    rest,
    record,
    keys,
    cache,
    migrations,
    files: Object.fromEntries(['token-hash.key', 'encryption.key'].map((f) => [f, fs.existsSync(keyFile(inst, f)) ? readKey(inst, f) : null])),
  };
}

async function cacheValue(srv: { baseUrl: string }, inst: Installation) {
  return request(srv.baseUrl, 'GET', '/api/agent-cache/STATE', { authToken: inst.projectKey });
}

describe.each(databaseKinds)('installation keys (%s)', { timeout: 600_000 }, (kind) => {
  let inst: Installation;
  beforeAll(async () => {
    inst = await install(kind);
  }, 300_000);
  afterAll(async () => inst?.drop());

  // First: an installation as an earlier version left it, upgraded by a start, is what the later tests work on.
  it('made by an earlier version: its base64 token-hash.key is still read and rewritten in the new form; the record is made on that start; a keyring lacking an id stops it before the migration', async () => {
    // As an earlier version left it: no record, no key-id index, the key file base64-encoded.
    await inst.query(`DROP TABLE installation_keys; DROP INDEX agent_cache_entries_key_id; DELETE FROM schema_migrations WHERE name = '0017_installation_keys.sql'`);
    const text = readKey(inst, 'token-hash.key');
    const oldForm = Buffer.from(text).toString('base64');
    fs.writeFileSync(keyFile(inst, 'token-hash.key'), oldForm + '\n', { mode: 0o600 });
    const oldId = parseKeySpecs(readKey(inst, 'encryption.key'))[0].id;

    const wrong = await run(['serve'], { ...inst.env, SPYGLASS_ENCRYPTION_KEY: randomBytes(32).toString('base64') });
    expect(wrong.code, wrong.out).toBe(2);
    expect(wrong.out).toContain(`SPYGLASS_ENCRYPTION_KEY lacks key id ${oldId}`);
    // Nothing was written, not even the migration.
    expect((await inst.query<{ name: string }>(`SELECT name FROM schema_migrations`)).map((r) => r.name)).not.toContain('0017_installation_keys.sql');
    expect(readKey(inst, 'token-hash.key')).toBe(oldForm);

    const srv = await serveInProcess(inst.env);
    expect((await request(srv.baseUrl, 'GET', '/api/projects', { token: inst.adminKey })).status).toBe(200);
    await stop(srv);
    expect(readKey(inst, 'token-hash.key')).toBe(text);
    expect(await inst.query(`SELECT kind, key_id FROM installation_keys ORDER BY kind`)).toEqual([
      { kind: 'encryption', key_id: oldId },
      { kind: 'token-hash', key_id: tokenHashVerifier(text).fingerprint },
    ]);

    // The trap of the issue: the base64 text in the variable. Refused, with the way out.
    const trap = await run(['serve'], { ...inst.env, SPYGLASS_TOKEN_HASH_KEY: oldForm });
    expect(trap.code, trap.out).toBe(2);
    expect(trap.out).toContain('The value is that key base64-encoded');
    expect(trap.out).toContain('set the decoded text instead (what `base64 -d` makes of it)');
  });

  it('a token-hash key that does not match stops the start with exit 2 and writes nothing; the key file’s text in the variable works', async () => {
    const fileText = readKey(inst, 'token-hash.key');
    const expected = tokenHashVerifier(fileText).fingerprint;
    const before = await snapshot(inst);
    expect(before.record).toContainEqual({ kind: 'token-hash', key_id: expected, verifier: tokenHashVerifier(fileText).verifier });

    const wrongKey = 'W'.repeat(40);
    const wrong = await run(['serve'], { ...inst.env, SPYGLASS_TOKEN_HASH_KEY: wrongKey });
    expect(wrong.code, wrong.out).toBe(2);
    expect(wrong.out).toContain(`SPYGLASS_TOKEN_HASH_KEY does not match this database`);
    expect(wrong.out).toContain(`the token-hash key of fingerprint ${expected}`);
    expect(wrong.out).toContain(`SPYGLASS_TOKEN_HASH_KEY is set to a key of fingerprint ${tokenHashVerifier(wrongKey).fingerprint}`);
    expect(wrong.out).toContain('spyglass keys replace-token-hash --dry-run');
    expect(wrong.out).not.toContain(wrongKey);
    expect(wrong.out).not.toContain(fileText);
    expect(await snapshot(inst)).toEqual(before);

    if (kind === 'postgres') {
      // A process joining the database with neither the variable nor a key file: refused, and its data directory stays empty.
      const fresh = tmpDir();
      const joining = await run(['serve'], { ...inst.env, SPYGLASS_DATA_DIR: fresh });
      expect(joining.code, joining.out).toBe(2);
      expect(joining.out).toContain(`SPYGLASS_TOKEN_HASH_KEY is unset and there is no ${path.join(fresh, 'token-hash.key')}`);
      expect(fs.readdirSync(fresh)).toEqual([]);
      expect(await snapshot(inst)).toEqual(before);
    }

    // `SPYGLASS_TOKEN_HASH_KEY="$(cat token-hash.key)"`, the file out of the way (PGlite) or another data directory (PostgreSQL).
    const env: Record<string, string> = { ...inst.env, SPYGLASS_TOKEN_HASH_KEY: fileText, SPYGLASS_ENCRYPTION_KEY: readKey(inst, 'encryption.key') };
    if (kind === 'postgres') env.SPYGLASS_DATA_DIR = tmpDir();
    else fs.renameSync(keyFile(inst, 'token-hash.key'), keyFile(inst, 'token-hash.key.aside'));
    try {
      const srv = await serveInProcess(env);
      expect((await request(srv.baseUrl, 'GET', '/api/projects', { token: inst.adminKey })).status).toBe(200);
      expect((await cacheValue(srv, inst)).body.value).toBe('sealed state');
      await stop(srv);
      if (kind === 'postgres') expect(fs.readdirSync(env.SPYGLASS_DATA_DIR)).toEqual([]);
    } finally {
      if (kind === 'pglite') fs.renameSync(keyFile(inst, 'token-hash.key.aside'), keyFile(inst, 'token-hash.key'));
    }
  });

  it('a keyring that lacks a key id in use stops the start with exit 2; rotate-encryption (dry run first) moves every value to a new key', async () => {
    const oldText = readKey(inst, 'encryption.key');
    const oldId = parseKeySpecs(oldText)[0].id;
    const before = await snapshot(inst);
    expect(before.record).toContainEqual({ kind: 'encryption', key_id: oldId, verifier: null });

    const other = randomBytes(32).toString('base64');
    const wrong = await run(['serve'], { ...inst.env, SPYGLASS_ENCRYPTION_KEY: other });
    expect(wrong.code, wrong.out).toBe(2);
    expect(wrong.out).toContain(`SPYGLASS_ENCRYPTION_KEY lacks key id ${oldId}, which this database's encrypted values`);
    expect(wrong.out).toContain(`have id ${parseKeySpecs(other)[0].id}`);
    expect(wrong.out).toContain('spyglass keys rotate-encryption --dry-run');
    expect(wrong.out).not.toContain(other);

    const dry = await run(['keys', 'rotate-encryption', '--dry-run'], inst.env);
    expect(dry.code, dry.out).toBe(0);
    expect(dry.out).toContain('Dry run: nothing was changed.');
    expect(dry.out).toMatch(/Would make a new encryption key \(id k[0-9a-f]{12}\) and write it first in /);
    expect(dry.out).toContain(`1 agent-cache value, 1 webhook secret, 1 model provider key, 1 experiment target's headers and 1 scenario agent's headers sealed with key ${oldId}`);
    // Neither the refused start nor the dry run wrote anything (what either wrote would show here).
    expect(await snapshot(inst)).toEqual(before);

    const rotated = await run(['keys', 'rotate-encryption'], inst.env);
    expect(rotated.code, rotated.out).toBe(0);
    const newText = readKey(inst, 'encryption.key');
    const newId = parseKeySpecs(newText)[0].id;
    expect(parseKeySpecs(newText)).toHaveLength(1);
    expect(newId).not.toBe(oldId);
    expect(rotated.out).toContain(`Re-encrypted 1 agent-cache value, 1 webhook secret, 1 model provider key, 1 experiment target's headers and 1 scenario agent's headers under key ${newId}.`);
    expect(rotated.out).toContain(`Key ids recorded as in use: ${newId}.`);
    // One opening of the database for the record and what the rotation re-sealed.
    const after = await snapshot(inst, [
      `SELECT secret_key_id FROM webhook_endpoints`,
      `SELECT id, key_id FROM model_providers`,
      `SELECT definition->'targets'->0->'sealed_headers'->'sealed'->>'keyId' AS key_id, definition::text AS doc FROM experiment_definitions`,
      `SELECT id, target->'sealed_headers'->'sealed'->>'keyId' AS key_id, target::text AS doc FROM simulation_scenarios`,
    ]);
    expect(after.record.filter((r) => r.kind === 'encryption')).toEqual([{ kind: 'encryption', key_id: newId, verifier: null }]);
    expect(after.cache.map((r) => r.key_id)).toEqual([newId]);
    const [webhooks, providers, definitions, agents] = after.rest;
    expect(webhooks).toEqual([{ secret_key_id: newId }]);
    const [provider] = providers as { id: string; key_id: string }[];
    expect(provider.key_id).toBe(newId);
    const [definition] = definitions as { key_id: string; doc: string }[];
    expect(definition.key_id).toBe(newId);
    expect(definition.doc).not.toContain('agent-secret-5678');
    const [agent] = agents as { id: string; key_id: string; doc: string }[];
    expect(agent.key_id).toBe(newId);
    expect(agent.doc).not.toContain('scenario-secret-4321');

    const srv = await serveInProcess(inst.env);
    expect((await cacheValue(srv, inst)).body.value).toBe('sealed state');
    // The provider's key opens under the new key: the test call gets as far as the network.
    const providerId = provider.id;
    const tried = await request(srv.baseUrl, 'POST', `/api/model-providers/${providerId}/test`, { token: inst.adminKey, projectId: inst.projectId, body: {} });
    expect(tried.status, tried.text).toBe(200);
    expect(tried.body.error.message).not.toMatch(/decrypt|seal|key id/i);
    // The scenario's headers open under the new key: written back with the masked value GET answered, the stored secret is kept.
    const scenario = await request(srv.baseUrl, 'GET', `/api/simulations/scenarios/${agent.id}`, { authToken: inst.projectKey });
    expect(scenario.body.target.headers).toEqual({ authorization: '****4321' });
    const { id: _id, createdAt: _c, updatedAt: _u, ...body } = scenario.body;
    const kept = await request(srv.baseUrl, 'PUT', `/api/simulations/scenarios/${agent.id}`, { authToken: inst.projectKey, body });
    expect(kept.status, kept.text).toBe(200);
    expect(JSON.stringify(kept.body)).not.toContain('scenario-secret-4321');
    await stop(srv);
    // The old key alone no longer opens the data.
    const old = await run(['serve'], { ...inst.env, SPYGLASS_ENCRYPTION_KEY: oldText });
    expect(old.code, old.out).toBe(2);
    expect(old.out).toContain(`lacks key id ${newId}`);
  });

  it('replace-token-hash: the dry run says what changes; then every API key is revoked and one new admin key works', async () => {
    const before = await snapshot(inst);
    const oldFingerprint = tokenHashVerifier(readKey(inst, 'token-hash.key')).fingerprint;
    const live = before.keys.filter((k) => k.revoked_at === null).length;
    const dry = await run(['keys', 'replace-token-hash', '--dry-run'], inst.env);
    expect(dry.code, dry.out).toBe(0);
    expect(dry.out).toContain('Dry run: nothing was changed.');
    expect(dry.out).toMatch(new RegExp(`Would record the token-hash key of fingerprint th-[0-9a-f]{12} in place of ${oldFingerprint}, a new key written to `));
    expect(dry.out).toContain(`Would revoke every API key (${live} live`);
    expect(await snapshot(inst)).toEqual(before);

    const replaced = await run(['keys', 'replace-token-hash'], inst.env);
    expect(replaced.code, replaced.out).toBe(0);
    const newAdmin = /^(sg-[A-Za-z0-9]{16}_[A-Za-z0-9]{48})$/m.exec(replaced.out)?.[1];
    expect(newAdmin, replaced.out).toBeDefined();
    const newFingerprint = tokenHashVerifier(readKey(inst, 'token-hash.key')).fingerprint;
    expect(newFingerprint).not.toBe(oldFingerprint);
    expect(replaced.out).toContain(`The token-hash key is now the key of fingerprint ${newFingerprint}`);
    expect(replaced.out).toContain(`Revoked ${live} API keys`);
    expect(fs.existsSync(keyFile(inst, 'token-hash.key.new'))).toBe(false);

    const srv = await serveInProcess(inst.env);
    expect((await request(srv.baseUrl, 'GET', '/api/projects', { token: inst.adminKey })).status).toBe(401);
    expect((await request(srv.baseUrl, 'GET', '/api/projects', { token: newAdmin })).status).toBe(200);
    await stop(srv);

    // Asked again with the key now recorded, in the variable: nothing to replace.
    const again = await run(['keys', 'replace-token-hash', '--dry-run'], { ...inst.env, SPYGLASS_TOKEN_HASH_KEY: readKey(inst, 'token-hash.key') });
    expect(again.code, again.out).toBe(1);
    expect(again.out).toContain('nothing to replace');
  });
});
