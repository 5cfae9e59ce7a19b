import { describe, expect, it } from 'vitest';
import { databaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';
import { upload } from './support.ts';

/** Versions (every change to the records makes one; any version can be read) and export. */
describe.each(databaseKinds)('dataset versions and export (%s)', (kind) => {
  let a: ProjectApp;
  const clock = useProjectApp(kind, (x) => (a = x));
  const call = (method: string, url: string, body?: unknown) => a.t.request(method, url, { token: a.key, body });
  const inputs = async (url: string) => (await call('GET', url)).body.data.map((r: { entry: { q: unknown } }) => r.entry.q);

  it('every change to the records makes a version; each version reads back as it was', async () => {
    const d = (await call('POST', '/api/dataset', { name: 'Versioned', columnTypes: [{ name: 'q', type: 'string' }] })).body;
    const empty = await call('GET', `/api/dataset/${d.slug}/versions`);
    expect(empty.body).toEqual({ currentVersion: 0, data: [], pagination: { page: 1, limit: 50, total: 0, totalPages: 0 } });
    clock.advance(1000);
    const v1 = await call('POST', `/api/dataset/${d.slug}/records`, { entries: [{ q: 'a' }, { q: 'b' }, { q: 'c' }] });
    const [ra, rb, rc] = v1.body.data.map((r: { id: string }) => r.id);
    clock.advance(1000);
    await call('PATCH', `/api/dataset/${d.slug}/records/${rb}`, { entry: { q: 'B' } }); // v2
    clock.advance(1000);
    await call('DELETE', `/api/dataset/${d.slug}/records`, { recordIds: [ra] }); // v3
    clock.advance(1000);
    await upload(a.t, a.key, `/api/dataset/${d.slug}/upload`, { file: { filename: 'more.csv', content: 'q\nd\ne\n' } }); // v4
    clock.advance(1000);
    await call('PATCH', `/api/dataset/${d.slug}`, { columnTypes: [{ name: 'q', type: 'string' }, { name: 'extra', type: 'number' }] }); // v5
    // A refused change makes no version.
    expect((await call('DELETE', `/api/dataset/${d.slug}/records`, { recordIds: ['nope'] })).status).toBe(404);
    expect((await call('POST', `/api/dataset/${d.slug}/records`, { entries: [{ bad: 1 }] })).status).toBe(400);
    // A rename changes no record: no version.
    await call('PATCH', `/api/dataset/${d.slug}`, { name: 'Versioned Renamed' });

    const versions = await call('GET', '/api/dataset/versioned-renamed/versions');
    expect(versions.status).toBe(200);
    expect(versions.body.currentVersion).toBe(5);
    expect(versions.body.pagination).toEqual({ page: 1, limit: 50, total: 5, totalPages: 1 });
    expect(versions.body.data.map((v: Record<string, unknown>) => [v.version, v.change, v.added, v.updated, v.removed, v.recordCount])).toEqual([
      [5, 'columns_changed', 0, 4, 0, 4],
      [4, 'file_uploaded', 2, 0, 0, 4],
      [3, 'records_deleted', 0, 0, 1, 2],
      [2, 'record_updated', 0, 1, 0, 3],
      [1, 'records_added', 3, 0, 0, 3],
    ]);
    expect(versions.body.data[4].createdAt).toBe('2026-11-22T10:00:01.000Z');

    const base = '/api/dataset/versioned-renamed';
    expect(await inputs(`${base}?version=0`)).toEqual([]);
    expect(await inputs(`${base}?version=1`)).toEqual(['a', 'b', 'c']);
    expect(await inputs(`${base}?version=2`)).toEqual(['a', 'B', 'c']);
    expect(await inputs(`${base}?version=3`)).toEqual(['B', 'c']);
    expect(await inputs(`${base}?version=4`)).toEqual(['B', 'c', 'd', 'e']);
    expect(await inputs(base)).toEqual(['B', 'c', 'd', 'e']);
    const now = await call('GET', base);
    expect(now.body.data[0]).toMatchObject({ id: rb, entry: { q: 'B', extra: null } });
    const v4 = await call('GET', `${base}?version=4`);
    expect(v4.body.data[0].entry).toEqual({ q: 'B' });
    expect(v4.body.data.map((r: { id: string }) => r.id).slice(0, 2)).toEqual([rb, rc]);
    const page = await call('GET', `${base}/records?version=1&page=2&limit=2`);
    expect(page.body.data.map((r: { entry: { q: string } }) => r.entry.q)).toEqual(['c']);
    expect(page.body.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
    const future = await call('GET', `${base}/records?version=6`);
    expect(future.status).toBe(400);
    expect(future.body.error.meta.field).toBe('query.version');
    expect((await call('GET', `${base}?version=-1`)).status).toBe(400);
  });

  it('export streams CSV (formula-like text escaped with a leading quote) and JSON lines, now or as of a version', async () => {
    const d = (
      await call('POST', '/api/dataset', {
        name: 'Export Me',
        columnTypes: [
          { name: 'text', type: 'string' },
          { name: 'n', type: 'number' },
          { name: 'obj', type: 'json' },
        ],
      })
    ).body;
    const entries = [
      { text: '=HYPERLINK("http://evil","x")', n: -5, obj: { a: 1 } },
      { text: '+1', n: 2.5, obj: null },
      { text: '-2', n: null, obj: [1, 'two'] },
      { text: '@SUM(A1)', n: 0, obj: 'plain' },
      { text: 'tab\tstart? no: "quoted", and, commas', n: 1, obj: true },
      { text: '\ttab first', n: 1, obj: false },
      { text: 'line\nbreak', n: 1, obj: null },
    ];
    await call('POST', `/api/dataset/${d.slug}/records`, { entries });
    const csv = await call('GET', `/api/dataset/${d.slug}/export?format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="export-me.csv"');
    expect(csv.text).toBe(
      [
        'text,n,obj',
        `"'=HYPERLINK(""http://evil"",""x"")",-5,"{""a"":1}"`,
        `'+1,2.5,`,
        `'-2,,"[1,""two""]"`,
        `'@SUM(A1),0,plain`,
        `"tab\tstart? no: ""quoted"", and, commas",1,true`,
        `'\ttab first,1,false`,
        `"line\nbreak",1,`,
        '',
      ].join('\r\n'),
    );
    const jsonl = await call('GET', `/api/dataset/${d.id}/export?format=jsonl`);
    expect(jsonl.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(jsonl.text.trimEnd().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual(entries);
    // As of version 1, after a deletion.
    const ids = (await call('GET', `/api/dataset/${d.slug}`)).body.data.map((r: { id: string }) => r.id);
    await call('DELETE', `/api/dataset/${d.slug}/records`, { recordIds: ids.slice(1) });
    expect((await call('GET', `/api/dataset/${d.slug}/export?format=jsonl`)).text.trimEnd().split('\n')).toHaveLength(1);
    const old = await call('GET', `/api/dataset/${d.slug}/export?format=jsonl&version=1`);
    expect(old.headers.get('content-disposition')).toBe('attachment; filename="export-me-v1.jsonl"');
    expect(old.text.trimEnd().split('\n')).toHaveLength(7);
    expect((await call('GET', `/api/dataset/${d.slug}/export?format=xlsx`)).body.error.meta.field).toBe('querystring.format');
  });

  it('export of more records than one batch keeps every row in order, and an exported file uploads back as it was', async () => {
    const d = (await call('POST', '/api/dataset', { name: 'Round Trip', columnTypes: [{ name: 'q', type: 'string' }, { name: 'a', type: 'string' }] })).body;
    for (let b = 0; b < 3; b++) {
      const entries = Array.from({ length: 1000 }, (_, i) => ({ q: `q${b * 1000 + i}`, a: `"answer", ${i}` }));
      await call('POST', `/api/dataset/${d.slug}/records`, { entries });
    }
    const csv = await call('GET', `/api/dataset/${d.slug}/export`);
    const res = await upload(a.t, a.key, '/api/dataset/upload', { name: 'Round Trip Copy', file: { filename: 'copy.csv', content: csv.text } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.recordsCreated).toBe(3000);
    const page = await call('GET', '/api/dataset/round-trip-copy/records?page=3&limit=1000');
    expect(page.body.data[999].entry).toEqual({ q: 'q2999', a: '"answer", 999' });
  });

  it('an exact CSV export holds every value as stored (formula-like text too), and uploads back unchanged', async () => {
    const columnTypes = [{ name: 'text', type: 'string' }, { name: 'n', type: 'number' }];
    const d = (await call('POST', '/api/dataset', { name: 'Exact', columnTypes })).body;
    const entries = [
      { text: '=HYPERLINK("http://x","y")', n: -5 },
      { text: '+1', n: 2.5 },
      { text: "-2, with 'quotes\"", n: 0 },
      { text: '@SUM(A1)', n: null },
      { text: 'plain', n: 7 },
    ];
    await call('POST', `/api/dataset/${d.slug}/records`, { entries });
    const exact = await call('GET', `/api/dataset/${d.slug}/export?format=csv&cells=exact`);
    expect(exact.status).toBe(200);
    expect(exact.text).toBe(['text,n', '"=HYPERLINK(""http://x"",""y"")",-5', '+1,2.5', `"-2, with 'quotes""",0`, '@SUM(A1),', 'plain,7', ''].join('\r\n'));
    // The spreadsheet export (the default) still escapes them.
    expect((await call('GET', `/api/dataset/${d.slug}/export?format=csv&cells=spreadsheet`)).text.split('\r\n')[2]).toBe("'+1,2.5");
    const mapping = columnTypes.map((c) => ({ from: c.name, name: c.name, type: c.type }));
    const back = await upload(a.t, a.key, '/api/dataset/upload', { name: 'Exact Copy', mapping, file: { filename: 'exact.csv', content: exact.text } });
    expect(back.status, back.text).toBe(201);
    expect((await call('GET', '/api/dataset/exact-copy/records')).body.data.map((r: { entry: unknown }) => r.entry)).toEqual(entries);
    expect((await call('GET', `/api/dataset/${d.slug}/export?format=csv&cells=raw`)).body.error.meta.field).toBe('querystring.cells');
  });

  it('the experiments set up on a dataset are listed by it; once it is deleted their setup says so and keeps its name', async () => {
    const d = (await call('POST', '/api/dataset', { name: 'Support QA', columnTypes: [{ name: 'question', type: 'string' }] })).body;
    const other = (await call('POST', '/api/dataset', { name: 'Other', columnTypes: [{ name: 'question', type: 'string' }] })).body;
    const target = { id: 'agent', type: 'http', url: 'https://agent.example.com/answer', output_field: 'answer' };
    for (const [slug, ds] of [['on-support', d], ['on-other', other]] as const) {
      const put = await call('PUT', `/api/experiments/${slug}/definition`, { name: `Runs on ${ds.name}`, dataset: { id: ds.id }, targets: [target] });
      expect(put.status, put.text).toBe(200);
      expect(put.body.dataset).toMatchObject({ id: ds.id, slug: ds.slug, name: ds.name, deleted: false });
    }
    const using = await call('GET', `/api/experiments?datasetId=${d.id}`);
    expect(using.status).toBe(200);
    expect(using.body.experiments.map((e: { slug: string }) => e.slug)).toEqual(['on-support']);
    expect(using.body.pagination.totalHits).toBe(1);
    expect((await call('GET', '/api/experiments')).body.experiments).toHaveLength(2);
    expect((await call('DELETE', `/api/dataset/${d.slug}`)).status).toBe(200);
    const setup = await call('GET', '/api/experiments/on-support/definition');
    expect(setup.body.dataset).toEqual({ id: d.id, slug: d.id, name: 'Support QA', version: null, deleted: true });
    expect((await call('GET', '/api/experiments/on-other/definition')).body.dataset.deleted).toBe(false);
  });
});
