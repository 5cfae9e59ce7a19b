import { describe, expect, it } from 'vitest';
import { databaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DATASET_KEYS = ['columnTypes', 'createdAt', 'id', 'name', 'platformUrl', 'slug', 'updatedAt'];
const RECORD_KEYS = ['createdAt', 'datasetId', 'entry', 'id', 'projectId', 'updatedAt'];
const COLUMNS = [
  { name: 'input', type: 'string' },
  { name: 'expected_output', type: 'string' },
  { name: 'score', type: 'number' },
];

/** The spec's datasets and records routes through HTTP: shapes, statuses, codes, isolation. */
describe.each(databaseKinds)('datasets and records API (%s)', (kind) => {
  let a: ProjectApp;
  const clock = useProjectApp(kind, (x) => (a = x));
  const call = (method: string, url: string, body?: unknown) => a.t.request(method, url, { token: a.key, body });
  const create = async (name: string, columnTypes: unknown = COLUMNS) => {
    const res = await call('POST', '/api/dataset', { name, columnTypes });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; slug: string };
  };

  it('create answers 201 with exactly the Dataset fields; the slug follows rule 8; ids contain _', async () => {
    const res = await call('POST', '/api/dataset', { name: 'My_Dataset v2!', columnTypes: COLUMNS, unknownField: 'ignored' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(DATASET_KEYS);
    expect(res.body).toMatchObject({ name: 'My_Dataset v2!', slug: 'my-dataset-v2', columnTypes: COLUMNS });
    expect(res.body.id).toMatch(/^dataset_/);
    expect(res.body.createdAt).toMatch(ISO);
    expect(res.body.platformUrl).toBe(`${a.t.baseUrl}/p/${a.t.creds.project.id}/datasets/${res.body.id}`);
    const accents = await call('POST', '/api/dataset', { name: '  Café: Qué? Tal & más__x  ' });
    expect(accents.body.slug).toBe('cafe-que-tal-mas-x');
    expect(accents.body.columnTypes).toEqual([]);
  });

  it('create refuses what the spec refuses, naming the field', async () => {
    const cases: [unknown, string, string][] = [
      [{}, 'validation_error', 'body.name'],
      [{ name: '' }, 'validation_error', 'body.name'],
      [{ name: 'x'.repeat(256) }, 'validation_error', 'body.name'],
      [{ name: '!!!' }, 'validation_error', 'body.name'],
      [{ name: 'bad type', columnTypes: [{ name: 'a', type: 'text' }] }, 'validation_error', 'body.columnTypes.0.type'],
      [{ name: 'blank col', columnTypes: [{ name: '', type: 'string' }] }, 'validation_error', 'body.columnTypes.0.name'],
      [{ name: 'dup col', columnTypes: [{ name: 'a', type: 'string' }, { name: 'a', type: 'number' }] }, 'validation_error', 'body.columnTypes.1.name'],
      [{ name: 'nul\u0000name' }, 'invalid_character', 'body.name'],
      [{ name: 'surrogate \ud800 name' }, 'invalid_character', 'body.name'],
    ];
    for (const [body, code, field] of cases) {
      const res = await call('POST', '/api/dataset', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, JSON.stringify(body)).toMatchObject({ type: 'invalid_request', code, meta: { field } });
      expect(typeof res.body.error.message).toBe('string');
    }
  });

  it('create: 409 slug_conflict when a live dataset has the slug, whatever its name', async () => {
    await create('Conflict Me');
    const res = await call('POST', '/api/dataset', { name: 'conflict_me' });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ type: 'conflict', code: 'slug_conflict' });
  });

  it('list: live datasets newest first with recordCount and {page, limit, total, totalPages}; bad page or limit: 400', async () => {
    clock.advance(1000);
    const first = await create('List One');
    clock.advance(1000);
    const second = await create('List Two');
    await call('POST', `/api/dataset/${second.slug}/records`, { entries: [{ input: 'a' }, { input: 'b' }] });
    const res = await call('GET', '/api/dataset?limit=2');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'pagination']);
    expect(res.body.data.map((d: { id: string }) => d.id)).toEqual([second.id, first.id]);
    expect(Object.keys(res.body.data[0]).sort()).toEqual([...DATASET_KEYS, 'recordCount'].sort());
    expect(res.body.data[0].recordCount).toBe(2);
    expect(res.body.data[1].recordCount).toBe(0);
    const total = res.body.pagination.total;
    expect(res.body.pagination).toEqual({ page: 1, limit: 2, total, totalPages: Math.ceil(total / 2) });
    for (const q of ['page=0', 'limit=0', 'limit=1001', 'page=abc', 'limit=1.5']) {
      const bad = await call('GET', `/api/dataset?${q}`);
      expect(bad.status, q).toBe(400);
      expect(bad.body.error.code).toBe('validation_error');
      expect(bad.body.error.meta.field).toMatch(/^querystring\.(page|limit)$/);
    }
  });

  it('get by slug or id: the Dataset plus every record, oldest first, with exactly the Record fields', async () => {
    const d = await create('Get Me');
    const entries = [
      { input: 'first', expected_output: 'one', score: 1 },
      { input: 'second', expected_output: { nested: [1, 2] }, score: null },
      { input: 'third' },
    ];
    const added = await call('POST', `/api/dataset/${d.slug}/records`, { entries });
    expect(added.status).toBe(201);
    expect(Object.keys(added.body)).toEqual(['data']);
    expect(added.body.data).toHaveLength(3);
    for (const r of added.body.data) {
      expect(Object.keys(r).sort()).toEqual(RECORD_KEYS);
      expect(r.id).toMatch(/_/);
      expect(r).toMatchObject({ datasetId: d.id, projectId: a.t.creds.project.id });
    }
    expect(added.body.data[2].entry).toEqual({ input: 'third', expected_output: null, score: null });
    for (const key of [d.slug, d.id]) {
      const res = await call('GET', `/api/dataset/${key}`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual([...DATASET_KEYS, 'data'].sort());
      expect(res.body.data.map((r: { entry: unknown }) => r.entry)).toEqual([
        { input: 'first', expected_output: 'one', score: 1 },
        { input: 'second', expected_output: { nested: [1, 2] }, score: null },
        { input: 'third', expected_output: null, score: null },
      ]);
      // Keys come back in column order.
      expect(Object.keys(res.body.data[2].entry)).toEqual(['input', 'expected_output', 'score']);
    }
    expect((await call('GET', '/api/dataset/no-such-dataset')).body.error).toMatchObject({ type: 'not_found', code: 'dataset_not_found' });
    expect((await call('GET', '/api/dataset/dataset_nope')).status).toBe(404);
  });

  it('records listing: pages oldest first; a batch keeps its order', async () => {
    const d = await create('Paged');
    const entries = Array.from({ length: 7 }, (_, i) => ({ input: `row ${i}` }));
    await call('POST', `/api/dataset/${d.slug}/records`, { entries: entries.slice(0, 4) });
    clock.advance(1000);
    await call('POST', `/api/dataset/${d.id}/records`, { entries: entries.slice(4) });
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await call('GET', `/api/dataset/${d.slug}/records?page=${page}&limit=3`);
      expect(res.status).toBe(200);
      expect(res.body.pagination).toEqual({ page, limit: 3, total: 7, totalPages: 3 });
      seen.push(...res.body.data.map((r: { entry: { input: string } }) => r.entry.input));
    }
    expect(seen).toEqual(entries.map((e) => e.input));
    const beyond = await call('GET', `/api/dataset/${d.slug}/records?page=9&limit=3`);
    expect(beyond.body).toEqual({ data: [], pagination: { page: 9, limit: 3, total: 7, totalPages: 3 } });
    const defaults = await call('GET', `/api/dataset/${d.slug}/records`);
    expect(defaults.body.pagination).toEqual({ page: 1, limit: 50, total: 7, totalPages: 1 });
  });

  it('batch add refuses an unknown column (naming the key and the columns), a non-object, 0 or 1,001 entries; nothing is added', async () => {
    const d = await create('Strict');
    const bad = await call('POST', `/api/dataset/${d.slug}/records`, { entries: [{ input: 'ok' }, { input: 'x', answer: 'not a column' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_column', meta: { field: 'body.entries.1.answer' } });
    expect(bad.body.error.message).toContain('"answer"');
    expect(bad.body.error.message).toContain('"input", "expected_output", "score"');
    for (const body of [{ entries: [] }, { entries: Array.from({ length: 1001 }, () => ({ input: 'x' })) }, { entries: ['text'] }, { entries: [[1]] }, { entries: [null] }, {}]) {
      const res = await call('POST', `/api/dataset/${d.slug}/records`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.meta.field).toMatch(/^body\.entries/);
    }
    expect((await call('GET', `/api/dataset/${d.slug}/records`)).body.pagination.total).toBe(0);
    const none = await create('No Columns', []);
    const res = await call('POST', `/api/dataset/${none.slug}/records`, { entries: [{}] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_column');
    const nul = await call('POST', `/api/dataset/${d.slug}/records`, { entries: [{ input: 'a\u0000b' }] });
    expect(nul.body.error).toMatchObject({ code: 'invalid_character', meta: { field: 'body.entries.0.input' } });
  });

  it('1,000 entries in one batch are accepted', async () => {
    const d = await create('Thousand');
    const res = await call('POST', `/api/dataset/${d.slug}/records`, { entries: Array.from({ length: 1000 }, (_, i) => ({ input: `q${i}`, score: i })) });
    expect(res.status).toBe(201);
    expect(res.body.data).toHaveLength(1000);
    expect(res.body.data[999].entry).toEqual({ input: 'q999', expected_output: null, score: 999 });
  });

  it('upsert: 200 replacing the entry exactly as sent (keeping its place), 201 creating under the id', async () => {
    const d = await create('Upsert');
    const added = await call('POST', `/api/dataset/${d.slug}/records`, { entries: [{ input: 'a' }, { input: 'b' }] });
    const firstId = added.body.data[0].id;
    clock.advance(5000);
    const updated = await call('PATCH', `/api/dataset/${d.slug}/records/${firstId}`, { entry: { input: 'A', extra: true } });
    expect(updated.status).toBe(200);
    expect(Object.keys(updated.body).sort()).toEqual(RECORD_KEYS);
    expect(updated.body).toMatchObject({ id: firstId, entry: { input: 'A', extra: true }, createdAt: added.body.data[0].createdAt });
    expect(updated.body.updatedAt).not.toBe(updated.body.createdAt);
    const created = await call('PATCH', `/api/dataset/${d.id}/records/my-own-id`, { entry: { anything: 1 } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: 'my-own-id', entry: { anything: 1 } });
    const all = await call('GET', `/api/dataset/${d.slug}`);
    expect(all.body.data.map((r: { id: string }) => r.id)).toEqual([firstId, added.body.data[1].id, 'my-own-id']);
    expect((await call('PATCH', `/api/dataset/${d.slug}/records/${'x'.repeat(256)}`, { entry: {} })).status).toBe(400);
    expect((await call('PATCH', `/api/dataset/${d.slug}/records/r1`, { entry: 'text' })).body.error.meta.field).toBe('body.entry');
    expect((await call('PATCH', `/api/dataset/${d.slug}/records/r1`, {})).status).toBe(400);
  });

  it('batch delete with a JSON body: counts what was removed, skips unknown ids, 404 record_not_found when none matched', async () => {
    const d = await create('Deletes');
    const added = await call('POST', `/api/dataset/${d.slug}/records`, { entries: [{ input: 'a' }, { input: 'b' }, { input: 'c' }] });
    const ids = added.body.data.map((r: { id: string }) => r.id);
    const res = await call('DELETE', `/api/dataset/${d.slug}/records`, { recordIds: [ids[0], ids[2], 'unknown'] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deletedCount: 2 });
    const again = await call('DELETE', `/api/dataset/${d.slug}/records`, { recordIds: [ids[0], 'unknown'] });
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('record_not_found');
    expect((await call('GET', `/api/dataset/${d.slug}`)).body.data.map((r: { id: string }) => r.id)).toEqual([ids[1]]);
    for (const body of [{ recordIds: [] }, { recordIds: Array.from({ length: 1001 }, (_, i) => `r${i}`) }, { recordIds: [''] }, {}]) {
      const bad = await call('DELETE', `/api/dataset/${d.slug}/records`, body);
      expect(bad.status).toBe(400);
      expect(bad.body.error.meta.field).toMatch(/^body\.recordIds/);
    }
  });

  it('POST /api/dataset/{slug}/entries adds as batch add does and answers {success: true}', async () => {
    const d = await create('Entries Route');
    const res = await call('POST', `/api/dataset/${d.slug}/entries`, { entries: [{ input: 'x', score: 2 }] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await call('POST', `/api/dataset/${d.slug}/entries`, { entries: [{ nope: 1 }] })).body.error.code).toBe('invalid_column');
    expect((await call('GET', `/api/dataset/${d.slug}`)).body.data[0].entry).toEqual({ input: 'x', expected_output: null, score: 2 });
  });

  it('PATCH: rename derives a new slug (the old one stops resolving; 409 if taken); an empty body changes nothing', async () => {
    const d = await create('Old Name');
    await create('Taken Name');
    const same = await call('PATCH', `/api/dataset/${d.slug}`, {});
    expect(same.status).toBe(200);
    expect(Object.keys(same.body).sort()).toEqual(DATASET_KEYS);
    expect(same.body).toMatchObject({ name: 'Old Name', slug: 'old-name' });
    const taken = await call('PATCH', `/api/dataset/${d.slug}`, { name: 'taken  name' });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('slug_conflict');
    const renamed = await call('PATCH', `/api/dataset/${d.slug}`, { name: 'New Name' });
    expect(renamed.body).toMatchObject({ id: d.id, name: 'New Name', slug: 'new-name' });
    expect((await call('GET', '/api/dataset/old-name')).status).toBe(404);
    expect((await call('GET', '/api/dataset/new-name')).status).toBe(200);
    expect((await call('PATCH', `/api/dataset/${d.id}`, { name: '???' })).status).toBe(400);
    expect((await call('PATCH', '/api/dataset/nope', { name: 'x' })).status).toBe(404);
  });

  it('PATCH columnTypes rewrites every record: kept by name (converted when the type changed), removed dropped, added null', async () => {
    const d = await create('Retype', [
      { name: 'q', type: 'string' },
      { name: 'n', type: 'string' },
      { name: 'flag', type: 'string' },
      { name: 'gone', type: 'string' },
    ]);
    await call('POST', `/api/dataset/${d.slug}/records`, {
      entries: [
        { q: 'a', n: '3.5', flag: 'Yes', gone: 'x' },
        { q: 'b', n: '', flag: 'off', gone: 'y' },
        { q: 'c', n: 'many', flag: 'maybe', gone: 'z' },
      ],
    });
    const columnTypes = [
      { name: 'flag', type: 'boolean' },
      { name: 'q', type: 'string' },
      { name: 'n', type: 'number' },
      { name: 'new', type: 'json' },
    ];
    const res = await call('PATCH', `/api/dataset/${d.slug}`, { columnTypes });
    expect(res.status).toBe(200);
    expect(res.body.columnTypes).toEqual(columnTypes);
    const all = await call('GET', `/api/dataset/${d.slug}`);
    expect(all.body.data.map((r: { entry: unknown }) => r.entry)).toEqual([
      { flag: true, q: 'a', n: 3.5, new: null },
      { flag: false, q: 'b', n: null, new: null },
      { flag: 'maybe', q: 'c', n: 'many', new: null },
    ]);
    expect(Object.keys(all.body.data[0].entry)).toEqual(['flag', 'q', 'n', 'new']);
  });

  it('DELETE archives: gone from listings and lookups (records too), the slug is free again', async () => {
    const d = await create('Archive Me');
    await call('POST', `/api/dataset/${d.slug}/records`, { entries: [{ input: 'a' }] });
    const res = await call('DELETE', `/api/dataset/${d.slug}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: d.id, archived: true });
    for (const url of [`/api/dataset/${d.slug}`, `/api/dataset/${d.id}`, `/api/dataset/${d.id}/records`, `/api/dataset/${d.id}/versions`, `/api/dataset/${d.id}/export`]) {
      expect((await call('GET', url)).status, url).toBe(404);
    }
    expect((await call('DELETE', `/api/dataset/${d.id}`)).status).toBe(404);
    expect((await call('GET', '/api/dataset?limit=1000')).body.data.map((x: { id: string }) => x.id)).not.toContain(d.id);
    const again = await create('Archive Me');
    expect(again.slug).toBe(d.slug);
    expect(again.id).not.toBe(d.id);
  });

  it('a NUL or lone surrogate in a path or query parameter: 400 invalid_character', async () => {
    for (const url of ['/api/dataset/bad%00slug', '/api/dataset/x/records?page=%00', '/api/dataset/bad%ED%A0%80slug']) {
      const res = await call('GET', url);
      expect(res.status, url).toBe(400);
      expect(['invalid_character', 'invalid_url']).toContain(res.body.error.code);
    }
    expect((await call('GET', '/api/dataset/bad%00slug')).body.error).toMatchObject({ code: 'invalid_character', meta: { field: 'params.slugOrId' } });
  });

  it("another project's dataset is answered as one that does not exist, on every route", async () => {
    const mine = await create('Private Data');
    await call('POST', `/api/dataset/${mine.slug}/records`, { entries: [{ input: 'secret' }] });
    const theirs = (method: string, url: string, body?: unknown) => a.t.request(method, url, { token: a.other.projectToken, body });
    expect((await theirs('GET', '/api/dataset')).body.data).toEqual([]);
    for (const key of [mine.slug, mine.id]) {
      const calls: [string, string, unknown?][] = [
        ['GET', `/api/dataset/${key}`],
        ['GET', `/api/dataset/${key}/records`],
        ['GET', `/api/dataset/${key}/versions`],
        ['GET', `/api/dataset/${key}/export`],
        ['PATCH', `/api/dataset/${key}`, { name: 'stolen' }],
        ['POST', `/api/dataset/${key}/records`, { entries: [{ input: 'x' }] }],
        ['POST', `/api/dataset/${key}/entries`, { entries: [{ input: 'x' }] }],
        ['PATCH', `/api/dataset/${key}/records/r1`, { entry: { input: 'x' } }],
        ['DELETE', `/api/dataset/${key}/records`, { recordIds: ['r1'] }],
        ['DELETE', `/api/dataset/${key}`],
      ];
      for (const [method, url, body] of calls) {
        const res = await theirs(method, url, body);
        expect(res.status, `${method} ${url}`).toBe(404);
        expect(res.body.error.code).toBe('dataset_not_found');
      }
    }
    // The other project may use the same name: slugs are per project.
    expect((await theirs('POST', '/api/dataset', { name: 'Private Data' })).status).toBe(201);
    const still = await call('GET', `/api/dataset/${mine.slug}`);
    expect(still.body).toMatchObject({ name: 'Private Data' });
    expect(still.body.data.map((r: { entry: unknown }) => r.entry)).toEqual([{ input: 'secret', expected_output: null, score: null }]);
  });

  it('every credential form of the spec works (Bearer + X-Auth-Token together, Basic); none: 401', async () => {
    const both = await a.t.request('GET', '/api/dataset', { token: a.key, authToken: a.key });
    expect(both.status).toBe(200);
    expect((await a.t.request('GET', '/api/dataset', { basic: [a.t.creds.project.id, a.key] })).status).toBe(200);
    const none = await a.t.request('GET', '/api/dataset');
    expect(none.status).toBe(401);
    expect(none.body.error).toMatchObject({ type: 'authentication_error' });
  });
});
