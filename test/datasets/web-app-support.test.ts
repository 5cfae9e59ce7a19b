import { describe, expect, it } from 'vitest';
import { appDatabaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';
import { upload } from './support.ts';

/** What the web app's dataset pages ask of the API beyond the SDKs' routes: search, upload mapping, the remembered trace mapping. */
describe.each(appDatabaseKinds)('datasets: the web app\'s needs (%s)', (kind) => {
  let a: ProjectApp;
  useProjectApp(kind, (x) => (a = x));
  const call = (method: string, url: string, body?: unknown) => a.t.request(method, url, { token: a.key, body });

  it('records ?q= finds records containing the text in any column, any case, wildcards taken literally, with its count', async () => {
    expect((await call('POST', '/api/dataset', { name: 'Search me', columnTypes: [{ name: 'input', type: 'string' }, { name: 'n', type: 'number' }] })).status).toBe(201);
    const entries = Array.from({ length: 30 }, (_, i) => ({ input: i % 10 === 0 ? `Refund %_ please ${i}` : `hello ${i}`, n: i }));
    expect((await call('POST', '/api/dataset/search-me/records', { entries })).status).toBe(201);
    const found = await call('GET', '/api/dataset/search-me/records?q=REFUND&limit=2&page=1');
    expect(found.status, found.text).toBe(200);
    expect(found.body.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(found.body.data.map((r: { entry: { n: number } }) => r.entry.n)).toEqual([0, 10]);
    expect((await call('GET', '/api/dataset/search-me/records?q=%25_').then((r) => r.body.pagination.total))).toBe(3);
    expect((await call('GET', '/api/dataset/search-me/records?q=xyz').then((r) => r.body.pagination.total))).toBe(0);
    // As of a version: version 0 had nothing.
    expect((await call('GET', '/api/dataset/search-me/records?q=hello&version=0').then((r) => r.body.pagination.total))).toBe(0);
  });

  it('an upload with a mapping renames, types, converts and leaves out file columns; a bad mapping names its field and stores nothing', async () => {
    const csv = 'question,score,ok,junk\nWhat?,4.5,yes,x\nWhy?,,no,y\n';
    const mapping = [
      { from: 'question', name: 'input', type: 'string' },
      { from: 'score', name: 'score', type: 'number' },
      { from: 'ok', name: 'passed', type: 'boolean' },
    ];
    const created = await upload(a.t, a.key, '/api/dataset/upload', { name: 'Mapped', mapping, file: { filename: 'm.csv', content: csv } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.columnTypes).toEqual([
      { name: 'input', type: 'string' },
      { name: 'score', type: 'number' },
      { name: 'passed', type: 'boolean' },
    ]);
    const read = await call('GET', '/api/dataset/mapped');
    expect(read.body.data.map((r: { entry: unknown }) => r.entry)).toEqual([
      { input: 'What?', score: 4.5, passed: true },
      { input: 'Why?', score: null, passed: false },
    ]);
    // Append with a mapping: onto the dataset's columns in their types; unmapped ones null.
    const appended = await upload(a.t, a.key, '/api/dataset/mapped/upload', {
      mapping: [{ from: 'q', name: 'input', type: 'string' }, { from: 's', name: 'score', type: 'string' }],
      file: { filename: 'more.jsonl', content: '{"q": "How?", "s": "7"}\n' },
    });
    expect(appended.status, appended.text).toBe(200);
    expect((await call('GET', '/api/dataset/mapped')).body.data[2].entry).toEqual({ input: 'How?', score: 7, passed: null });

    const unknownFrom = await upload(a.t, a.key, '/api/dataset/upload', { name: 'Bad map', mapping: [{ from: 'nope', name: 'x', type: 'string' }], file: { filename: 'm.csv', content: csv } });
    expect(unknownFrom.status).toBe(400);
    expect(unknownFrom.body.error.meta.field).toBe('mapping.0.from');
    const badType = await upload(a.t, a.key, '/api/dataset/upload', { name: 'Bad map', mapping: [{ from: 'question', name: 'x', type: 'text' }], file: { filename: 'm.csv', content: csv } });
    expect(badType.status).toBe(400);
    expect(badType.body.error.meta.field).toBe('mapping.0.type');
    const notColumn = await upload(a.t, a.key, '/api/dataset/mapped/upload', { mapping: [{ from: 'question', name: 'nope', type: 'string' }], file: { filename: 'm.csv', content: csv } });
    expect(notColumn.status).toBe(400);
    expect(notColumn.body.error).toMatchObject({ code: 'invalid_column', meta: { field: 'mapping.0.name' } });
    expect((await call('GET', '/api/dataset/bad-map')).status).toBe(404);
    expect((await call('GET', '/api/dataset/mapped/records')).body.pagination.total).toBe(3);
  });

  it('GET trace-mapping answers the remembered mapping, null before any', async () => {
    expect((await call('POST', '/api/dataset', { name: 'From traces', columnTypes: [{ name: 'input', type: 'string' }] })).status).toBe(201);
    const none = await call('GET', '/api/dataset/from-traces/trace-mapping');
    expect(none.status, none.text).toBe(200);
    expect(none.body).toEqual({ mapping: null });
    expect((await call('GET', '/api/dataset/nope/trace-mapping')).status).toBe(404);
  });
});
