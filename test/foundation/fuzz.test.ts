import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { createTenant, databaseKinds, startApp, type TestApp, type Tenant } from '../support/harness.ts';
import {
  HOSTILE_PATH_SEGMENTS,
  encodeSegment,
  HOSTILE_STRINGS,
  Rng,
  hostileBodies,
  mutate,
  operationsOf,
  rawRequest,
  valueFor,
  type Operation,
  type RawBody,
} from '../support/fuzz.ts';
import { agentTrace } from '../support/sample-traces.ts';
import { publicTables } from '../support/every-table.ts';

/**
 * Every operation of the OpenAPI document, generated from the document (a new route is
 * fuzzed by itself), with hostile path and query parameters and bodies, under each kind of
 * credential. Nothing may answer 5xx, the server must keep answering, and no record the
 * requests did not name (another organization's, or this one's seeded records) may change.
 * SPYGLASS_FUZZ_SEED reproduces a run; `BENCH_ONLY=soak npm run bench` sends ~20x more
 * requests (SPYGLASS_SOAK, which only that bench sets). The hostile bodies (10 MB, a gzip bomb,
 * 200,000-deep nesting) are sent on every run.
 */
const LONG = process.env.SPYGLASS_SOAK === '1';
const SEED = Number(process.env.SPYGLASS_FUZZ_SEED ?? 20261124);
/** Random requests per operation and credential kind. */
const RANDOM_PER_OPERATION = LONG ? 40 : 1;
/** Time an operation may spend on random requests after its hostile ones; the rest are skipped. */
const RANDOM_BUDGET_MS = LONG ? 60_000 : 600;
/** Hostile path segments and bodies per parameter and operation (short run: a seeded sample; NUL always). */
const SAMPLE = LONG ? Infinity : 5;

type CredentialKind = 'none' | 'project bearer' | 'project basic' | 'project x-auth-token' | 'admin bearer' | 'session' | 'hostile';
const CREDENTIAL_KINDS: CredentialKind[] = ['none', 'project bearer', 'project basic', 'project x-auth-token', 'admin bearer', 'session', 'hostile'];

/** Tables whose rows the requests may legitimately touch (sessions, throttles, queues, logs of work). */
const VOLATILE_TABLES = new Set(['user_sessions', 'auth_throttle', 'jobs', 'events', 'webhook_outbox_cursor', 'webhook_dispatches', 'webhook_delivery_attempts', '__drizzle_migrations', 'schema_migrations']);

describe.each(databaseKinds)('fuzz of every route in the OpenAPI document (%s)', (kind) => {
  let t: TestApp;
  let other: Tenant;
  let ops: Operation[];
  let session: { cookie: string; csrf: string };

  async function signIn() {
    const res = await fetch(`${t.baseUrl}/api/auth/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: t.creds.user.email, password: t.creds.user.password }),
    });
    expect(res.status).toBe(200);
    const cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    session = { cookie, csrf: ((await res.json()) as { csrfToken: string }).csrfToken };
  }

  function headersFor(cred: CredentialKind, rng: Rng): Record<string, string> {
    const project = t.creds.projectApiKey;
    const projectId = t.creds.project.id;
    switch (cred) {
      case 'none':
        return {};
      case 'project bearer':
        return { authorization: `Bearer ${project}` };
      case 'project basic':
        return { authorization: `Basic ${Buffer.from(`${projectId}:${project}`).toString('base64')}` };
      case 'project x-auth-token':
        return { 'x-auth-token': project };
      case 'admin bearer':
        return { authorization: `Bearer ${t.creds.adminApiKey}`, 'x-project-id': projectId };
      case 'session':
        return { cookie: session.cookie, 'x-csrf-token': session.csrf, 'x-project-id': projectId };
      case 'hostile':
        return rng.pick<Record<string, string>>([
          { authorization: `Basic ${Buffer.from(`\u0000:${project}`).toString('base64')}` },
          { authorization: `Basic ${Buffer.from(`${projectId}\u0000:x`).toString('base64')}` },
          { authorization: `Basic ${Buffer.from('a:b:c').toString('base64')}` },
          { authorization: 'Basic %%%' },
          { authorization: `Bearer ${'sg-'.padEnd(6_000, 'A')}` },
          { authorization: `Bearer ${t.creds.adminApiKey}`, 'x-project-id': rng.pick(['%00', 'x'.repeat(5_000), other.projectId, "' OR 1=1"]) },
          { authorization: `Bearer ${other.projectToken}`, 'x-project-id': projectId },
          { 'x-auth-token': `${project}x` },
          { cookie: 'spyglass_session=%00; spyglass_session=x' },
          { cookie: `spyglass_session=${'A'.repeat(4_000)}` },
          { cookie: session.cookie, 'x-project-id': projectId }, // a mutation without CSRF
          { authorization: 'Digest abc' },
        ]);
    }
  }

  /** The credential that reaches the route's handler, so the hostile input is not stopped at the door. */
  function strongCredential(op: Operation): CredentialKind {
    const route = t.app.routeTable.find((r) => r.method === op.method && r.url === op.path.replace(/\{(\w+)\}/g, ':$1'));
    return route?.auth.scope === 'session' ? 'session' : 'admin bearer';
  }

  function pathWith(op: Operation, segment: (name: string) => string): string {
    return op.path.replace(/\{(\w+)\}/g, (_, name) => segment(name));
  }

  function queryFor(op: Operation, rng: Rng, hostile: boolean): string {
    if (!op.queryParams.length && !hostile) return '';
    const parts: string[] = [];
    for (const q of op.queryParams) {
      if (!hostile && rng.chance(0.5)) continue;
      const value = hostile ? rng.pick(HOSTILE_PATH_SEGMENTS) : encodeSegment(String(valueFor(q.schema, rng)));
      parts.push(`${q.name}=${value}`);
      if (hostile && rng.chance(0.3)) parts.push(`${q.name}=${value}`); // repeated: arrives as an array
    }
    if (hostile && rng.chance(0.5)) parts.push(rng.pick(['%00=1', 'x=%ZZ', '__proto__[a]=1', `q=${'x'.repeat(5_000)}`, 'a[b][c]=1']));
    return parts.length ? `?${parts.join('&')}` : '';
  }

  function jsonBody(value: unknown, label: string): RawBody {
    return { label, contentType: 'application/json', bytes: Buffer.from(JSON.stringify(value) ?? 'null') };
  }

  /** A plausible value for a path parameter: a random id-like string, most of the time not a real one. */
  function plausibleSegment(rng: Rng): string {
    return encodeSegment(rng.chance(0.7) ? `fz_${rng.int(0, 1e9).toString(36)}` : rng.pick(HOSTILE_STRINGS).slice(0, 300) || 'x');
  }

  /** Every row of every table but the volatile ones, by table (a key's last use is bookkeeping, not data). */
  async function snapshot(): Promise<Map<string, Set<string>>> {
    // Partitioned tables by their parents: retention or the outbox may drop a day's partition meanwhile.
    const tables = await publicTables(t.db.orm);
    const out = new Map<string, Set<string>>();
    for (const name of tables) {
      if (VOLATILE_TABLES.has(name)) continue;
      const found = await rows<{ r: string }>(t.db.orm, sql.raw(`SELECT (to_jsonb(x) - 'last_used_at')::text AS r FROM "${name}" x`));
      out.set(name, new Set(found.map((f) => f.r)));
    }
    return out;
  }

  beforeAll(async () => {
    t = await startApp(kind, {
      env: { SPYGLASS_SIGNIN_MAX_PER_ADDRESS: '100000', SPYGLASS_SIGNIN_MAX_PER_ACCOUNT: '100000', SPYGLASS_WEBHOOK_ALLOW_PRIVATE: '1', SPYGLASS_WEBHOOK_POLL_MS: '0' },
    });
    other = await createTenant(t);
    const doc = JSON.parse((await rawRequest(t.baseUrl, 'GET', '/api/openapi.json', {})).text);
    ops = operationsOf(doc);
    await signIn();
    // Records of both organizations that the fuzz never names: they must come through unchanged.
    for (const [token, projectId] of [
      [t.creds.projectApiKey, t.creds.project.id],
      [other.projectToken, other.projectId],
    ]) {
      const auth = { token };
      expect((await t.request('POST', '/api/collector', { authToken: token, body: agentTrace('fuzz-seeded-trace', Date.now()) })).status).toBe(200);
      expect((await t.request('POST', '/api/prompts', { ...auth, body: { handle: 'fuzz-seeded', prompt: 'hello {{name}}' } })).status).toBe(200);
      expect((await t.request('POST', '/api/annotations/trace/fuzz-seeded-trace', { ...auth, body: { comment: 'kept', isThumbsUp: true, email: 'a@example.com' } })).status).toBe(200);
      expect((await t.request('PUT', '/api/agent-cache/FUZZ_SEEDED', { ...auth, body: { value: 'kept', ttl_seconds: 3600 } })).status).toBe(200);
      expect((await t.request('POST', '/api/monitors', { ...auth, body: { name: 'kept', evaluator: 'llm/competitor_blocklist', settings: { competitors: ['acme'] } } })).status).toBeLessThan(300);
      expect((await t.request('POST', '/api/webhooks/v1/endpoints', { ...auth, body: { url: 'http://127.0.0.1:9/hook', enabled_events: ['trace.created'] } })).status).toBeLessThan(300);
      expect((await t.request('POST', '/api/trace/fuzz-seeded-trace/share', auth)).status).toBe(200);
      void projectId;
    }
  }, 120_000);
  afterAll(() => t?.close());

  it(`answers no 5xx, keeps answering and changes no unrelated record (seed ${SEED}${LONG ? ', long' : ''})`, async () => {
    expect(ops.length).toBeGreaterThan(60);
    const before = await snapshot();
    const rng = new Rng(SEED);
    const failures: string[] = [];
    let sent = 0;
    const timing = new Map<string, number>();

    const spent = new Map<Operation, number>();
    const busy = new Set<Operation>();
    const send = async (op: Operation, cred: CredentialKind, path: string, body: RawBody | undefined, what: string, roll: number, optional = false) => {
      // Random requests stop when their operation has had its share of time (password hashing is slow by design).
      if (optional && (busy.has(op) || (spent.get(op) ?? 0) > RANDOM_BUDGET_MS)) return;
      if (optional) busy.add(op);
      const headers = headersFor(cred, new Rng(roll));
      const started = performance.now();
      const res = await rawRequest(t.baseUrl, op.method, path, headers, body);
      sent++;
      const closedOnLargeBody = res.status === -1 && (body?.bytes.length ?? 0) > 1024 * 1024;
      // /readyz answers 503 by design when the database is slow to answer its probe (2 s), as
      // it can be while the whole suite runs beside this test: that answer, and only that one.
      const notReady = op.path === '/readyz' && res.status === 503 && /"status":"not_ready"/.test(res.text);
      if ((res.status >= 500 && !notReady) || (res.status === -1 && !closedOnLargeBody)) {
        const sentBody = body && body.bytes.length < 2000 ? ` body ${body.bytes.toString('utf8')}` : '';
        failures.push(`${res.status} ${op.method} ${path.slice(0, 120)} [${cred}] ${what} ${body ? `(${body.label})` : ''}${sentBody}: ${res.text.slice(0, 200)}`);
      }
      const key = `${op.method} ${op.path} ${body?.label ?? what}`;
      timing.set(key, (timing.get(key) ?? 0) + performance.now() - started);
      spent.set(op, (spent.get(op) ?? 0) + performance.now() - started);
      if (optional) busy.delete(op);
      // The fuzz may sign the session out (POST /api/auth/signout) or revoke it: sign in again.
      if (cred === 'session' && (op.path === '/api/auth/signout' || res.status === 401)) await signIn();
    };

    const bodies = hostileBodies();
    const roll = () => Math.floor(rng.next() * 2 ** 32);
    /** All of `items` in a long run; in a short one `SAMPLE` of them, seeded, with `always` among them. */
    const sample = <T>(items: readonly T[], r: Rng, always?: T): T[] => {
      if (items.length <= SAMPLE) return [...items];
      const picked = new Set<T>(always !== undefined ? [always] : []);
      while (picked.size < SAMPLE) picked.add(r.pick(items));
      return [...picked];
    };
    const jobs: (() => Promise<void>)[] = [];
    for (const op of ops) {
      const strong = strongCredential(op);
      const hasBody = ['POST', 'PUT', 'PATCH'].includes(op.method);
      // Hostile path parameters, in each parameter position.
      for (const name of op.pathParams) {
        for (const hostile of sample(HOSTILE_PATH_SEGMENTS, rng, '%00')) {
          const path = pathWith(op, (n) => (n === name ? hostile : plausibleSegment(rng)));
          const body = hasBody ? jsonBody(valueFor(op.body ?? undefined, rng), 'schema-shaped') : undefined;
          jobs.push(() => send(op, strong, path, body, `path ${name}`, roll()));
        }
      }
      // Hostile query strings.
      for (let i = 0; i < (LONG ? 20 : 1); i++) {
        const path = pathWith(op, () => plausibleSegment(rng)) + queryFor(op, rng, true);
        jobs.push(() => send(op, strong, path, undefined, 'hostile query', roll()));
      }
      if (hasBody) {
        // Hostile raw bodies.
        for (const body of sample(bodies, rng)) jobs.push(() => send(op, strong, pathWith(op, () => plausibleSegment(rng)), body, 'raw body', roll()));
        // Schema-shaped bodies, and the same with one thing wrong.
        for (let i = 0; i < (LONG ? 60 : 4); i++) {
          const value = valueFor(op.body ?? undefined, rng);
          const body = jsonBody(rng.chance(0.5) ? mutate(value, rng) : value, 'random JSON');
          jobs.push(() => send(op, strong, pathWith(op, () => plausibleSegment(rng)) + queryFor(op, rng, false), body, 'random JSON', roll(), true));
        }
      }
      // Each kind of credential, with random input.
      for (const cred of CREDENTIAL_KINDS) {
        for (let i = 0; i < RANDOM_PER_OPERATION; i++) {
          const path = pathWith(op, () => (rng.chance(0.3) ? rng.pick(HOSTILE_PATH_SEGMENTS) : plausibleSegment(rng))) + queryFor(op, rng, rng.chance(0.3));
          const body = hasBody ? (rng.chance(0.2) ? rng.pick(bodies) : jsonBody(valueFor(op.body ?? undefined, rng), 'random JSON')) : undefined;
          jobs.push(() => send(op, cred, path, body, 'random', roll(), true));
        }
      }
    }

    // Four in flight: the order is fixed by the seed, the interleaving is not (a failure names its request).
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < jobs.length) await jobs[next++]();
      }),
    );

    console.log([...timing].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${Math.round(v)} ms ${k}`).join('\n'));
    expect(failures, `${failures.length} of ${sent} requests failed (seed ${SEED}):\n${failures.slice(0, 40).join('\n')}`).toEqual([]);
    expect((await rawRequest(t.baseUrl, 'GET', '/healthz', {})).status).toBe(200);

    const after = await snapshot();
    const changed: string[] = [];
    for (const [table, rowsBefore] of before) {
      const rowsAfter = after.get(table) ?? new Set();
      for (const row of rowsBefore) {
        if (rowsAfter.has(row)) continue;
        // The only record the requests may change without naming it: this organization's settings (PATCH /api/organization).
        if (table === 'organizations' && JSON.parse(row).id === t.creds.organization.id) continue;
        changed.push(`${table}: ${row.slice(0, 300)}`);
      }
    }
    expect(changed, `records changed or deleted by the fuzz:\n${changed.join('\n')}`).toEqual([]);
    console.log(`fuzz (${kind}): ${sent} requests over ${ops.length} operations`);
  }, LONG ? 1_800_000 : 120_000);
});
