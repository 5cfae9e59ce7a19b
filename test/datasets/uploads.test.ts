import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { databaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';
import { multipart, upload } from './support.ts';

const QA_CSV = fs.readFileSync(new URL('../fixtures/datasets/qa.csv', import.meta.url));

/** File uploads (spec, Files): formats, conversions, limits, bad input, atomicity. */
describe.each(databaseKinds)('dataset file uploads (%s)', (kind) => {
  let a: ProjectApp;
  useProjectApp(kind, (x) => (a = x));
  const call = (method: string, url: string, body?: unknown) => a.t.request(method, url, { token: a.key, body });
  const entries = async (slug: string) => (await call('GET', `/api/dataset/${slug}`)).body.data.map((r: { entry: unknown }) => r.entry);
  const refused = async (name: string, filename: string, content: string | Buffer, status = 400) => {
    const res = await upload(a.t, a.key, '/api/dataset/upload', { name, file: { filename, content } });
    expect(res.status, res.text).toBe(status);
    // Nothing was stored: the name is still free.
    const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    expect((await call('GET', `/api/dataset/${slug}`)).status).toBe(404);
    return res.body.error as { code: string; message: string; meta: { field: string; line?: number; row?: number; column?: string } };
  };

  it('CSV creates a dataset: header columns typed string, reserved names renamed, RFC 4180 quoting, BOM and blank lines skipped', async () => {
    const res = await upload(a.t, a.key, '/api/dataset/upload', { name: 'QA from CSV', file: { filename: 'QA.CSV', content: QA_CSV } });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['columnTypes', 'createdAt', 'id', 'name', 'recordsCreated', 'slug', 'updatedAt']);
    expect(res.body).toMatchObject({
      name: 'QA from CSV',
      slug: 'qa-from-csv',
      recordsCreated: 3,
      columnTypes: [
        { name: 'question', type: 'string' },
        { name: 'answer', type: 'string' },
        { name: 'id_', type: 'string' },
        { name: 'selected_', type: 'string' },
      ],
    });
    expect(await entries('qa-from-csv')).toEqual([
      { question: 'What is 2+2?', answer: '4', id_: '1', selected_: 'yes' },
      { question: 'Quote "this"', answer: 'line one\nline two', id_: '2', selected_: 'no' },
      { question: 'Comma, inside', answer: '=SUM(A1:A2)', id_: '3', selected_: '' },
    ]);
  });

  it('a further clash of a reserved rename gets _1', async () => {
    const res = await upload(a.t, a.key, '/api/dataset/upload', { name: 'Clash', file: { filename: 'c.csv', content: 'id,id_\n1,2\n' } });
    expect(res.body.columnTypes.map((c: { name: string }) => c.name)).toEqual(['id_1', 'id_']);
  });

  it('JSON array and JSONL create datasets from the first object\'s keys; values stored as parsed; a .jsonl holding one array is read', async () => {
    const json = JSON.stringify([{ q: 'a', n: 1, tags: ['x'] }, { q: 'b' }], null, 2);
    const res = await upload(a.t, a.key, '/api/dataset/upload', { name: 'From JSON', file: { filename: 'data.json', content: json } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.recordsCreated).toBe(2);
    expect(await entries('from-json')).toEqual([
      { q: 'a', n: 1, tags: ['x'] },
      { q: 'b', n: null, tags: null },
    ]);
    const lines = '{"q":"one","meta":{"k":1}}\n\n{"q":"two"}\r\n';
    const jl = await upload(a.t, a.key, '/api/dataset/upload', { name: 'From JSONL', file: { filename: 'data.JSONL', content: lines } });
    expect(jl.status, jl.text).toBe(201);
    expect(await entries('from-jsonl')).toEqual([{ q: 'one', meta: { k: 1 } }, { q: 'two', meta: null }]);
    const arr = await upload(a.t, a.key, '/api/dataset/upload', { name: 'Array In JSONL', file: { filename: 'a.jsonl', content: '[\n{"q":1},\n{"q":2}\n]\n' } });
    expect(arr.status, arr.text).toBe(201);
    expect(await entries('array-in-jsonl')).toEqual([{ q: 1 }, { q: 2 }]);
  });

  it('UTF-16 with a byte-order mark (LE and BE) is decoded; U+0000 is removed from files', async () => {
    const text = 'name,city\nZoë,Zürich\n"NUL\u0000here",東京\n';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const res = await upload(a.t, a.key, '/api/dataset/upload', { name: 'Utf16 LE', file: { filename: 'u.csv', content: le } });
    expect(res.status, res.text).toBe(201);
    expect(await entries('utf16-le')).toEqual([
      { name: 'Zoë', city: 'Zürich' },
      { name: 'NULhere', city: '東京' },
    ]);
    const be = Buffer.from(le.subarray(2)).swap16();
    const res2 = await upload(a.t, a.key, '/api/dataset/upload', { name: 'Utf16 BE', file: { filename: 'u.csv', content: Buffer.concat([Buffer.from([0xfe, 0xff]), be]) } });
    expect(res2.status, res2.text).toBe(201);
    expect((await entries('utf16-be'))[0]).toEqual({ name: 'Zoë', city: 'Zürich' });
    const jsonNul = await upload(a.t, a.key, '/api/dataset/upload', { name: 'Json Nul', file: { filename: 'n.jsonl', content: '{"a":"x\\u0000y","b\\u0000":"\\ud800z"}\n' } });
    expect(jsonNul.status, jsonNul.text).toBe(201);
    expect(await entries('json-nul')).toEqual([{ a: 'xy', b: 'z' }]);
  });

  it('append converts values to the column types; the file\'s columns must be the dataset\'s (columns_mismatch)', async () => {
    const created = await call('POST', '/api/dataset', {
      name: 'Typed',
      columnTypes: [
        { name: 'n', type: 'number' },
        { name: 'b', type: 'boolean' },
        { name: 'd', type: 'date' },
        { name: 'j', type: 'json' },
        { name: 'img', type: 'image' },
        { name: 's', type: 'string' },
      ],
    });
    const csv = 'b,n,d,j,img,s\nYES,3.25,2024-03-05T10:00:00Z,"{""k"":[1]}",http://x/y.png,007\nnan,,2024-01-02,not json,,\nmaybe,abc,someday,[1,,x\n';
    const res = await upload(a.t, a.key, `/api/dataset/${created.body.id}/upload`, { file: { filename: 'more.csv', content: csv } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ datasetId: created.body.id, recordsCreated: 3 });
    expect(await entries('typed')).toEqual([
      { n: 3.25, b: true, d: '2024-03-05', j: { k: [1] }, img: 'http://x/y.png', s: '007' },
      { n: null, b: false, d: '2024-01-02', j: 'not json', img: '', s: '' },
      { n: 'abc', b: 'maybe', d: 'someday', j: '[1', img: '', s: 'x' },
    ]);
    const mismatch = await upload(a.t, a.key, '/api/dataset/typed/upload', { file: { filename: 'm.csv', content: 'n,b,extra\n1,true,x\n' } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error).toMatchObject({ code: 'columns_mismatch', meta: { missing: ['d', 'j', 'img', 's'], unexpected: ['extra'] } });
    expect((await entries('typed')).length).toBe(3);
    const unknown = await upload(a.t, a.key, '/api/dataset/no-such/upload', { file: { filename: 'm.csv', content: 'n\n1\n' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('dataset_not_found');
  });

  it('bad files answer 400 naming the line, row and column, and store nothing', async () => {
    expect(await refused('Ragged', 'r.csv', 'a,b\n1,2\n3\n')).toMatchObject({ code: 'validation_error', meta: { field: 'file', line: 3, row: 2 } });
    expect((await refused('Dup Header', 'd.csv', 'a,b,a\n1,2,3\n')).message).toMatch(/header cells 1 and 3 are both named "a"/);
    expect((await refused('Blank Header', 'b.csv', 'a,,c\n1,2,3\n')).message).toMatch(/header cell 2 is blank/);
    expect((await refused('Open Quote', 'q.csv', 'a,b\n1,"never closed\n2,3\n')).message).toMatch(/line 2: a quoted field opens here and never closes/);
    expect(await refused('Not Object', 'n.jsonl', '{"a":1}\n[1,2]\n')).toMatchObject({ meta: { line: 2, row: 2 } });
    expect((await refused('Not Object 2', 'n.jsonl', '{"a":1}\n"text"\n')).message).toMatch(/line 2 \(row 2\): string where an object is expected/);
    expect((await refused('Bad Json Line', 'n.jsonl', '{"a":1}\n{"a":\n')).message).toMatch(/line 2 \(row 2\): not valid JSON/);
    expect(await refused('Extra Key', 'e.jsonl', '{"a":1}\n{"a":2,"b":3}\n')).toMatchObject({ code: 'invalid_column', meta: { line: 2, row: 2, column: 'b' } });
    expect((await refused('Array Of Text', 'x.json', '[{"a":1},\n"x"]')).message).toMatch(/line 2: an element of the array is not an object/);
    expect((await refused('Cut Json', 'x.json', '[{"a":1},\n{"a":2')).message).toMatch(/the file ends inside the array/);
    expect((await refused('Not Array', 'x.json', '{"a":1}')).message).toMatch(/array of objects/);
    expect((await refused('Latin1', 'l.csv', Buffer.from('name\nZo\xeb\n', 'latin1'))).message).toMatch(/not UTF-8.*line 2/);
    expect((await refused('Utf16 No Bom', 'u.csv', Buffer.from('name,city\nA,B\n', 'utf16le'))).message).toMatch(/UTF-16 without a byte-order mark/);
    expect((await refused('Bad Ext', 'data.xlsx', 'a\n1\n')).message).toMatch(/\.csv, \.json/);
    expect((await refused('Header Only', 'h.csv', 'a,b\n')).message).toMatch(/no data rows/);
    expect((await refused('Empty', 'e.csv', '')).message).toMatch(/empty/);
    const big = `a,b\n1,${'x'.repeat(10 * 1024 * 1024)}\n`;
    expect(await refused('Ten Mb Cell', 'big.csv', big)).toMatchObject({ meta: { line: 2, row: 1, column: 'b' } });
  });

  it('200 columns are accepted', async () => {
    const header = Array.from({ length: 200 }, (_, i) => `c${i}`).join(',');
    const row = Array.from({ length: 200 }, (_, i) => `v${i}`).join(',');
    const res = await upload(a.t, a.key, '/api/dataset/upload', { name: 'Wide', file: { filename: 'w.csv', content: `${header}\n${row}\n` } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.columnTypes).toHaveLength(200);
    expect((await entries('wide'))[0].c199).toBe('v199');
  });

  it('limits: more than 10,000 data rows: 400 naming the row; more than 25 MiB: 413; 10,000 rows: stored', async () => {
    const rows = (n: number) => 'q\n' + Array.from({ length: n }, (_, i) => `row ${i}`).join('\n') + '\n';
    expect(await refused('Too Many', 't.csv', rows(10_001))).toMatchObject({ meta: { row: 10_001 } });
    const ok = await upload(a.t, a.key, '/api/dataset/upload', { name: 'Ten Thousand', file: { filename: 't.csv', content: rows(10_000) } });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.recordsCreated).toBe(10_000);
    expect((await call('GET', '/api/dataset/ten-thousand/records?page=10&limit=1000')).body.data[999].entry).toEqual({ q: 'row 9999' });
    const huge = 'a\n' + `${'y'.repeat(100_000)}\n`.repeat(270);
    const res = await refused('Too Big', 'big.csv', huge, 413);
    expect(res).toMatchObject({ code: 'payload_too_large', meta: { field: 'file' } });
  });

  it('multipart problems: missing parts, a missing filename, a body cut off mid-way, not multipart', async () => {
    const noFile = await upload(a.t, a.key, '/api/dataset/upload', { name: 'No File' });
    expect(noFile.body.error).toMatchObject({ code: 'validation_error', meta: { field: 'file' } });
    const noName = await upload(a.t, a.key, '/api/dataset/upload', { file: { filename: 'a.csv', content: 'a\n1\n' } });
    expect(noName.body.error).toMatchObject({ code: 'validation_error', meta: { field: 'name' } });
    const badName = await upload(a.t, a.key, '/api/dataset/upload', { name: '***', file: { filename: 'a.csv', content: 'a\n1\n' } });
    expect(badName.body.error.meta.field).toBe('name');
    const { body, contentType } = multipart({ name: 'Cut Off', file: { filename: 'a.csv', content: 'a\n1\n2\n' } });
    const cut = await a.t.request('POST', '/api/dataset/upload', { token: a.key, rawBody: body.subarray(0, body.length - 30), headers: { 'content-type': contentType } });
    expect(cut.status).toBe(400);
    expect(cut.body.error.message).toMatch(/cut off/);
    expect((await call('GET', '/api/dataset/cut-off')).status).toBe(404);
    const json = await call('POST', '/api/dataset/upload', { name: 'x' });
    expect(json.status).toBe(400);
    expect(json.body.error.meta.field).toBe('content-type');
    await upload(a.t, a.key, '/api/dataset/upload', { name: 'Taken', file: { filename: 'a.csv', content: 'a\n1\n' } });
    const taken = await upload(a.t, a.key, '/api/dataset/upload', { name: 'taken', file: { filename: 'a.csv', content: 'a\n1\n' } });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('slug_conflict');
  });

  it('a part order with the file before the name works, and the file part\'s name* form is read', async () => {
    const boundary = 'xYz';
    const body = Buffer.from(
      `preamble\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename*=UTF-8''d%C3%A4ta.csv\r\n\r\na,b\n1,2\n\r\n--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nFile First\r\n--${boundary}--\r\nepilogue`,
    );
    const res = await a.t.request('POST', '/api/dataset/upload', { token: a.key, rawBody: body, headers: { 'content-type': `multipart/form-data; boundary="${boundary}"` } });
    expect(res.status, res.text).toBe(201);
    expect(await entries('file-first')).toEqual([{ a: '1', b: '2' }]);
  });
});
