import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { appDatabaseKinds, useProjectApp, type RequestOptions, type TestApp, type Tenant } from '../support/harness.ts';

const OTLP_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const FIELDS = ['id', 'projectId', 'traceId', 'comment', 'isThumbsUp', 'email', 'userId', 'createdAt', 'updatedAt'];

describe.each(appDatabaseKinds)('annotations (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let other: Tenant;
  const clock = useProjectApp(kind, (app) => ({ t, key, other } = app));

  const call = (method: string, url: string, body?: unknown, opts: RequestOptions = {}) =>
    t.request(method, url, { token: key, body, ...opts });
  const annotate = (traceId: string, body: unknown, opts: RequestOptions = {}) => {
    clock.advance(1000);
    return call('POST', `/api/annotations/trace/${traceId}`, body, opts);
  };
  const eventsOf = async (type: string, id: string) =>
    rows<{ data: { annotation: { id: string; comment?: string } } }>(
      t.db.orm,
      sql`SELECT data FROM events WHERE type = ${type} AND (data->'annotation'->>'id') = ${id}`,
    );
  const expectErrorObject = (body: Record<string, unknown>) => {
    expect(typeof body.error).toBe('string');
    expect(typeof body.message).toBe('string');
  };

  it('annotates a trace that has not arrived yet; the annotation is kept and listed', async () => {
    const res = await annotate(OTLP_TRACE_ID, { comment: 'wrong currency in the answer', isThumbsUp: false, email: 'qa@acme.test' });
    expect(res.status).toBe(200);
    for (const f of FIELDS) expect(res.body.data, f).toHaveProperty(f);
    expect(res.body.data).toMatchObject({
      projectId: t.creds.project.id,
      traceId: OTLP_TRACE_ID,
      comment: 'wrong currency in the answer',
      isThumbsUp: false,
      email: 'qa@acme.test',
      userId: null,
      anchorKind: null,
      anchorId: null,
      anchorPath: null,
      createdAt: new Date(clock.now()).toISOString(),
    });
    expect(res.body.data.id).toMatch(/^ann_/);
    const [{ n }] = await rows<{ n: number }>(t.db.orm, sql`SELECT count(*)::int AS n FROM annotations WHERE trace_id = ${OTLP_TRACE_ID} AND project_id = ${t.creds.project.id}`);
    expect(n).toBe(1);

    const list = await call('GET', `/api/annotations/trace/${OTLP_TRACE_ID}`);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([res.body.data]);
    expect((await eventsOf('annotation.created', res.body.data.id)).length).toBe(1);
  });

  it('accepts other reasonable trace ids and refuses only malformed ones (400 Error object)', async () => {
    for (const id of ['trace_abc-123', 'a1b2c3d4-e5f6-7890-abcd-ef0123456789', 'run:42.step', 'x', 'A'.repeat(128)]) {
      const res = await annotate(id, { comment: 'ok', isThumbsUp: true });
      expect(res.status, id).toBe(200);
      expect(res.body.data.traceId).toBe(id);
    }
    for (const id of ['has%20space', 'semi%3Bcolon', 'slash%2Fin', 'A'.repeat(129), '%C3%A9']) {
      const res = await annotate(id, { comment: 'no', isThumbsUp: true });
      expect(res.status, id).toBe(400);
      expectErrorObject(res.body);
      expect(res.body).toMatchObject({ error: 'validation_error', field: 'params.id' });
      expect((await call('GET', `/api/annotations/trace/${id}`)).status, id).toBe(400);
    }
  });

  it('validates the body with the shared Error object naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ isThumbsUp: true }, 'body.comment'],
      [{ comment: 'x' }, 'body.isThumbsUp'],
      [{ comment: 'x', isThumbsUp: 'yes' }, 'body.isThumbsUp'],
      [{ comment: 7, isThumbsUp: true }, 'body.comment'],
      [{ comment: 'x', isThumbsUp: true, email: 'not-an-email' }, 'body.email'],
      [{ comment: 'x', isThumbsUp: true, anchorKind: 'paragraph', anchorId: 's1' }, 'body.anchorKind'],
      [{ comment: 'x', isThumbsUp: true, anchorId: 's1' }, 'body.anchorKind'],
      [{ comment: 'x', isThumbsUp: true, anchorKind: 'span' }, 'body.anchorId'],
      [{ comment: 'x', isThumbsUp: true, anchorKind: 'field' }, 'body.anchorPath'],
    ];
    for (const [body, field] of cases) {
      const res = await annotate(OTLP_TRACE_ID, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expectErrorObject(res.body);
      expect(res.body.field, JSON.stringify(body)).toBe(field);
      expect(res.body.message).toContain(field);
    }
    const typo = await annotate(OTLP_TRACE_ID, { comment: 'x', isThumbsUp: true, thumbsUp: true });
    expect(typo.status).toBe(400);
    expect(typo.body.error).toBe('validation_error');
    expect(Array.isArray(typo.body.issues)).toBe(true);
  });

  it('filters by anchor: trace returns whole-trace comments only, all or omitted returns every comment', async () => {
    const traceId = 'anchored-trace';
    const whole = await annotate(traceId, { comment: 'overall good', isThumbsUp: true });
    const onSpan = await annotate(traceId, { comment: 'slow retrieval', isThumbsUp: false, anchorKind: 'span', anchorId: '00f067aa0ba902b7' });
    const onField = await annotate(traceId, {
      comment: 'typo in output',
      isThumbsUp: false,
      anchorKind: 'field',
      anchorId: '00f067aa0ba902b7',
      anchorPath: 'output.value',
    });
    const onAttr = await annotate(traceId, { comment: 'wrong model', isThumbsUp: false, anchorKind: 'attribute', anchorPath: 'gen_ai.request.model' });
    const onMessage = await annotate(traceId, { comment: 'rude', isThumbsUp: false, anchorKind: 'message', anchorPath: 'input.value[2]' });
    expect(onField.body.data).toMatchObject({ anchorKind: 'field', anchorId: '00f067aa0ba902b7', anchorPath: 'output.value' });

    const all = [whole, onSpan, onField, onAttr, onMessage].map((r) => r.body.data.id);
    const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((a) => a.id);
    expect(ids(await call('GET', `/api/annotations/trace/${traceId}`))).toEqual(all);
    expect(ids(await call('GET', `/api/annotations/trace/${traceId}?anchor=all`))).toEqual(all);
    expect(ids(await call('GET', `/api/annotations/trace/${traceId}?anchor=trace`))).toEqual([whole.body.data.id]);

    const projectAll = ids(await call('GET', '/api/annotations'));
    for (const id of all) expect(projectAll).toContain(id);
    // Newest first across the project.
    expect(projectAll[0]).toBe(onMessage.body.data.id);
    const projectTrace = ids(await call('GET', '/api/annotations?anchor=trace'));
    expect(projectTrace).toContain(whole.body.data.id);
    for (const id of all.slice(1)) expect(projectTrace).not.toContain(id);

    const bad = await call('GET', '/api/annotations?anchor=span');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'validation_error', field: 'querystring.anchor' });
  });

  it('GET and PATCH one annotation; PATCH needs comment and isThumbsUp', async () => {
    const created = await annotate('patch-trace', { comment: 'first take', isThumbsUp: true, email: 'a@acme.test' });
    const id = created.body.data.id;
    const got = await call('GET', `/api/annotations/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(created.body.data);

    clock.advance(5000);
    const patched = await call('PATCH', `/api/annotations/${id}`, { comment: 'second take', isThumbsUp: false });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ id, comment: 'second take', isThumbsUp: false, email: 'a@acme.test', traceId: 'patch-trace' });
    expect(patched.body.data.updatedAt).toBe(new Date(clock.now()).toISOString());
    expect(patched.body.data.createdAt).toBe(created.body.data.createdAt);
    const events = await eventsOf('annotation.updated', id);
    expect(events.map((e) => e.data.annotation.comment)).toEqual(['second take']);

    const withEmail = await call('PATCH', `/api/annotations/${id}`, { comment: 'third', isThumbsUp: true, email: 'b@acme.test' });
    expect(withEmail.body.data.email).toBe('b@acme.test');

    for (const [body, field] of [
      [{ isThumbsUp: true }, 'body.comment'],
      [{ comment: 'x' }, 'body.isThumbsUp'],
    ] as const) {
      const res = await call('PATCH', `/api/annotations/${id}`, body);
      expect(res.status).toBe(400);
      expect(res.body.field).toBe(field);
    }
    const unknown = await call('PATCH', '/api/annotations/ann_nope', { comment: 'x', isThumbsUp: true });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('annotation_not_found');
    expect((await call('GET', '/api/annotations/ann_nope')).status).toBe(404);
  });

  it('DELETE answers {status, message}; an unknown id is 404 {error: annotation_not_found, message}', async () => {
    const created = await annotate('delete-trace', { comment: 'temp', isThumbsUp: true });
    const id = created.body.data.id;
    const del = await call('DELETE', `/api/annotations/${id}`);
    expect(del.status).toBe(200);
    expect(typeof del.body.status).toBe('string');
    expect(typeof del.body.message).toBe('string');
    expect((await eventsOf('annotation.deleted', id)).length).toBe(1);

    const again = await call('DELETE', `/api/annotations/${id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: 'annotation_not_found', message: expect.any(String) });
    expect((await call('GET', `/api/annotations/${id}`)).status).toBe(404);
    expect((await call('GET', '/api/annotations/trace/delete-trace')).body.data).toEqual([]);
  });

  it("records the personal key's user as the author, else the email sent", async () => {
    const admin = await annotate('author-trace', { comment: 'from admin', isThumbsUp: true, email: 'ignored@acme.test' }, {
      token: t.creds.adminApiKey,
      projectId: t.creds.project.id,
    });
    expect(admin.status).toBe(200);
    expect(admin.body.data).toMatchObject({ userId: t.creds.user.id, email: t.creds.user.email });
    // A PATCH by someone else keeps the author.
    const patched = await call('PATCH', `/api/annotations/${admin.body.data.id}`, { comment: 'edited', isThumbsUp: true, email: 'x@acme.test' });
    expect(patched.body.data).toMatchObject({ userId: t.creds.user.id, email: t.creds.user.email });

    const service = await annotate('author-trace', { comment: 'from a bot', isThumbsUp: false });
    expect(service.body.data).toMatchObject({ userId: null, email: null });
  });

  it('keeps projects apart', async () => {
    const mine = await annotate('shared-trace-id', { comment: 'mine', isThumbsUp: true });
    const foreign = (method: string, url: string, body?: unknown) => t.request(method, url, { token: other.projectToken, body });
    const theirs = await foreign('POST', '/api/annotations/trace/shared-trace-id', { comment: 'theirs', isThumbsUp: false });
    expect(theirs.status).toBe(200);

    expect((await call('GET', '/api/annotations/trace/shared-trace-id')).body.data.map((a: { comment: string }) => a.comment)).toEqual(['mine']);
    expect((await foreign('GET', '/api/annotations/trace/shared-trace-id')).body.data.map((a: { comment: string }) => a.comment)).toEqual(['theirs']);
    expect((await foreign('GET', '/api/annotations')).body.data).toHaveLength(1);
    expect((await foreign('GET', `/api/annotations/${mine.body.data.id}`)).status).toBe(404);
    expect((await foreign('PATCH', `/api/annotations/${mine.body.data.id}`, { comment: 'hijack', isThumbsUp: true })).status).toBe(404);
    expect((await foreign('DELETE', `/api/annotations/${mine.body.data.id}`)).status).toBe(404);
    expect((await call('GET', `/api/annotations/${mine.body.data.id}`)).body.data.comment).toBe('mine');
  });

  it('answers 401 without credentials and 403 for a read-only key writing, in the Error object shape', async () => {
    const res = await t.request('GET', '/api/annotations');
    expect(res.status).toBe(401);
    expectErrorObject(res.body);
    const ro = (
      await t.request('POST', '/api/api-keys', { token: t.creds.adminApiKey, body: { name: 'ro', keyType: 'service', permissionMode: 'readonly' } })
    ).body.token;
    const opts = { token: ro, projectId: t.creds.project.id };
    expect((await t.request('GET', '/api/annotations', opts)).status).toBe(200);
    const denied = await t.request('POST', '/api/annotations/trace/abc', { ...opts, body: { comment: 'x', isThumbsUp: true } });
    expect(denied.status).toBe(403);
    expectErrorObject(denied.body);
  });

  it('documents the Error object in the OpenAPI document', async () => {
    const doc = (await t.request('GET', '/api/openapi.json')).body;
    const post = doc.paths['/api/annotations/trace/{id}'].post;
    const schema = post.responses['400'].content['application/json'].schema;
    expect(Object.keys(schema.properties).sort()).toEqual(['error', 'field', 'issues', 'message']);
    expect(schema.required.sort()).toEqual(['error', 'message']);
    expect(doc.paths['/api/annotations/{id}'].delete.responses).toHaveProperty('404');
  });
});
